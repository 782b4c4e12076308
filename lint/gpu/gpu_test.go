package gpu

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestForLabel(t *testing.T) {
	tests := []struct {
		key, value string
		want       GPU
		ok         bool
	}{
		{LabelGKEAccelerator, "nvidia-l4", l4, true},
		{LabelGKEAccelerator, "nvidia-tesla-t4", t4, true},
		{LabelGKEAccelerator, "nvidia-tesla-a100", a100x40, true},
		{LabelGKEAccelerator, "nvidia-a100-80gb", a100x80, true},
		{LabelGKEAccelerator, "nvidia-h100-mega-80gb", h100, true},
		{LabelGKEAccelerator, "nvidia-tesla-v100", v100, true},
		{LabelGKEAccelerator, "nvidia-h200-141gb", h200, true},
		{LabelGKEAccelerator, "nvidia-l5", GPU{}, false},
		{LabelGFDProduct, "NVIDIA-A100-SXM4-40GB", a100x40, true},
		{LabelGFDProduct, "A100-SXM4-80GB", a100x80, true}, // older drivers leave out "NVIDIA-"
		{LabelGFDProduct, "NVIDIA-H100-80GB-HBM3", h100, true},
		{LabelGFDProduct, "NVIDIA-H100-PCIe", h100, true},
		{LabelGFDProduct, "Tesla-T4", t4, true},
		{LabelGFDProduct, "Tesla-V100-SXM2-32GB", v100x32, true},
		{LabelGFDProduct, "NVIDIA-L4-SHARED", l4, true},                     // time-slicing shares the whole GPU
		{LabelGFDProduct, "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", GPU{}, false}, // a MIG slice is not the GPU
		{LabelGFDMemory, "40960", GPU{Name: "a GPU of 40960 MiB", MemoryBytes: 40960 * mib}, true},
		{LabelGFDMemory, "lots", GPU{}, false},
		{LabelKarpenterGPUName, "l4", l4, true},
		{LabelKarpenterGPUName, "a10g", a10g, true},
		{LabelKarpenterGPUName, "h100", h100, true},
		{LabelKarpenterGPUMemory, "22888", GPU{Name: "a GPU of 22888 MiB", MemoryBytes: 22888 * mib}, true},
		{LabelInstanceType, "g5.2xlarge", a10g, true},
		{LabelInstanceType, "g6.xlarge", l4, true},
		{LabelInstanceType, "g6e.12xlarge", l40s, true},
		{LabelInstanceType, "g4dn.xlarge", t4, true},
		{LabelInstanceType, "p4d.24xlarge", a100x40, true},
		{LabelInstanceType, "p4de.24xlarge", a100x80, true},
		{LabelInstanceType, "p5.48xlarge", h100, true},
		{LabelInstanceType, "p5e.48xlarge", h200, true},
		{LabelInstanceType, "a2-highgpu-1g", a100x40, true},
		{LabelInstanceType, "a2-ultragpu-1g", a100x80, true},
		{LabelInstanceType, "a3-highgpu-8g", h100, true},
		{LabelInstanceType, "g2-standard-8", l4, true},
		{LabelInstanceType, "Standard_NC24ads_A100_v4", a100x80, true},
		{LabelInstanceType, "Standard_NC4as_T4_v3", t4, true},
		{LabelInstanceType, "Standard_ND96isr_H100_v5", h100, true},
		{LabelInstanceType, "Standard_NC40ads_H100_v5", h100nvl, true},
		{LabelInstanceType, "Standard_NC80adis_H100_v5", h100nvl, true},
		{LabelInstanceType, "Standard_NCC40ads_H100_v5", h100nvl, true},
		{LabelInstanceType, "Standard_NC24rs_v3", v100, true},
		{LabelInstanceType, "Standard_ND40rs_v2", v100x32, true},
		{LabelInstanceType, "g4ad.xlarge", GPU{}, false}, // an AMD GPU, not an NVIDIA one
		{LabelInstanceType, "Standard_NV36ads_A10_v5", a10, true},
		{LabelInstanceType, "standard_nv72ads_a10_v5", a10, true},
		{LabelInstanceType, "Standard_NV12ads_A10_v5", GPU{"1/3 of an NVIDIA A10", 8192 * mib, 86}, true},
		{LabelInstanceType, "m5.xlarge", GPU{}, false},
		{LabelInstanceType, "n2-standard-8", GPU{}, false},
		{"kubernetes.io/arch", "amd64", GPU{}, false},
	}
	for _, test := range tests {
		got, ok := ForLabel(test.key, test.value)
		if got != test.want || ok != test.ok {
			t.Errorf("ForLabel(%s, %s) = %+v, %v; want %+v, %v", test.key, test.value, got, ok, test.want, test.ok)
		}
	}
}

