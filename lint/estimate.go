package lint

import (
	"fmt"
	"math"
	"strings"
)

// MemoryEstimate is a memory need with the arithmetic that produced it.
type MemoryEstimate struct {
	ModelBytes int64
	Factor     float64
	Versions   int // resident at once
	Copies     int
	Baseline   int64
	Bytes      int64
}

// EstimateMemory computes modelBytes × factor × versions × copies + baseline.
func EstimateMemory(e EstimateConfig, modelBytes int64, versions, copies int) MemoryEstimate {
	versions, copies = max(versions, 1), max(copies, 1)
	baseline := e.BaselineMiB << 20
	need := float64(modelBytes)*e.MemoryFactor*float64(versions)*float64(copies) + float64(baseline)
	return MemoryEstimate{ModelBytes: modelBytes, Factor: e.MemoryFactor, Versions: versions, Copies: copies,
		Baseline: baseline, Bytes: int64(math.Ceil(need))}
}

// Formula shows the arithmetic, e.g. "2.0GiB × 1.2 + 256MiB baseline".
func (m MemoryEstimate) Formula() string {
	parts := []string{HumanBytes(m.ModelBytes), fmt.Sprintf("%g", m.Factor)}
	if m.Versions > 1 {
		parts = append(parts, fmt.Sprintf("%d versions", m.Versions))
	}
	if m.Copies > 1 {
		parts = append(parts, fmt.Sprintf("%d copies", m.Copies))
	}
	return strings.Join(parts, " × ") + " + " + HumanBytes(m.Baseline) + " baseline"
}

// EstimateLoadSeconds computes modelBytes ÷ throughput + start-up.
func EstimateLoadSeconds(e EstimateConfig, modelBytes int64) float64 {
	return float64(modelBytes)/(e.LoadMiBPerSecond*(1<<20)) + e.StartupSeconds
}

// HumanBytes prints sizes the way Kubernetes users read them (1.5GiB, 300MiB).
func HumanBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	value, unit := float64(n), 0
	for value >= 1024 && unit < len(units)-1 {
		value /= 1024
		unit++
	}
	if unit == 0 {
		return fmt.Sprintf("%dB", n)
	}
	return fmt.Sprintf("%.1f%s", value, units[unit])
}
