// Package gpu knows what accelerator a container gets and how much memory
// one of them has: the resource it requests (whole NVIDIA GPUs, MIG
// slices, shared replicas, AMD GPUs, Intel Gaudi, Google TPU chips), the
// pod's nodeSelector and required node affinity (GKE's, GPU Feature
// Discovery's, Karpenter's, the ROCm and Habana labellers' labels, or a
// cloud instance type) and the cluster's node labels. Its tables are the
// one place that knows the devices' memory and compute capability.
package gpu

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// GPU is one accelerator model (an NVIDIA GPU or one of its MIG slices, an
// AMD Instinct GPU or GCD, an Intel Gaudi card, a Google TPU chip) and the
// memory a server on one of them can use.
type GPU struct {
	Name        string // for messages: "NVIDIA L4"
	MemoryBytes int64
	// ComputeCapability is CUDA's, times ten (75 for 7.5): what decides
	// whether the GPU computes in bfloat16 (8.0 and up). 0 when the device
	// is not an NVIDIA GPU or its model is not known.
	ComputeCapability int
}

// Capability writes a compute capability the way CUDA does: "7.5".
func (g GPU) Capability() string {
	return fmt.Sprintf("%d.%d", g.ComputeCapability/10, g.ComputeCapability%10)
}

const (
	mib = 1 << 20
	gib = 1 << 30
)

// The table of accelerators, one row each with its source. NVIDIA's rows
// hold the memory the driver reports as total (nvidia-smi's "MiB" column,
// and what GPU Feature Discovery writes to nvidia.com/gpu.memory): what a
// server's memory fraction multiplies, a little less than the datasheet's
// "GB". Compute capabilities: https://developer.nvidia.com/cuda-gpus
var (
	p4      = GPU{"NVIDIA P4", 7680 * mib, 61}         // https://www.nvidia.com/en-us/data-center/tesla-p4/
	t4      = GPU{"NVIDIA T4", 15360 * mib, 75}        // https://www.nvidia.com/en-us/data-center/tesla-t4/
	p100    = GPU{"NVIDIA P100", 16280 * mib, 60}      // https://www.nvidia.com/en-us/data-center/tesla-p100/
	v100    = GPU{"NVIDIA V100 16GB", 16384 * mib, 70} // https://www.nvidia.com/en-us/data-center/v100/
	v100x32 = GPU{"NVIDIA V100 32GB", 32768 * mib, 70} // https://www.nvidia.com/en-us/data-center/v100/
	a10     = GPU{"NVIDIA A10", 23028 * mib, 86}       // https://www.nvidia.com/en-us/data-center/products/a10-gpu/
	a10g    = GPU{"NVIDIA A10G", 23028 * mib, 86}      // https://aws.amazon.com/ec2/instance-types/g5/
	a30     = GPU{"NVIDIA A30", 24576 * mib, 80}       // https://www.nvidia.com/en-us/data-center/products/a30-gpu/
	l4      = GPU{"NVIDIA L4", 23034 * mib, 89}        // https://www.nvidia.com/en-us/data-center/l4/
	l40     = GPU{"NVIDIA L40", 46068 * mib, 89}       // https://www.nvidia.com/en-us/data-center/l40/
	l40s    = GPU{"NVIDIA L40S", 46068 * mib, 89}      // https://www.nvidia.com/en-us/data-center/l40s/
	a100x40 = GPU{"NVIDIA A100 40GB", 40960 * mib, 80} // https://www.nvidia.com/en-us/data-center/a100/
	a100x80 = GPU{"NVIDIA A100 80GB", 81920 * mib, 80} // https://www.nvidia.com/en-us/data-center/a100/
	h100    = GPU{"NVIDIA H100 80GB", 81559 * mib, 90} // https://www.nvidia.com/en-us/data-center/h100/
	h100nvl = GPU{"NVIDIA H100 NVL", 95830 * mib, 90}  // https://www.nvidia.com/en-us/data-center/h100/
	h200    = GPU{"NVIDIA H200", 143771 * mib, 90}     // https://www.nvidia.com/en-us/data-center/h200/
	b200    = GPU{"NVIDIA B200", 183359 * mib, 100}    // https://www.nvidia.com/en-us/data-center/dgx-b200/

	// AMD Instinct: the HBM of one device the ROCm device plugin hands out
	// as amd.com/gpu. An MI250 or MI250X is two GCDs of 64 GB, each its
	// own device. https://www.amd.com/en/products/accelerators/instinct.html
	mi210  = GPU{Name: "AMD Instinct MI210", MemoryBytes: 64 * gib}                // https://www.amd.com/en/products/accelerators/instinct/mi200/mi210.html
	mi250  = GPU{Name: "one GCD of an AMD Instinct MI250", MemoryBytes: 64 * gib}  // https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html
	mi250x = GPU{Name: "one GCD of an AMD Instinct MI250X", MemoryBytes: 64 * gib} // https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html
	mi300x = GPU{Name: "AMD Instinct MI300X", MemoryBytes: 192 * gib}              // https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html
	mi325x = GPU{Name: "AMD Instinct MI325X", MemoryBytes: 256 * gib}              // https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html
	// AWS's G4ad have Radeon Pro V520s of 8 GB, also amd.com/gpu.
	v520 = GPU{Name: "AMD Radeon Pro V520", MemoryBytes: 8 * gib} // https://aws.amazon.com/ec2/instance-types/g4/

	// Intel Gaudi, the HBM of one card (habana.ai/gaudi).
	gaudi  = GPU{Name: "Intel Gaudi", MemoryBytes: 32 * gib}    // https://aws.amazon.com/ec2/instance-types/dl1/
	gaudi2 = GPU{Name: "Intel Gaudi 2", MemoryBytes: 96 * gib}  // https://www.intel.com/content/www/us/en/products/details/processors/ai-accelerators/gaudi2.html
	gaudi3 = GPU{Name: "Intel Gaudi 3", MemoryBytes: 128 * gib} // https://www.intel.com/content/www/us/en/products/details/processors/ai-accelerators/gaudi.html

	// Google TPU, the HBM of one chip (google.com/tpu).
	// https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus
	tpuV4  = GPU{Name: "Google TPU v4 chip", MemoryBytes: 32 * gib}  // https://cloud.google.com/tpu/docs/v4
	tpuV5e = GPU{Name: "Google TPU v5e chip", MemoryBytes: 16 * gib} // https://cloud.google.com/tpu/docs/v5e
	tpuV5p = GPU{Name: "Google TPU v5p chip", MemoryBytes: 95 * gib} // https://cloud.google.com/tpu/docs/v5p
	tpuV6e = GPU{Name: "Google TPU v6e chip", MemoryBytes: 32 * gib} // https://cloud.google.com/tpu/docs/v6e
)

