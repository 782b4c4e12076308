#!/usr/bin/env python3
"""Measures the CPU a model loader spends per byte, the figure behind the
per-core load rates of docs/performance.md ("Model load rates").

Each case loads a file of SIZE_MIB from the page cache (read once before
timing, so no disk is involved) the way one kind of loader does, and prints
MiB per CPU-second (user + system) of this process: what one core
deserialises when nothing else limits it. Under a CPU limit below one core
the same CPU-seconds are spread over 1/limit as much wall time.

  read     readinto() a preallocated buffer: llama.cpp --no-mmap, TF's
           tensor bundle reads, ONNX external data, vLLM's CPU copy of
           a safetensors tensor (the kernel's copy to user memory)
  mmap     mmap the file and touch every page: llama.cpp and safetensors
           with mmap (page faults from the page cache, no copy); a server
           maps its file once, so the first round is its figure
  zip      read every member of a ZIP_STORED archive with zipfile: the
           layout of a PyTorch .bin/.pt checkpoint and of a TorchServe .mar
           (a copy and a CRC-32 of every member)
  pickle   pickle.loads of a dict of bytes values: a pickled estimator's
           arrays (MLServer sklearn/xgboost) without numpy

Only the standard library; no network. Usage:
  taskset -c 1 python3 scripts/loadrate.py [SIZE_MIB]
"""

import mmap
import os
import pickle
import resource
import sys
import tempfile
import zipfile

SIZE_MIB = int(sys.argv[1]) if len(sys.argv) > 1 else 512
TENSOR_MIB = 16  # one member or value: a layer's weight matrix
ROUNDS = 3


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def warm(path):
    with open(path, "rb") as f:
        while f.read(64 << 20):
            pass


def case_read(path):
    buffer = bytearray(TENSOR_MIB << 20)
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as f:
        while f.readinto(view):
            pass


def case_mmap(path):
    with open(path, "rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
        total = 0
        for offset in range(0, len(mapped), mmap.PAGESIZE):
            total += mapped[offset]
        mapped.close()
    return total


def case_zip(path):
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            with archive.open(name) as member:
                while member.read(TENSOR_MIB << 20):
                    pass


def case_pickle(path):
    with open(path, "rb") as f:
        pickle.loads(f.read())


def measure(name, path, load):
    warm(path)
    rates = []
    for _ in range(ROUNDS):
        before = cpu_seconds()
        load(path)
        spent = cpu_seconds() - before
        rates.append(SIZE_MIB / spent if spent > 0 else float("inf"))
    first = rates[0]
    rates.sort()
    print(f"{name:7s} {rates[len(rates) // 2]:8.0f} MiB per CPU-second (median of {ROUNDS}; "
          f"{rates[0]:.0f}-{rates[-1]:.0f}; first round {first:.0f})")


def main():
    tensor = os.urandom(TENSOR_MIB << 20)
    count = SIZE_MIB // TENSOR_MIB
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "weights.bin")
        with open(raw, "wb") as f:
            for _ in range(count):
                f.write(tensor)
        archive = os.path.join(tmp, "archive.zip")
        with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_STORED) as z:
            for i in range(count):
                z.writestr(f"archive/data/{i}", tensor)
        pickled = os.path.join(tmp, "model.pkl")
        with open(pickled, "wb") as f:
            pickle.dump({f"layer{i}": tensor for i in range(count)}, f, protocol=4)
        print(f"{SIZE_MIB} MiB in {TENSOR_MIB} MiB tensors, CPUs allowed: {sorted(os.sched_getaffinity(0))}")
        measure("read", raw, case_read)
        measure("mmap", raw, case_mmap)
        measure("zip", archive, case_zip)
        measure("pickle", pickled, case_pickle)


if __name__ == "__main__":
    main()