// TestTable keeps the table sane: every GPU has memory, every label value
// maps to one, and no two GPUs share a name with different memory.
func TestTable(t *testing.T) {
	byName := map[string]int64{}
	check := func(where string, gpu GPU) {
		if gpu.Name == "" || gpu.MemoryBytes < 4<<30 || gpu.MemoryBytes > 256<<30 {
			t.Errorf("%s: %+v is not a GPU of 4 to 256 GiB", where, gpu)
		}
		if memory, seen := byName[gpu.Name]; seen && memory != gpu.MemoryBytes {
			t.Errorf("%s: %s has %d bytes here and %d elsewhere", where, gpu.Name, gpu.MemoryBytes, memory)
		}
		byName[gpu.Name] = gpu.MemoryBytes
	}
	for value, gpu := range gkeAccelerators {
		check(LabelGKEAccelerator+"="+value, gpu)
	}
	for value, gpu := range gfdProducts {
		check(LabelGFDProduct+"="+value, gpu)
		if gfdProduct(value) != value {
			t.Errorf("%s: not written as gfdProduct normalises it (%s)", value, gfdProduct(value))
		}
	}
	for value, gpu := range karpenterGPUs {
		check(LabelKarpenterGPUName+"="+value, gpu)
	}
	for _, instance := range instanceTypes {
		check(instance.pattern.String(), instance.gpu)
	}
	for value, gpu := range tpuAccelerators {
		check(LabelGKETPUAccelerator+"="+value, gpu)
	}
	for _, product := range amdProducts {
		check(LabelAMDProductName+"="+product.name, product.gpu)
	}
	for _, instance := range otherInstanceTypes {
		check(instance.pattern.String(), instance.gpu)
	}
	for _, row := range migProfiles {
		check("MIG base of "+row.profile, row.gpu)
	}
}

