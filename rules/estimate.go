package rules

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/gguf"
	"github.com/modellint/modellint/lint/server"
)

// The arithmetic of the memory and load-time rules (MDL401, MDL402); the
// settings it reads are the config's estimates:.

// memoryEstimate is a memory need with the arithmetic that produced it.
type memoryEstimate struct {
	ModelBytes int64
	Factor     float64
	Versions   int // resident at once
	Copies     int
	Baseline   int64
	// KV is a KV cache held beside the weights when the server serves
	// from the CPU, with its arithmetic; Bytes includes it.
	KV        int64
	KVFormula string
	Bytes     int64
}

// estimateMemory computes modelBytes × factor × versions × copies + baseline.
func estimateMemory(e lint.EstimateConfig, modelBytes int64, versions, copies int) memoryEstimate {
	versions, copies = max(versions, 1), max(copies, 1)
	baseline := e.BaselineMiB << 20
	need := float64(modelBytes)*e.MemoryFactor*float64(versions)*float64(copies) + float64(baseline)
	return memoryEstimate{ModelBytes: modelBytes, Factor: e.MemoryFactor, Versions: versions, Copies: copies,
		Baseline: baseline, Bytes: int64(math.Ceil(need))}
}

// Formula shows the arithmetic, e.g. "2.0 GiB × 1.2 + 256.0 MiB baseline".
func (m memoryEstimate) Formula() string {
	parts := []string{humanBytes(m.ModelBytes), fmt.Sprintf("%g", m.Factor)}
	if m.Versions > 1 {
		parts = append(parts, fmt.Sprintf("%d versions", m.Versions))
	}
	if m.Copies > 1 {
		parts = append(parts, fmt.Sprintf("%d copies", m.Copies))
	}
	formula := strings.Join(parts, " × ")
	if m.KV > 0 {
		formula += " + " + humanBytes(m.KV) + " KV cache (" + m.KVFormula + ")"
	}
	return formula + " + " + humanBytes(m.Baseline) + " baseline"
}

// estimateLoadSeconds computes modelBytes ÷ throughput + start-up.
func estimateLoadSeconds(e lint.EstimateConfig, modelBytes int64) float64 {
	return float64(modelBytes)/(e.LoadMiBPerSecond*(1<<20)) + e.StartupSeconds
}

// The fastest a model loads or downloads, for the end of an estimate's
// range that no deployment beats: a read from a local NVMe disk or the page
// cache, a download on a 10 Gbit/s link. A budget below even that fails
// for certain; one between it and the assumed rate only likely.
const (
	fastLoadMiBPerSecond     = 2048
	fastDownloadMiBPerSecond = 1024
)

// fastestLoadSeconds is the load time at fastLoadMiBPerSecond.
func fastestLoadSeconds(e lint.EstimateConfig, modelBytes int64) float64 {
	return float64(modelBytes)/(fastLoadMiBPerSecond*(1<<20)) + e.StartupSeconds
}

// hostKV is a KV cache a server holds in host memory when it serves from
// the CPU, with the arithmetic and the assumption behind it.
type hostKV struct {
	bytes   int64
	formula string
	// certain says the server writes all of it when it starts (llama.cpp
	// clears its buffer), so that it is resident before the first request.
	certain bool
}

// ggmlCacheTypes are the types llama.cpp's --cache-type-k/-v accept, as
// elements per block and bytes per block (ggml's type_traits).
var ggmlCacheTypes = map[string][2]int64{
	"f32": {1, 4}, "f16": {1, 2}, "bf16": {1, 2}, "q8_0": {32, 34},
	"q4_0": {32, 18}, "q4_1": {32, 20}, "iq4_nl": {32, 18}, "q5_0": {32, 22}, "q5_1": {32, 24},
}

