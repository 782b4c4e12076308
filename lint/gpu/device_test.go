package gpu

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func limits(name string, count int64) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Limits: corev1.ResourceList{
		corev1.ResourceName(name): *resource.NewQuantity(count, resource.DecimalSI)}}
}

func selector(labels ...string) *corev1.PodSpec {
	spec := &corev1.PodSpec{NodeSelector: map[string]string{}}
	for i := 0; i+1 < len(labels); i += 2 {
		spec.NodeSelector[labels[i]] = labels[i+1]
	}
	return spec
}

func TestForContainer(t *testing.T) {
	tests := []struct {
		name      string
		resources corev1.ResourceRequirements
		where     Placement
		want      string // the device's name
		gib       float64
		how       string // a part of How
		cc        int
		unknown   bool
	}{
		{name: "a whole GPU, as ForPod tells it", resources: limits("nvidia.com/gpu", 2),
			where: Placement{Spec: selector(LabelGKEAccelerator, "nvidia-l4")}, want: "NVIDIA L4", gib: 22.49,
			how: "nodeSelector cloud.google.com/gke-accelerator=nvidia-l4", cc: 89},
		{name: "no selector", resources: limits("nvidia.com/gpu", 1), where: Placement{Spec: selector()}, unknown: true},
		{name: "the instance type", resources: limits("nvidia.com/gpu", 1),
			where: Placement{Spec: selector(), InstanceType: "Standard_NC24ads_A100_v4"}, want: "NVIDIA A100 80GB", gib: 80,
			how: "resource.instanceType Standard_NC24ads_A100_v4"},
		{name: "a MIG slice on a named A100 80GB", resources: limits("nvidia.com/mig-1g.10gb", 1),
			where: Placement{Spec: selector(LabelGFDProduct, "NVIDIA-A100-SXM4-80GB")},
			want:  "MIG 1g.10gb slice of an NVIDIA A100 80GB", gib: 9.62, how: "usable memory as nvidia-smi mig -lgip lists it", cc: 80},
		{name: "a MIG slice of an instance type's GPU", resources: limits("nvidia.com/mig-3g.40gb", 1),
			where: Placement{Spec: selector(), InstanceType: "p5.48xlarge"}, want: "MIG 3g.40gb slice of an NVIDIA H100 80GB",
			gib: 39.5, how: "resource.instanceType p5.48xlarge; resource nvidia.com/mig-3g.40gb"},
		{name: "a MIG slice on no named GPU: the smallest of its name", resources: limits("nvidia.com/mig-1g.10gb", 1),
			where: Placement{Spec: selector()}, want: "MIG 1g.10gb slice", gib: 9.62,
			how: "the GPU is not named: the smallest 1g.10gb of NVIDIA A100 40GB, NVIDIA A100 80GB, NVIDIA H100 80GB"},
		{name: "a MIG slice of the single strategy", resources: limits("nvidia.com/gpu", 1),
			where: Placement{Spec: selector(LabelGFDProduct, "NVIDIA-H100-80GB-HBM3-MIG-3g.40gb")},
			want:  "MIG 3g.40gb slice of an NVIDIA H100 80GB", gib: 39.5, how: "node label nvidia.com/gpu.product=", cc: 90},
		{name: "GKE's partition", resources: limits("nvidia.com/gpu", 1),
			where: Placement{Spec: selector(LabelGKEAccelerator, "nvidia-tesla-a100", LabelGKEPartitionSize, "1g.5gb")},
			want:  "MIG 1g.5gb slice of an NVIDIA A100 40GB", gib: 4.75},
		{name: "an H200 slice by its fraction", resources: limits("nvidia.com/mig-1g.18gb", 1),
			where: Placement{Spec: selector(LabelGFDProduct, "NVIDIA-H200")}, want: "MIG 1g.18gb slice of an NVIDIA H200",
			gib: 17.55, how: "fraction of the GPU's memory"},
		{name: "a profile the table does not have", resources: limits("nvidia.com/mig-9g.1tb", 1),
			where: Placement{Spec: selector()}, unknown: true},
		{name: "the mixed strategy's memory label", resources: limits("nvidia.com/mig-2g.20gb", 1),
			where: Placement{Spec: selector(), Nodes: []Node{{Name: "n1", Labels: map[string]string{
				"nvidia.com/mig-2g.20gb.memory": "19968", LabelGFDProduct: "NVIDIA-A100-SXM4-80GB"},
				Allocatable: corev1.ResourceList{"nvidia.com/mig-2g.20gb": resource.MustParse("3")}}}},
			want: "MIG 2g.20gb slice of an NVIDIA A100 80GB", gib: 19.5, how: "from the cluster's nodes: n1; node label"},
		{name: "time-slicing keeps the memory", resources: limits("nvidia.com/gpu", 1),
			where: Placement{Spec: selector(LabelGFDProduct, "NVIDIA-L4-SHARED", LabelGFDSharingStrategy, "time-slicing",
				LabelGFDReplicas, "4")}, want: "NVIDIA L4", gib: 22.49, how: "time-sliced 4 ways"},
		{name: "MPS on the cluster's nodes", resources: limits("nvidia.com/gpu.shared", 1),
			where: Placement{Spec: selector(), Nodes: []Node{{Name: "n1", Labels: map[string]string{
				LabelGFDProduct: "NVIDIA-A100-SXM4-40GB-SHARED", LabelGFDSharingStrategy: "mps", LabelGFDReplicas: "4"},
				Allocatable: corev1.ResourceList{"nvidia.com/gpu.shared": resource.MustParse("4")}}}},
			want: "1/4 of an NVIDIA A100 40GB", gib: 10, how: "limits each pod to 1/4 of the memory"},
		{name: "AMD by product name", resources: limits("amd.com/gpu", 8),
			where: Placement{Spec: selector(LabelAMDProductName, "AMD_Instinct_MI300X_OAM")}, want: "AMD Instinct MI300X", gib: 192},
		{name: "AMD on AWS's G4ad", resources: limits("amd.com/gpu", 1),
			where: Placement{Spec: selector(), InstanceType: "g4ad.xlarge"}, want: "AMD Radeon Pro V520", gib: 8,
			how: "resource.instanceType g4ad.xlarge"},
		{name: "AMD MI250X: a GCD", resources: limits("amd.com/gpu", 1),
			where: Placement{Spec: selector(LabelAMDDeviceIDBeta, "7408")}, want: "one GCD of an AMD Instinct MI250X", gib: 64},
		{name: "AMD by VRAM", resources: limits("amd.com/gpu", 1),
			where: Placement{Spec: selector(LabelAMDVRAM, "256G")}, want: "an AMD GPU of 256G", gib: 256},
		{name: "AMD family alone sizes nothing", resources: limits("amd.com/gpu", 1),
			where: Placement{Spec: selector("beta.amd.com/gpu.family", "AI")}, unknown: true},
		{name: "Gaudi 3", resources: limits("habana.ai/gaudi", 8),
			where: Placement{Spec: selector(LabelGaudiType, "GAUDI3")}, want: "Intel Gaudi 3", gib: 128},
		{name: "Gaudi 2 by PCI id", resources: limits("habana.ai/gaudi", 1),
			where: Placement{Spec: selector(LabelGaudiID, "1020")}, want: "Intel Gaudi 2", gib: 96},
		{name: "TPU v5e with its topology", resources: limits("google.com/tpu", 4),
			where: Placement{Spec: selector(LabelGKETPUAccelerator, "tpu-v5-lite-podslice", LabelGKETPUTopology, "2x4")},
			want:  "Google TPU v5e chip", gib: 16, how: "topology 2x4 (8 chips in the slice)"},
		{name: "TPU v6e", resources: limits("google.com/tpu", 4),
			where: Placement{Spec: selector(LabelGKETPUAccelerator, "tpu-v6e-slice")}, want: "Google TPU v6e chip", gib: 32},
		{name: "an NVIDIA label does not size a TPU", resources: limits("google.com/tpu", 4),
			where: Placement{Spec: selector(LabelGKEAccelerator, "nvidia-l4")}, unknown: true},
		{name: "no accelerator", resources: limits("cpu", 4), where: Placement{Spec: selector(LabelGKEAccelerator, "nvidia-l4")}, unknown: true},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			device, ok := ForContainer(test.resources, "nvidia.com/gpu", test.where)
			if ok == test.unknown {
				t.Fatalf("ForContainer = %+v, %v", device, ok)
			}
			if !ok {
				return
			}
			gibibytes := float64(device.MemoryBytes) / gib
			if device.Name != test.want || gibibytes < test.gib-0.01 || gibibytes > test.gib+0.01 {
				t.Errorf("ForContainer = %s of %.2f GiB, want %s of %.2f GiB", device.Name, gibibytes, test.want, test.gib)
			}
			if !strings.Contains(device.How, test.how) {
				t.Errorf("How = %q, want it to say %q", device.How, test.how)
			}
			if test.cc != 0 && device.ComputeCapability != test.cc {
				t.Errorf("compute capability %d, want %d", device.ComputeCapability, test.cc)
			}
			if device.Count <= 0 || device.Resource == "" {
				t.Errorf("resource %q × %d", device.Resource, device.Count)
			}
		})
	}
}