func TestForPod(t *testing.T) {
	in := func(key string, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}
	}
	required := func(terms ...[]corev1.NodeSelectorRequirement) *corev1.Affinity {
		selector := &corev1.NodeSelector{}
		for _, expressions := range terms {
			selector.NodeSelectorTerms = append(selector.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchExpressions: expressions})
		}
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: selector}}
	}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want GPU
		how  string
	}{
		{name: "no selector"},
		{name: "GKE nodeSelector", spec: corev1.PodSpec{NodeSelector: map[string]string{LabelGKEAccelerator: "nvidia-l4"}},
			want: l4, how: "nodeSelector cloud.google.com/gke-accelerator=nvidia-l4"},
		{name: "the accelerator label before the instance type",
			spec: corev1.PodSpec{NodeSelector: map[string]string{LabelInstanceType: "a2-ultragpu-1g", LabelGKEAccelerator: "nvidia-a100-80gb"}},
			want: a100x80, how: "nodeSelector cloud.google.com/gke-accelerator=nvidia-a100-80gb"},
		{name: "an unknown value is passed over",
			spec: corev1.PodSpec{NodeSelector: map[string]string{LabelGKEAccelerator: "nvidia-next", LabelInstanceType: "g6.xlarge"}},
			want: l4, how: "nodeSelector node.kubernetes.io/instance-type=g6.xlarge"},
		{name: "other labels only", spec: corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"}}},
		{name: "required affinity", spec: corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{
			in("topology.kubernetes.io/zone", "us-east-1a"), in(LabelGFDProduct, "NVIDIA-H100-80GB-HBM3")})},
			want: h100, how: "node affinity nvidia.com/gpu.product in (NVIDIA-H100-80GB-HBM3)"},
		{name: "several values: the smallest", spec: corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{
			in(LabelKarpenterGPUName, "h100", "l4", "a100")})},
			want: l4, how: "node affinity karpenter.k8s.aws/instance-gpu-name in (h100, l4, a100)"},
		{name: "several terms: the smallest", spec: corev1.PodSpec{Affinity: required(
			[]corev1.NodeSelectorRequirement{in(LabelGKEAccelerator, "nvidia-h100-80gb")},
			[]corev1.NodeSelectorRequirement{in(LabelGKEAccelerator, "nvidia-tesla-a100")})},
			want: a100x40, how: "node affinity cloud.google.com/gke-accelerator in (nvidia-tesla-a100)"},
		{name: "a term without a GPU allows any node", spec: corev1.PodSpec{Affinity: required(
			[]corev1.NodeSelectorRequirement{in(LabelGKEAccelerator, "nvidia-h100-80gb")},
			[]corev1.NodeSelectorRequirement{in("topology.kubernetes.io/zone", "us-east-1a")})}},
		{name: "an unknown value among several", spec: corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{
			in(LabelGKEAccelerator, "nvidia-l4", "nvidia-next")})}},
		{name: "NotIn pins nothing", spec: corev1.PodSpec{Affinity: required([]corev1.NodeSelectorRequirement{
			{Key: LabelGKEAccelerator, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"nvidia-tesla-t4"}}})}},
		{name: "preferred affinity only", spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 1,
				Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{in(LabelGKEAccelerator, "nvidia-l4")}}}}}}}},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			gpu, how, ok := ForPod(&test.spec)
			if gpu != test.want || how != test.how || ok != (test.how != "") {
				t.Errorf("ForPod = %+v, %q, %v; want %+v, %q", gpu, how, ok, test.want, test.how)
			}
		})
	}
}

func TestInstance(t *testing.T) {
	for _, c := range []struct {
		name  string
		gpu   GPU
		count int
		ok    bool
	}{
		{"Standard_NV36ads_A10_v5", a10, 1, true},
		{"Standard_NC96ads_A100_v4", a100x80, 4, true},
		{"g5.12xlarge", a10g, 4, true},
		{"a2-highgpu-4g", a100x40, 4, true},
		{"a3-megagpu-8g", h100, 8, true},
		{"g2-standard-48", l4, 4, true},
		{"Standard_NC80adis_H100_v5", h100nvl, 2, true},
		{"Standard_ND40rs_v2", v100x32, 8, true},
		{"g4ad.8xlarge", v520, 2, true},
		{"g5.3xlarge", GPU{}, 0, false}, // no such size: the count is not known
		{"m5.xlarge", GPU{}, 0, false},
	} {
		gpu, count, ok := Instance(c.name)
		if gpu != c.gpu || count != c.count || ok != c.ok {
			t.Errorf("Instance(%q) = %v, %d, %v; want %v, %d, %v", c.name, gpu, count, ok, c.gpu, c.count, c.ok)
		}
	}
}

// TestInstanceCounts keeps the count table and the instance type patterns
// together: a type whose count is known resolves to its GPU.
func TestInstanceCounts(t *testing.T) {
	for name, want := range instanceGPUCounts {
		gpu, count, ok := Instance(name)
		if !ok || count != want {
			t.Errorf("Instance(%q) = %v, %d, %v; the count table says %d", name, gpu, count, ok, want)
		}
	}
}