// llamaCPUKV sizes llama.cpp's KV cache as llama_kv_cache allocates it:
// per layer a K tensor of n_embd_k_gqa × kv_size and a V tensor of
// n_embd_v_gqa × kv_size, in the cache types' ggml row sizes. kv_size
// summed over the streams is the context, -c tokens (0: the model's
// context_length): with -np slots the context is shared, each slot gets
// its part, and the total stays -c. False when -c is not set (its default
// has been 512, 4096 and the model's, and --fit may lower it), or the
// header does not size the cache: sliding-window or latent attention,
// per-layer head counts, a cache type not known.
func llamaCPUKV(host *server.HostMemory, args server.Args, header *gguf.File, file string) (hostKV, bool) {
	context, ok := args.Value(host.ContextLength)
	if !ok || header == nil || header.SlidingWindow > 0 || header.KVLoraRank > 0 || header.Recurrent {
		return hostKV{}, false
	}
	tokens, err := strconv.ParseInt(strings.TrimSpace(context.Value), 10, 64)
	from := context.From
	if err == nil && tokens == 0 && header.ContextLength > 0 {
		tokens = header.ContextLength
		from = fmt.Sprintf("%s 0: %s.context_length in the GGUF header of %s", context.From, header.Architecture, file)
	}
	kvHeads := header.HeadCountKV
	if kvHeads == 0 {
		kvHeads = header.HeadCount
	}
	keyDim, valueDim := header.HeadDim(), header.ValueDim()
	if err != nil || tokens <= 0 || header.BlockCount <= 0 || kvHeads <= 0 || keyDim <= 0 || valueDim <= 0 {
		return hostKV{}, false
	}
	cacheType := func(s server.Setting) (string, [2]int64, bool) {
		name := "f16"
		if value, ok := args.Value(s); ok {
			name = strings.ToLower(value.Value)
		}
		block, ok := ggmlCacheTypes[name]
		return name, block, ok && kvHeads*keyDim%block[0] == 0 && kvHeads*valueDim%block[0] == 0
	}
	keyType, keyBlock, keyOK := cacheType(host.CacheTypeK)
	valueType, valueBlock, valueOK := cacheType(host.CacheTypeV)
	if !keyOK || !valueOK {
		return hostKV{}, false
	}
	perToken := kvHeads*keyDim/keyBlock[0]*keyBlock[1] + kvHeads*valueDim/valueBlock[0]*valueBlock[1]
	elementBytes := func(block [2]int64) string {
		return strconv.FormatFloat(float64(block[1])/float64(block[0]), 'f', -1, 64)
	}
	var formula string
	if keyType == valueType && keyDim == valueDim {
		formula = fmt.Sprintf("%s K/V: 2 × %d layers × %d KV heads × %d head dim × %s bytes", keyType, header.BlockCount,
			kvHeads, keyDim, elementBytes(keyBlock))
	} else {
		formula = fmt.Sprintf("%s K, %s V: %d layers × %d KV heads × (%d × %s + %d × %s bytes)", keyType, valueType,
			header.BlockCount, kvHeads, keyDim, elementBytes(keyBlock), valueDim, elementBytes(valueBlock))
	}
	slots := "shared by every slot"
	if parallel, ok := args.Value(host.Parallel); ok {
		if n, err := strconv.Atoi(parallel.Value); err == nil && n > 1 {
			slots = fmt.Sprintf("shared by the %d slots of %s", n, parallel.From)
		}
	}
	return hostKV{bytes: header.BlockCount * tokens * perToken,
		certain: host.KVClearedAtStart && slices.Contains(fullAttentionArchitectures, header.Architecture),
		formula: fmt.Sprintf("%s × %d tokens (%s), %s", formula, tokens, from, slots)}, true
}

// fullAttentionArchitectures are the GGUF architectures whose every layer
// llama.cpp gives a KV cache of the whole context (llm_arch in
// src/llama-model.cpp), so that the cache is certain. Others may leave
// layers out in ways the header does not say (Llama 4's chunked attention
// has no sliding_window key): their cache is an estimate.
var fullAttentionArchitectures = []string{"llama", "qwen2", "qwen2moe", "qwen3", "qwen3moe", "gemma", "phi3",
	"granite", "command-r", "starcoder2", "internlm2", "stablelm"}

// fixedKV is a KV cache of a size the server is given in GiB (vLLM's
// VLLM_CPU_KVCACHE_SPACE), one per tensor-parallel worker.
func fixedKV(host *server.HostMemory, args server.Args, workers int64) (hostKV, bool) {
	gib, from := host.DefaultKVCacheGiB, host.KVCacheGiB.Name()+" unset: the default"
	if value, ok := args.Value(host.KVCacheGiB); ok {
		if n, err := strconv.ParseFloat(strings.TrimSpace(value.Value), 64); err == nil && n > 0 {
			gib, from = n, value.From
		} else if err == nil && n == 0 {
			from = value.From + " 0: the default"
		}
	}
	if gib <= 0 {
		return hostKV{}, false
	}
	formula := fmt.Sprintf("%s GiB (%s)", strconv.FormatFloat(gib, 'f', -1, 64), from)
	if workers > 1 {
		formula += fmt.Sprintf(" × %d tensor-parallel workers", workers)
	}
	return hostKV{bytes: int64(gib*(1<<30)) * max(workers, 1), formula: formula}, true
}

// truthy and falsy are how llama.cpp reads a boolean env var.
func truthy(value string) bool {
	return slices.Contains([]string{"1", "true", "on", "enabled"}, strings.ToLower(strings.TrimSpace(value)))
}

func falsy(value string) bool {
	return slices.Contains([]string{"0", "false", "off", "disabled"}, strings.ToLower(strings.TrimSpace(value)))
}

// weightsMapped says whether the server memory-maps its weights, and the
// setting that turned it off when it does not.
func weightsMapped(host *server.HostMemory, args server.Args) (bool, string) {
	if !host.MapsWeights {
		return false, ""
	}
	if value, enabled, ok := args.Switch(host.Mmap, host.NoMmap); ok {
		return enabled, value.From
	}
	if value, ok := args.Env(host.NoMmapEnv); ok && host.NoMmapEnv != "" && truthy(value.Value) {
		return false, value.From + "=" + value.Value
	}
	if value, ok := args.Env(host.MmapEnv); ok && host.MmapEnv != "" && falsy(value.Value) {
		return false, value.From + "=" + value.Value
	}
	return true, ""
}