// The node labels that say which GPU a node has, in the order they are
// trusted: a label that names the GPU before one that only hints at it.
const (
	// https://cloud.google.com/kubernetes-engine/docs/how-to/gpus
	LabelGKEAccelerator = "cloud.google.com/gke-accelerator"
	// https://github.com/NVIDIA/k8s-device-plugin/blob/main/docs/gpu-feature-discovery/README.md
	LabelGFDProduct = "nvidia.com/gpu.product"
	LabelGFDMemory  = "nvidia.com/gpu.memory" // MiB
	// https://karpenter.sh/docs/reference/instance-types/ (AWS's EC2 GpuInfo)
	LabelKarpenterGPUName   = "karpenter.k8s.aws/instance-gpu-name"
	LabelKarpenterGPUMemory = "karpenter.k8s.aws/instance-gpu-memory" // MiB
	// https://kubernetes.io/docs/reference/labels-annotations-taints/#nodekubernetesioinstance-type
	LabelInstanceType = "node.kubernetes.io/instance-type"
)

// Labels are the node labels ForPod reads, in that order.
var Labels = []string{LabelGKEAccelerator, LabelGFDProduct, LabelGFDMemory, LabelKarpenterGPUName,
	LabelKarpenterGPUMemory, LabelInstanceType}

