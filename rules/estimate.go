package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/modellint/modellint/lint"
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
	Bytes      int64
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
	return strings.Join(parts, " × ") + " + " + humanBytes(m.Baseline) + " baseline"
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