// loadFormat is how a server turns a model's bytes into its tensors, and
// how many MiB of them one core does so in a CPU-second when the bytes are
// already in memory: the CPU-bound share of a load, which a CPU limit below
// one core stretches. The rates are docs/performance.md's "Model load
// rates": measured with scripts/loadrate.py, torch.load's from the
// safetensors documentation's benchmark.
type loadFormat struct {
	name             string
	mibPerCoreSecond float64
}

var (
	// Read or mapped into memory and copied: TF's tensor bundle, ONNX
	// initializers, safetensors, GGUF (a first mapping faults its pages in
	// at about the rate a read copies them).
	loadRead = loadFormat{"read into memory", 4000}
	// torch.load of a zip of pickled storages (.bin, .pt, .mar).
	loadPickle = loadFormat{"torch.load", 1600}
)

// loadFormatOf names how the linked server loads its model.
func loadFormatOf(m *model.Model) loadFormat {
	format := loadRead
	switch {
	case len(m.GGUF) > 0:
		format.name = "GGUF " + format.name
	case len(m.Safetensors) > 0 || len(m.SafetensorsIndexes) > 0:
		format.name = "safetensors " + format.name
	case len(m.Pickles) > 0 || m.Layout == model.LayoutTorchServe:
		format = loadPickle
	case len(m.ONNX) > 0 || m.Layout == model.LayoutONNX:
		format.name = "ONNX " + format.name
	case m.Layout == model.LayoutTFServing:
		format.name = "SavedModel variables " + format.name
	}
	return format
}

// loadEstimate is a model's load time under its container's CPU limit,
// with the arithmetic for messages.
type loadEstimate struct {
	Seconds float64
	// Throttled is what the CPU limit adds: the load's CPU-seconds at the
	// format's rate, stretched from one core to the limit's share of one.
	Throttled float64
	CPULimit  string
	Format    loadFormat
}

// estimateLoad is estimateLoadSeconds under the container's CPU limit. A
// loader deserialises on one core, so a limit of a core or more changes
// nothing; below one core CFS throttling runs the CPU-bound share,
// bytes ÷ the format's rate, at limit × one core.
func estimateLoad(pass *lint.Pass, link *lint.Link, bytes int64) loadEstimate {
	estimate := loadEstimate{Seconds: estimateLoadSeconds(pass.Config.Estimates(), bytes)}
	limit, ok := link.Container.Resources.Limits[corev1.ResourceCPU]
	cores := float64(limit.MilliValue()) / 1000
	if !ok || cores <= 0 || cores >= 1 {
		return estimate
	}
	estimate.Format = loadFormatOf(link.Model)
	cpuSeconds := float64(bytes) / (1 << 20) / estimate.Format.mibPerCoreSecond
	estimate.Throttled = cpuSeconds * (1/cores - 1)
	estimate.CPULimit = limit.String()
	estimate.Seconds += estimate.Throttled
	return estimate
}

// throttleText says what the CPU limit adds to a load, "" when it adds
// less than a second.
func (l loadEstimate) throttleText() string {
	if l.Throttled < 0.5 {
		return ""
	}
	return fmt.Sprintf(", of which %.0fs because limits.cpu %s throttles deserialisation (%s at %.0f MiB per CPU-second)",
		l.Throttled, l.CPULimit, l.Format.name, l.Format.mibPerCoreSecond)
}

// repackedBytes are the bytes of the weight matrices llama.cpp's CPU
// backend copies out of the mapped file into buffers of its own, and their
// types; 0 when the server repacks nothing or is told not to. Which of the
// types it repacks depends on the node's CPU, so the figure is what it
// repacks at most.
func repackedBytes(host *server.HostMemory, args server.Args, ggufs []model.GGUFFile) (int64, []string) {
	if len(host.Repacks) == 0 {
		return 0, nil
	}
	if _, enabled, ok := args.Switch(host.Repack, host.NoRepack); ok && !enabled {
		return 0, nil
	}
	if value, ok := args.Env(host.NoRepackEnv); ok && host.NoRepackEnv != "" && truthy(value.Value) {
		return 0, nil
	}
	if value, ok := args.Env(host.RepackEnv); ok && host.RepackEnv != "" && falsy(value.Value) {
		return 0, nil
	}
	var bytes int64
	var types []string
	for _, t := range host.Repacks {
		var typeBytes int64
		for _, file := range ggufs {
			if file.Header != nil {
				typeBytes += file.Header.MatrixBytes[t]
			}
		}
		if typeBytes > 0 {
			bytes += typeBytes
			types = append(types, t)
		}
	}
	return bytes, types
}