// gkeAccelerators are GKE's accelerator label values.
var gkeAccelerators = map[string]GPU{
	"nvidia-tesla-p4": p4, "nvidia-tesla-t4": t4, "nvidia-tesla-p100": p100, "nvidia-tesla-v100": v100,
	"nvidia-l4": l4, "nvidia-tesla-a100": a100x40, "nvidia-a100-80gb": a100x80,
	"nvidia-h100-80gb": h100, "nvidia-h100-mega-80gb": h100, "nvidia-h200-141gb": h200, "nvidia-b200": b200,
}

// gfdProducts are GPU Feature Discovery's product names (the driver's
// name with dashes), upper case and without the "NVIDIA-" or "Tesla-"
// that drivers put before some of them.
var gfdProducts = map[string]GPU{
	"P4": p4, "T4": t4, "A30": a30, "A30-24GB": a30, "P100-PCIE-16GB": p100, "P100-SXM2-16GB": p100, "A10": a10, "A10G": a10g,
	"V100-SXM2-16GB": v100, "V100-PCIE-16GB": v100, "V100-SXM2-32GB": v100x32, "V100-PCIE-32GB": v100x32,
	"V100S-PCIE-32GB": v100x32, "L4": l4, "L40": l40, "L40S": l40s, "H200": h200, "H200-NVL": h200, "B200": b200,
	"A100-SXM4-40GB": a100x40, "A100-PCIE-40GB": a100x40, "A100-SXM4-80GB": a100x80, "A100-80GB-PCIE": a100x80,
	"H100-80GB-HBM3": h100, "H100-PCIE": h100, "H100-SXM5-80GB": h100, "H100-NVL": h100nvl,
}

// karpenterGPUs are EC2's GPU names as Karpenter labels them. Where two
// instance families share a name (a100: p4d 40 GB, p4de 80 GB; v100: p3
// 16 GB, p3dn 32 GB) Karpenter launches the cheaper, smaller one.
var karpenterGPUs = map[string]GPU{
	"t4": t4, "t4g": t4, "a10g": a10g, "l4": l4, "l40s": l40s, "v100": v100, "a100": a100x40,
	"h100": h100, "h200": h200, "b200": b200,
}

// instanceTypes are the GPU instance types of the clouds, by pattern.
// AWS: https://aws.amazon.com/ec2/instance-types/#Accelerated_Computing
// GCP: https://cloud.google.com/compute/docs/gpus and
// https://cloud.google.com/compute/docs/accelerator-optimized-machines
// Azure: https://learn.microsoft.com/azure/virtual-machines/sizes/overview#gpu-accelerated
var instanceTypes = []struct {
	pattern *lazyregexp.Regexp
	gpu     GPU
}{
	{lazyregexp.New(`^g4dn\.`), t4},
	{lazyregexp.New(`^g5\.`), a10g},
	{lazyregexp.New(`^gr?6\.`), l4},
	{lazyregexp.New(`^g6e\.`), l40s},
	{lazyregexp.New(`^p3\.`), v100},
	{lazyregexp.New(`^p3dn\.`), v100x32},
	{lazyregexp.New(`^p4d\.`), a100x40},
	{lazyregexp.New(`^p4de\.`), a100x80},
	{lazyregexp.New(`^p5\.`), h100},
	{lazyregexp.New(`^p5en?\.`), h200},
	{lazyregexp.New(`^p6-b200\.`), b200},
	{lazyregexp.New(`^g2-standard-`), l4},
	{lazyregexp.New(`^a2-(highgpu|megagpu)-`), a100x40},
	{lazyregexp.New(`^a2-ultragpu-`), a100x80},
	{lazyregexp.New(`^a3-(highgpu|megagpu|edgegpu)-`), h100},
	{lazyregexp.New(`^a3-ultragpu-`), h200},
	{lazyregexp.New(`^a4-highgpu-`), b200},
	{lazyregexp.New(`(?i)^standard_nc\d+as_t4_v3$`), t4},
	{lazyregexp.New(`(?i)^standard_nc\d+r?s_v3$`), v100},
	{lazyregexp.New(`(?i)^standard_nd40rs_v2$`), v100x32}, // https://learn.microsoft.com/azure/virtual-machines/ndv2-series
	{lazyregexp.New(`(?i)^standard_nc\d+ads_a100_v4$`), a100x80},
	{lazyregexp.New(`(?i)^standard_nd96asr_v4$`), a100x40},
	{lazyregexp.New(`(?i)^standard_nd96amsr_a100_v4$`), a100x80},
	// NCads H100 v5 (NC40ads, NC80adis) and the confidential NCCads H100
	// v5 (NCC40ads) have H100 NVLs of 94 GB.
	// https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ncadsh100v5-series and
	// https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nccadsh100v5-series
	{lazyregexp.New(`(?i)^standard_ncc?\d+adi?s_h100_v5$`), h100nvl},
	// NVadsA10 v5 share one A10 among up to six VMs: 1/6 (4 GiB), 1/3,
	// 1/2, then whole A10s; NV72ads has two.
	// https://learn.microsoft.com/azure/virtual-machines/nva10v5-series
	{lazyregexp.New(`(?i)^standard_nv6ads_a10_v5$`), GPU{"1/6 of an NVIDIA A10", 4096 * mib, 86}},
	{lazyregexp.New(`(?i)^standard_nv12ads_a10_v5$`), GPU{"1/3 of an NVIDIA A10", 8192 * mib, 86}},
	{lazyregexp.New(`(?i)^standard_nv18ads_a10_v5$`), GPU{"1/2 of an NVIDIA A10", 12288 * mib, 86}},
	{lazyregexp.New(`(?i)^standard_nv(36ads|36adms|72ads)_a10_v5$`), a10},
	{lazyregexp.New(`(?i)^standard_nd96isr_h100_v5$`), h100},
	{lazyregexp.New(`(?i)^standard_nd96isr_h200_v5$`), h200},
}

