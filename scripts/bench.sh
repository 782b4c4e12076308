#!/usr/bin/env bash
# Runs every benchmark once and prints one table: per workload, wall time,
# CPU time and peak RSS where the benchmark measures them, its floor (what
# the same bytes cost a plain tool: gzip -dc or pigz -dc of the same layers,
# downloading them from the same registry, cat of the same YAML, internal/yamlfloor
# parsing it) and the ratio to it, all from the same run. The raw
# `go test -bench` output is kept in $BENCH_OUT.
set -euo pipefail
cd "$(dirname "$0")/.."

go=${GO:-go}
out=${BENCH_OUT:-bench.out}
benchtime=${BENCHTIME:-1x}

echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); $("$go" version)"
"$go" test -run '^$' -bench "${BENCH:-.}" -benchtime "$benchtime" -benchmem -timeout 60m ./... | tee "$out" >&2

# A benchmark line is: name, iterations, then value-unit pairs.
awk '
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  delete m
  for (i = 3; i < NF; i += 2) m[$(i + 1)] = $i
  wall = ("cold-s" in m) ? m["cold-s"] : (("run-s" in m) ? m["run-s"] : m["ns/op"] / 1e9)
  cpu = ("cpu-s" in m) ? sprintf(m["cpu-s"] < 0.1 ? "%.4f" : "%.2f", m["cpu-s"]) : "-"
  rss = ("peak-MiB" in m) ? m["peak-MiB"] : (("peak-RSS-MiB" in m) ? m["peak-RSS-MiB"] : "-")
  floor = "-"; ratio = "-"
  if ("floor-s" in m) { floor = sprintf("gzip -dc %.2fs", m["floor-s"]); ratio = sprintf("%.2f×", wall / m["floor-s"]) }
  if ("pigz-floor-s" in m) { floor = floor sprintf(", pigz -dc %.2fs", m["pigz-floor-s"]); ratio = ratio sprintf(", %.2f×", wall / m["pigz-floor-s"]) }
  if ("download-floor-s" in m) { floor = sprintf("download %.2fs", m["download-floor-s"]); ratio = sprintf("%.2f×", wall / m["download-floor-s"]) }
  if ("inflate-floor-s" in m) { floor = floor sprintf(", inflate on every CPU %.2fs", m["inflate-floor-s"]); ratio = ratio sprintf(", %.2f×", wall / m["inflate-floor-s"]) }
  if ("cat-floor-s" in m) { floor = sprintf("cat %.3fs", m["cat-floor-s"]); ratio = sprintf("%.0f×", wall / m["cat-floor-s"]) }
  if ("parse-floor-cpu-s" in m) {
    floor = floor sprintf(", yamlfloor %.2fs CPU %.0f MiB", m["parse-floor-cpu-s"], m["parse-floor-MiB"])
    ratio = ratio sprintf(", CPU %.2f×, RSS %.1f×", m["cpu-s"] / m["parse-floor-cpu-s"], rss / m["parse-floor-MiB"])
  }
  rows[++n] = sprintf("| %s | %.3f | %s | %s | %s | %s |", name, wall, cpu, rss, floor, ratio)
  if ("warm-s" in m) rows[++n] = sprintf("| %s (warm) | %.3f | - | - | %s | %.3f× |", name, m["warm-s"], floor, m["warm/floor"])
  if ("cold-go-s" in m) rows[++n] = sprintf("| %s (--inflate go) | %.3f | - | - | %s | %.2f× |", name, m["cold-go-s"], floor, m["cold-go-s"] / m["floor-s"])
}
END {
  print "| workload | wall s | cpu s | peak MiB | floor | ratio to floor |"
  print "| --- | ---: | ---: | ---: | --- | --- |"
  for (i = 1; i <= n; i++) print rows[i]
}' "$out"