func TestVendor(t *testing.T) {
	tests := []struct {
		resource    corev1.ResourceName
		nvidia, mig bool
	}{
		{"nvidia.com/gpu", true, false},
		{"nvidia.com/gpu.shared", true, false},
		{"nvidia.com/mig-1g.10gb", true, true},
		{"nvidia.com/mig-3g.40gb.shared", true, true},
		{"example.com/gpu", true, false}, // a configured name is taken for NVIDIA's
		{"amd.com/gpu", false, false},
		{"habana.ai/gaudi", false, false},
		{"google.com/tpu", false, false},
	}
	for _, test := range tests {
		if nvidia, mig := IsNVIDIA(test.resource), IsMIG(test.resource); nvidia != test.nvidia || mig != test.mig {
			t.Errorf("%s: IsNVIDIA %v, IsMIG %v; want %v, %v", test.resource, nvidia, mig, test.nvidia, test.mig)
		}
	}
}

// TestSlicesHolding finds the smallest profile that holds a need, on the
// GPU ForContainer says a slice is of.
func TestSlicesHolding(t *testing.T) {
	tests := []struct {
		name      string
		resources corev1.ResourceRequirements
		spec      *corev1.PodSpec
		need      float64 // GiB
		want      string  // "profile on GPU", comma-separated
		whole     string
	}{
		{name: "a larger profile of the named GPU", resources: limits("nvidia.com/mig-1g.10gb", 1),
			spec: selector(LabelGFDProduct, "NVIDIA-A100-SXM4-80GB"), need: 15,
			want: "1g.20gb on NVIDIA A100 80GB", whole: "NVIDIA A100 80GB"},
		{name: "the 40GB A100's 20 GB profile has three compute slices", resources: limits("nvidia.com/mig-1g.5gb", 1),
			spec: selector(LabelGKEAccelerator, "nvidia-tesla-a100", LabelGKEPartitionSize, "1g.5gb"), need: 15,
			want: "3g.20gb on NVIDIA A100 40GB", whole: "NVIDIA A100 40GB"},
		{name: "GKE's partition", resources: limits("nvidia.com/gpu", 1),
			spec: selector(LabelGKEAccelerator, "nvidia-h100-80gb", LabelGKEPartitionSize, "1g.10gb"), need: 30,
			want: "3g.40gb on NVIDIA H100 80GB", whole: "NVIDIA H100 80GB"},
		{name: "no GPU named: each that has the profile", resources: limits("nvidia.com/mig-1g.10gb", 1),
			spec: selector(), need: 15, whole: "NVIDIA A100 40GB",
			want: "3g.20gb on NVIDIA A100 40GB, 1g.20gb on NVIDIA H100 80GB, 1g.20gb on NVIDIA A100 80GB"},
		{name: "no profile holds it", resources: limits("nvidia.com/mig-1g.10gb", 1),
			spec: selector(LabelGFDProduct, "NVIDIA-A100-SXM4-80GB"), need: 100, whole: "NVIDIA A100 80GB"},
		{name: "a whole GPU is no slice", resources: limits("nvidia.com/gpu", 1),
			spec: selector(LabelGKEAccelerator, "nvidia-l4"), need: 15},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			device, ok := ForContainer(test.resources, "nvidia.com/gpu", Placement{Spec: test.spec})
			if !ok {
				t.Fatal("ForContainer: not known")
			}
			var got []string
			for _, slice := range SlicesHolding(device, int64(test.need*gib)) {
				got = append(got, slice.Profile+" on "+slice.Whole.Name)
				if float64(slice.MemoryBytes) < test.need*gib {
					t.Errorf("%s of %d bytes holds less than %g GiB", slice.Profile, slice.MemoryBytes, test.need)
				}
			}
			if strings.Join(got, ", ") != test.want {
				t.Errorf("SlicesHolding = %q, want %q", strings.Join(got, ", "), test.want)
			}
			whole, ok := WholeGPU(device)
			if whole.Name != test.whole || ok != (test.whole != "") {
				t.Errorf("WholeGPU = %q, %v; want %q", whole.Name, ok, test.whole)
			}
		})
	}
}