// ForLabel returns the GPU a node label's value names, if it names one.
func ForLabel(key, value string) (GPU, bool) {
	var gpu GPU
	var ok bool
	switch key {
	case LabelGKEAccelerator:
		gpu, ok = gkeAccelerators[value]
	case LabelGFDProduct:
		gpu, ok = gfdProducts[gfdProduct(value)]
	case LabelKarpenterGPUName:
		gpu, ok = karpenterGPUs[strings.ToLower(value)]
	case LabelGFDMemory, LabelKarpenterGPUMemory:
		mebibytes, err := strconv.ParseInt(value, 10, 64)
		if err == nil && mebibytes > 0 {
			gpu, ok = GPU{Name: "a GPU of " + value + " MiB", MemoryBytes: mebibytes * mib}, true
		}
	case LabelInstanceType:
		for _, instance := range instanceTypes {
			if instance.pattern.MatchString(value) {
				return instance.gpu, true
			}
		}
	}
	return gpu, ok
}

// gfdProduct normalises a GPU Feature Discovery product name. A shared GPU
// (time-slicing or MPS) is labelled with a "-SHARED" suffix and has the
// whole GPU's memory; a MIG slice has a suffix of its own and is not in the
// table.
func gfdProduct(value string) string {
	name := strings.TrimSuffix(strings.ToUpper(value), "-SHARED")
	for _, prefix := range []string{"NVIDIA-", "TESLA-"} {
		name = strings.TrimPrefix(name, prefix)
	}
	return name
}

// ForPod returns the GPU a pod runs on, and how that was told (for
// messages: "nodeSelector cloud.google.com/gke-accelerator=nvidia-l4").
// The nodeSelector is read first, then the required node affinity: a
// term that allows several GPUs, or several terms, give the smallest of
// them, where the pod may be scheduled. ok is false when the pod does not
// pin a GPU that the table knows.
func ForPod(spec *corev1.PodSpec) (gpu GPU, how string, ok bool) {
	return forSpec(spec, Labels, ForLabel)
}

// ForNode returns the GPU a node's labels name, read in the order of
// Labels: the labels GKE, GPU Feature Discovery and Karpenter put on it.
func ForNode(labels map[string]string) (GPU, bool) {
	for _, key := range Labels {
		if value, set := labels[key]; set {
			if gpu, ok := ForLabel(key, value); ok {
				return gpu, true
			}
		}
	}
	return GPU{}, false
}
