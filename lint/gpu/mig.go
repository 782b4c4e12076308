package gpu

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// migProfile is one MIG profile of one GPU and the memory a process in it
// can use.
type migProfile struct {
	gpu     GPU    // the whole GPU
	profile string // "1g.10gb", as the profile's name writes it
	memory  int64
	// listed says memory is the usable GiB nvidia-smi mig -lgip lists for
	// the profile (the guide's "Getting Started with MIG"); otherwise it is
	// the profile's "Fraction of Memory" (the guide's "Supported MIG
	// Profiles" tables) of the whole GPU's memory, which leaves out the
	// little the driver keeps per instance.
	listed bool
}

// lgip is a usable size as nvidia-smi mig -lgip lists it, in GiB.
func lgip(gibibytes float64) int64 { return int64(gibibytes * gib) }

// fraction is a share of a whole GPU's memory.
func fraction(gpu GPU, eighths int64) int64 { return gpu.MemoryBytes * eighths / 8 }

// migProfiles is the table of MIG profiles, from NVIDIA's MIG user guide
// (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/):
// supported-mig-profiles.html for the profiles and their
// fractions, getting-started-with-mig.html for nvidia-smi mig -lgip.
// "+me" profiles (media extensions) have the memory of their base profile.
var migProfiles = []migProfile{
	// A100-SXM4-40GB, nvidia-smi mig -lgip. https://docs.nvidia.com/datacenter/tesla/mig-user-guide/getting-started-with-mig.html
	{a100x40, "1g.5gb", lgip(4.75), true},
	{a100x40, "1g.10gb", lgip(9.62), true},
	{a100x40, "2g.10gb", lgip(9.62), true},
	{a100x40, "3g.20gb", lgip(19.50), true},
	{a100x40, "4g.20gb", lgip(19.50), true},
	{a100x40, "7g.40gb", lgip(39.25), true},
	// A100-SXM4-80GB, nvidia-smi mig -lgip (drivers list 9856 MiB for
	// 1g.10gb). https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html
	{a100x80, "1g.10gb", lgip(9.625), true},
	{a100x80, "1g.20gb", lgip(19.50), true},
	{a100x80, "2g.20gb", lgip(19.50), true},
	{a100x80, "3g.40gb", lgip(39.25), true},
	{a100x80, "4g.40gb", lgip(39.25), true},
	{a100x80, "7g.80gb", lgip(79.00), true},
	// H100 80GB, nvidia-smi mig -lgip. https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html
	{h100, "1g.10gb", lgip(9.75), true},
	{h100, "1g.20gb", lgip(19.62), true},
	{h100, "2g.20gb", lgip(19.62), true},
	{h100, "3g.40gb", lgip(39.50), true},
	{h100, "4g.40gb", lgip(39.50), true},
	{h100, "7g.80gb", lgip(79.25), true},
	// H100 NVL 94GB, fraction of memory. https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html
	{h100nvl, "1g.12gb", fraction(h100nvl, 1), false},
	{h100nvl, "1g.24gb", fraction(h100nvl, 2), false},
	{h100nvl, "2g.24gb", fraction(h100nvl, 2), false},
	{h100nvl, "3g.47gb", fraction(h100nvl, 4), false},
	{h100nvl, "4g.47gb", fraction(h100nvl, 4), false},
	{h100nvl, "7g.94gb", fraction(h100nvl, 8), false},
	// H200 141GB, fraction of memory. https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html
	{h200, "1g.18gb", fraction(h200, 1), false},
	{h200, "1g.35gb", fraction(h200, 2), false},
	{h200, "2g.35gb", fraction(h200, 2), false},
	{h200, "3g.71gb", fraction(h200, 4), false},
	{h200, "4g.71gb", fraction(h200, 4), false},
	{h200, "7g.141gb", fraction(h200, 8), false},
	// B200 180GB, fraction of memory. https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html
	{b200, "1g.23gb", fraction(b200, 1), false},
	{b200, "1g.45gb", fraction(b200, 2), false},
	{b200, "2g.45gb", fraction(b200, 2), false},
	{b200, "3g.90gb", fraction(b200, 4), false},
	{b200, "4g.90gb", fraction(b200, 4), false},
	{b200, "7g.180gb", fraction(b200, 8), false},
	// A30 24GB, quarters of its memory. https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html
	{a30, "1g.6gb", fraction(a30, 2), false},
	{a30, "2g.12gb", fraction(a30, 4), false},
	{a30, "4g.24gb", fraction(a30, 8), false},
}

// profilePattern is a MIG profile's name: compute slices, memory, and an
// optional media-extension or sharing suffix.
var profilePattern = lazyregexp.New(`^(\d+g\.\d+gb)(?:[+.]me)?(?:[.-]shared)?$`)

// profileOf reads the profile of a MIG resource or product suffix.
func profileOf(name string) (string, bool) {
	match := profilePattern.FindStringSubmatch(strings.ToLower(name))
	if match == nil {
		return "", false
	}
	return match[1], true
}

