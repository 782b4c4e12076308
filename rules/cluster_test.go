package rules

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/manifest"
)

// TestClusterDriverAndGPU checks what MDL306 and MDL408 take from the
// nodes: the oldest driver and the smallest GPU where the pod may land.
func TestClusterDriverAndGPU(t *testing.T) {
	facts, err := cluster.Read("testdata/MDL216/nodes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pod := corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}}}
	pass := &lint.Pass{Target: &lint.Target{Workload: &manifest.Workload{Spec: &pod}}, Cluster: facts}

	driver, text, ok := clusterDriver(pass)
	if !ok || driver.String() != "535.104.5" && driver.String() != "535.104.05" ||
		text != "535.104.05 (from the cluster's nodes: gke-ml-prod-l4-pool-8c2b4e1d-9tqz)" {
		t.Errorf("clusterDriver = %v, %q, %v", driver, text, ok)
	}
	device, how, ok := clusterGPU(pass, "nvidia.com/gpu")
	if !ok || device.Name != "NVIDIA L4" || !strings.HasPrefix(how, "from the cluster's nodes: gke-ml-prod-l4-pool-8c2b4e1d-4m2p, ") {
		t.Errorf("clusterGPU = %v, %q, %v", device, how, ok)
	}

	// Without the toleration only the CPU node is left: no driver, no GPU.
	pass.Target.Workload.Spec.Tolerations = nil
	if _, _, ok := clusterDriver(pass); ok {
		t.Error("clusterDriver found a driver on the CPU node")
	}
	if _, _, ok := clusterGPU(pass, "nvidia.com/gpu"); ok {
		t.Error("clusterGPU found a GPU on the CPU node")
	}
}
