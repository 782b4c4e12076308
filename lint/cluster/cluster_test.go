package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const (
	cpuNode = "gke-ml-prod-default-pool-5d1e2f3a-x7kq"
	l4Node  = "gke-ml-prod-l4-pool-8c2b4e1d-4m2p"
	l4Older = "gke-ml-prod-l4-pool-8c2b4e1d-9tqz"
)

func TestReadGKENodes(t *testing.T) {
	facts, err := Read("testdata/nodes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(facts.Nodes) != 3 || facts.Path != "testdata/nodes.yaml" {
		t.Fatalf("read %d nodes from %q, want 3 from testdata/nodes.yaml", len(facts.Nodes), facts.Path)
	}
	cpu, l4, older := facts.Nodes[0], facts.Nodes[1], facts.Nodes[2]
	if cpu.Name != cpuNode || l4.Name != l4Node || older.Name != l4Older {
		t.Fatalf("names %s, %s, %s", cpu.Name, l4.Name, older.Name)
	}
	if cpu.NVIDIADriver != "" || l4.NVIDIADriver != "535.183.03" || older.NVIDIADriver != "535.104.05" {
		t.Errorf("drivers %q, %q, %q", cpu.NVIDIADriver, l4.NVIDIADriver, older.NVIDIADriver)
	}
	if l4.Architecture != "amd64" || l4.Labels["nvidia.com/gpu.product"] != "NVIDIA-L4" {
		t.Errorf("architecture %q, product %q", l4.Architecture, l4.Labels["nvidia.com/gpu.product"])
	}
	gpus := l4.Allocatable["nvidia.com/gpu"]
	memory := cpu.Allocatable[corev1.ResourceMemory]
	if gpus.Value() != 1 || l4.Allocatable.Cpu().MilliValue() != 7910 || memory.String() != "13364548Ki" {
		t.Errorf("allocatable gpu %s, cpu %s, memory %s", gpus.String(), l4.Allocatable.Cpu(), memory.String())
	}
	if len(l4.Taints) != 1 || l4.Taints[0].Key != "nvidia.com/gpu" || len(cpu.Taints) != 0 {
		t.Errorf("taints %v, %v", l4.Taints, cpu.Taints)
	}
}

func TestReadShapes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	single := write("node.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels:\n    nvidia.com/cuda.driver-version.full: 570.86.15\n"+
		"    nvidia.com/cuda.driver.major: \"570\"\n    nvidia.com/cuda.driver.minor: \"86\"\nstatus:\n  nodeInfo: {architecture: arm64}\n")
	facts, err := Read(single)
	if err != nil {
		t.Fatal(err)
	}
	if node := facts.Nodes[0]; node.Name != "a" || node.NVIDIADriver != "570.86.15" || node.Architecture != "arm64" {
		t.Errorf("single node: %+v", node)
	}
	nodeList := write("nodelist.yaml", "kind: NodeList\napiVersion: v1\nitems:\n- metadata: {name: b}\n")
	if facts, err := Read(nodeList); err != nil || facts.Nodes[0].Name != "b" {
		t.Errorf("NodeList: %v, %v", facts, err)
	}

	for name, text := range map[string]string{
		"pod.yaml":    "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
		"empty.yaml":  "apiVersion: v1\nkind: List\nitems: []\n",
		"mixed.yaml":  "apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n",
		"broken.yaml": "kind: List\nitems: [\n",
	} {
		path := write(name, text)
		_, err := Read(path)
		if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: want a one-line error naming the file, got %v", name, err)
		}
	}
	if _, err := Read(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
}

func TestMatches(t *testing.T) {
	facts, err := Read("testdata/nodes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gpuToleration := []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	affinity := func(requirements ...corev1.NodeSelectorRequirement) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: requirements}}}}}
	}
	for _, test := range []struct {
		name string
		pod  corev1.PodSpec
		want []string
	}{
		{"no constraints: the tainted GPU nodes are out", corev1.PodSpec{}, []string{cpuNode}},
		{"tolerating the taint", corev1.PodSpec{Tolerations: gpuToleration}, []string{cpuNode, l4Node, l4Older}},
		{"equal toleration of another value", corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Value: "absent"}}}, []string{cpuNode}},
		{"tolerate everything", corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}, []string{cpuNode, l4Node, l4Older}},
		{"nodeSelector of the L4 pool", corev1.PodSpec{NodeSelector: map[string]string{"cloud.google.com/gke-accelerator": "nvidia-l4"}, Tolerations: gpuToleration},
			[]string{l4Node, l4Older}},
		{"nodeSelector of an absent GPU", corev1.PodSpec{NodeSelector: map[string]string{"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"}, Tolerations: gpuToleration}, nil},
		{"affinity In", corev1.PodSpec{Tolerations: gpuToleration, Affinity: affinity(corev1.NodeSelectorRequirement{
			Key: "nvidia.com/gpu.product", Operator: corev1.NodeSelectorOpIn, Values: []string{"NVIDIA-L4", "NVIDIA-A100-SXM4-40GB"}})}, []string{l4Node, l4Older}},
		{"affinity NotIn", corev1.PodSpec{Tolerations: gpuToleration, Affinity: affinity(corev1.NodeSelectorRequirement{
			Key: "cloud.google.com/gke-nodepool", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"l4-pool"}})}, []string{cpuNode}},
		{"affinity Exists", corev1.PodSpec{Tolerations: gpuToleration, Affinity: affinity(corev1.NodeSelectorRequirement{
			Key: "nvidia.com/gpu.product", Operator: corev1.NodeSelectorOpExists})}, []string{l4Node, l4Older}},
		{"affinity DoesNotExist", corev1.PodSpec{Tolerations: gpuToleration, Affinity: affinity(corev1.NodeSelectorRequirement{
			Key: "nvidia.com/gpu.product", Operator: corev1.NodeSelectorOpDoesNotExist})}, []string{cpuNode}},
		{"affinity Gt", corev1.PodSpec{Tolerations: gpuToleration, Affinity: affinity(corev1.NodeSelectorRequirement{
			Key: "nvidia.com/gpu.memory", Operator: corev1.NodeSelectorOpGt, Values: []string{"40000"}})}, nil},
	} {
		t.Run(test.name, func(t *testing.T) {
			var got []string
			for _, node := range facts.Matching(&test.pod) {
				got = append(got, node.Name)
			}
			if strings.Join(got, ",") != strings.Join(test.want, ",") {
				t.Errorf("matching %v, want %v", got, test.want)
			}
		})
	}
}