// migFromLabels reads a MIG slice from labels that name one: GKE's
// partition size or a GPU Feature Discovery product of the single
// strategy ("A100-SXM4-40GB-MIG-1g.5gb") for nvidia.com/gpu, and GFD's
// mig-<profile>.memory of the mixed strategy for nvidia.com/mig-<profile>.
func migFromLabels(resource corev1.ResourceName, labels map[string]string) (Device, bool) {
	if profile, ok := profileOf(strings.TrimPrefix(string(resource), ResourceMIGPrefix)); ok {
		key := "nvidia.com/mig-" + profile + ".memory"
		if value, set := labels[key]; set {
			if gpu, known := ForLabel(LabelGFDMemory, value); known {
				base, _ := migBase(labels)
				gpu.Name = "MIG " + profile + " slice"
				if base.Name != "" {
					gpu.Name += " of an " + base.Name
				}
				gpu.ComputeCapability = base.ComputeCapability
				return Device{GPU: gpu, How: fmt.Sprintf("node label %s=%s MiB", key, value), MIG: profile, Whole: base}, true
			}
		}
		return Device{}, false
	}
	if partition, set := labels[LabelGKEPartitionSize]; set {
		base, _ := ForLabel(LabelGKEAccelerator, labels[LabelGKEAccelerator])
		return sliceOf(partition, base, fmt.Sprintf("node label %s=%s", LabelGKEPartitionSize, partition), resource)
	}
	product := labels[LabelGFDProduct]
	if whole, slice, found := strings.Cut(strings.ToUpper(product), "-MIG-"); found {
		base, _ := ForLabel(LabelGFDProduct, whole)
		return sliceOf(slice, base, fmt.Sprintf("node label %s=%s", LabelGFDProduct, product), resource)
	}
	return Device{}, false
}

// migBase is the whole GPU the labels name.
func migBase(labels map[string]string) (GPU, bool) {
	for _, key := range []string{LabelGKEAccelerator, LabelGFDProduct, LabelKarpenterGPUName, LabelInstanceType} {
		if value, set := labels[key]; set {
			if slice := strings.Index(strings.ToUpper(value), "-MIG-"); slice >= 0 {
				value = value[:slice]
			}
			if gpu, ok := ForLabel(key, value); ok {
				return gpu, true
			}
		}
	}
	return GPU{}, false
}

// migSlice sizes the slice a nvidia.com/mig-<profile> resource names, on
// base (Name "" when the GPU is not known).
func migSlice(resource corev1.ResourceName, base GPU, how string) (Device, bool) {
	return sliceOf(strings.TrimPrefix(string(resource), ResourceMIGPrefix), base, joinHow(how, "resource "+string(resource)), resource)
}

// sliceOf sizes a profile on a GPU from the table; on an unknown GPU, the
// smallest of the GPUs that have the profile.
func sliceOf(name string, base GPU, how string, resource corev1.ResourceName) (Device, bool) {
	profile, ok := profileOf(name)
	if !ok {
		return Device{}, false
	}
	var candidates []migProfile
	for _, row := range migProfiles {
		if row.profile == profile && (base.Name == "" || row.gpu.Name == base.Name) {
			candidates = append(candidates, row)
		}
	}
	if len(candidates) == 0 {
		return Device{}, false
	}
	smallest := slices.MinFunc(candidates, func(a, b migProfile) int { return int(a.memory - b.memory) })
	gpu := GPU{Name: "MIG " + profile + " slice of an " + smallest.gpu.Name, MemoryBytes: smallest.memory,
		ComputeCapability: smallest.gpu.ComputeCapability}
	source := "usable memory as nvidia-smi mig -lgip lists it, NVIDIA's MIG user guide"
	if !smallest.listed {
		source = "the profile's fraction of the GPU's memory, NVIDIA's MIG user guide"
	}
	if base.Name == "" {
		var names []string
		for _, row := range candidates {
			names = append(names, row.gpu.Name)
		}
		gpu.Name = "MIG " + profile + " slice"
		source += fmt.Sprintf("; the GPU is not named: the smallest %s of %s", profile, strings.Join(names, ", "))
	}
	device := Device{GPU: gpu, How: joinHow(how, source), MIG: profile, Whole: base}
	if strings.HasSuffix(string(resource), ".shared") {
		device.Shared = "time-sliced: every pod on the slice sees all of its memory and they share it"
		device.How = joinHow(device.How, device.Shared)
	}
	return device, true
}

// Slice is a MIG profile of a GPU and the memory a process in it can use.
type Slice struct {
	Profile     string // "3g.40gb"
	Whole       GPU
	MemoryBytes int64
}

// SlicesHolding returns the smallest MIG profile of a slice's GPU whose
// memory is at least need: of each GPU that has the slice's profile when
// the slice's GPU is not known, smallest GPU first. It returns none for a
// whole GPU, or when no profile holds need.
func SlicesHolding(device Device, need int64) []Slice {
	if device.MIG == "" {
		return nil
	}
	var wholes []GPU
	for _, row := range migProfiles {
		if row.profile == device.MIG && (device.Whole.Name == "" || row.gpu.Name == device.Whole.Name) &&
			!slices.Contains(wholes, row.gpu) {
			wholes = append(wholes, row.gpu)
		}
	}
	slices.SortStableFunc(wholes, func(a, b GPU) int { return cmp.Compare(a.MemoryBytes, b.MemoryBytes) })
	var holding []Slice
	for _, whole := range wholes {
		var smallest *migProfile
		for i, row := range migProfiles {
			if row.gpu == whole && row.memory >= need && (smallest == nil || row.memory < smallest.memory) {
				smallest = &migProfiles[i]
			}
		}
		if smallest != nil {
			holding = append(holding, Slice{Profile: smallest.profile, Whole: whole, MemoryBytes: smallest.memory})
		}
	}
	return holding
}

// WholeGPU is the GPU a MIG slice is of: the one its labels name, else
// the smallest of the GPUs that have its profile; ok is false for a whole
// GPU or a profile the table does not have.
func WholeGPU(device Device) (GPU, bool) {
	if device.MIG == "" {
		return GPU{}, false
	}
	if device.Whole.Name != "" {
		return device.Whole, true
	}
	var smallest GPU
	for _, row := range migProfiles {
		if row.profile == device.MIG && (smallest.Name == "" || row.gpu.MemoryBytes < smallest.MemoryBytes) {
			smallest = row.gpu
		}
	}
	return smallest, smallest.Name != ""
}