// TestMIGTable keeps the MIG table sane: every slice is smaller than its
// GPU and its profile's name is near its memory.
func TestMIGTable(t *testing.T) {
	for _, row := range migProfiles {
		if _, ok := profileOf(row.profile); !ok {
			t.Errorf("%s: profile %q is not a profile's name", row.gpu.Name, row.profile)
		}
		if row.memory <= 0 || row.memory > row.gpu.MemoryBytes {
			t.Errorf("%s %s: %d bytes of a GPU of %d", row.gpu.Name, row.profile, row.memory, row.gpu.MemoryBytes)
		}
		_, gigabytes, _ := strings.Cut(strings.TrimSuffix(row.profile, "gb"), ".")
		named, err := strconv.ParseFloat(gigabytes, 64)
		if err != nil {
			t.Fatal(err)
		}
		if gibibytes := float64(row.memory) / gib; gibibytes < named*0.85 || gibibytes > named*1.05 {
			t.Errorf("%s %s: %.2f GiB is not near the name's %g GB", row.gpu.Name, row.profile, gibibytes, named)
		}
	}
}

// FuzzForContainer reads hostile label values and resource names: no
// panic, and a known device has memory.
func FuzzForContainer(f *testing.F) {
	f.Add("nvidia.com/mig-1g.10gb", LabelGFDProduct, "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb-SHARED")
	f.Add("google.com/tpu", LabelGKETPUTopology, "2x2x4")
	f.Add("amd.com/gpu", LabelAMDVRAM, "99999999999999G")
	f.Add("nvidia.com/gpu", LabelGFDReplicas, "-3")
	f.Fuzz(func(t *testing.T, resourceName, key, value string) {
		if len(resourceName) > 256 {
			return
		}
		spec := selector(key, value, LabelGFDSharingStrategy, "mps")
		device, ok := ForContainer(limits(resourceName, 1), "nvidia.com/gpu", Placement{Spec: spec})
		if ok && device.MemoryBytes <= 0 {
			t.Errorf("%+v has no memory", device)
		}
	})
}
