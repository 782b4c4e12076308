package main

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestHostileClusterScale lints with --cluster files as large as the bound
// on them lets them be, against as many pods: read once, matched within the
// memory and CPU limits.
func TestHostileClusterScale(t *testing.T) {
	runScaleCases(t, []scaleCase{
		{"2,000 nodes, 32 MB", func(dir string) []string {
			return []string{"--cluster", writeIn(dir, "nodes.yaml", clusterOfNodes(2000)), writeIn(dir, "deploy.yaml", podsSelecting(1, 0))}
		}, exitFindings, "MDL217", ""},
		{"1,500 nodes as JSON", func(dir string) []string {
			nodes, err := yaml.YAMLToJSON([]byte(clusterOfNodes(1500)))
			if err != nil {
				t.Fatal(err)
			}
			return []string{"--cluster", writeIn(dir, "nodes.json", string(nodes)), writeIn(dir, "deploy.yaml", podsSelecting(1, 0))}
		}, exitFindings, "MDL217", ""},
		// Reading a nodes file at its bound takes a third of the limit on a
		// slow runner: the cases of many pods read half as many nodes, so
		// that what they measure is the matching.
		{"1,000 nodes × 2,000 pods", func(dir string) []string {
			return []string{"--cluster", writeIn(dir, "nodes.yaml", clusterOfNodes(1000)), writeIn(dir, "deploy.yaml", podsSelecting(2000, 0))}
		}, exitFindings, "MDL217", ""},
		{"1,000 nodes × 1,000 pods of 100 tolerations", func(dir string) []string {
			return []string{"--cluster", writeIn(dir, "nodes.yaml", clusterOfNodes(1000)), writeIn(dir, "deploy.yaml", podsSelecting(1000, 100))}
		}, exitFindings, "MDL216", ""},
		{"1,000 nodes of 100 labels × 2,000 pods selecting 99", func(dir string) []string {
			return []string{"--cluster", writeIn(dir, "nodes.yaml", labeledNodes(1000, 100)), writeIn(dir, "deploy.yaml", podsSelectingLabels(2000, 100, 99))}
		}, exitFindings, "MDL216", ""},
		{"100 nodes of 4,900 labels", func(dir string) []string {
			return []string{"--cluster", writeIn(dir, "nodes.yaml", labeledNodes(100, 4900)), writeIn(dir, "deploy.yaml", podsSelecting(2000, 0))}
		}, exitFindings, "MDL217", ""},
		{"500,000 one-line nodes", func(dir string) []string {
			return []string{"--cluster", writeIn(dir, "nodes.yaml", tinyNodes(500_000)), writeIn(dir, "deploy.yaml", podsSelecting(1, 0))}
		}, exitError, "more than 20000 nodes", "nodes.yaml"},
		{"a node of 20,000 labels", func(dir string) []string {
			return []string{"--cluster", writeIn(dir, "nodes.yaml", labeledNodes(1, 20_000)), writeIn(dir, "deploy.yaml", podsSelecting(1, 0))}
		}, exitError, "items[0] (line 3): more than 20000 YAML values", "nodes.yaml"},
	})
}

// clusterOfNodes is `kubectl get nodes -o yaml` of a cluster of the given
// size, each node as kubectl prints a GKE node (labels, annotations,
// conditions, the 50 images the kubelet reports): ~14.5 KB a node. Half
// are CPU nodes, half GPU nodes tainted nvidia.com/gpu.
func clusterOfNodes(nodes int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n")
	for i := range nodes {
		pool, machine, gpu := "cpu-pool", "e2-standard-8", i%2 == 1
		if gpu {
			pool, machine = "l4-pool", "g2-standard-8"
		}
		name := fmt.Sprintf("gke-ml-prod-%s-8c2b4e1d-%05d", pool, i)
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      container.googleapis.com/instance_id: "%[3]d1234567890"
      csi.volume.kubernetes.io/nodeid: '{"pd.csi.storage.gke.io":"projects/ml-prod/zones/us-central1-a/instances/%[1]s"}'
      node.alpha.kubernetes.io/ttl: "0"
      node.gke.io/last-applied-node-labels: cloud.google.com/gke-nodepool=%[2]s,cloud.google.com/machine-family=g2,kubernetes.io/os=linux
      volumes.kubernetes.io/controller-managed-attach-detach: "true"
    creationTimestamp: "2024-11-30T10:00:00Z"
    labels:
      beta.kubernetes.io/arch: amd64
      beta.kubernetes.io/instance-type: %[4]s
      beta.kubernetes.io/os: linux
      cloud.google.com/gke-boot-disk: pd-balanced
      cloud.google.com/gke-container-runtime: containerd
      cloud.google.com/gke-cpu-scaling-level: "8"
      cloud.google.com/gke-logging-variant: DEFAULT
      cloud.google.com/gke-max-pods-per-node: "110"
      cloud.google.com/gke-nodepool: %[2]s
      cloud.google.com/gke-os-distribution: cos
      cloud.google.com/gke-provisioning: standard
      cloud.google.com/gke-stack-type: IPV4
      cloud.google.com/machine-family: g2
      cloud.google.com/private-node: "false"
      failure-domain.beta.kubernetes.io/region: us-central1
      failure-domain.beta.kubernetes.io/zone: us-central1-a
      kubernetes.io/arch: amd64
      kubernetes.io/hostname: %[1]s
      kubernetes.io/os: linux
      node.kubernetes.io/instance-type: %[4]s
      topology.gke.io/zone: us-central1-a
      topology.kubernetes.io/region: us-central1
      topology.kubernetes.io/zone: us-central1-a
`, name, pool, i, machine)
		if gpu {
			b.WriteString("      cloud.google.com/gke-accelerator: nvidia-l4\n      nvidia.com/cuda.driver.major: \"535\"\n" +
				"      nvidia.com/cuda.driver.minor: \"183\"\n      nvidia.com/cuda.driver.rev: \"03\"\n      nvidia.com/gpu.product: NVIDIA-L4\n")
		}
		fmt.Fprintf(&b, `    name: %[1]s
    resourceVersion: "%[2]d"
    uid: 0b1e7f0c-%04[3]d-4c1d-9a6e-5f0d2a3b%04[3]d
  spec:
    podCIDR: 10.48.%[3]d.0/24
    podCIDRs:
    - 10.48.%[3]d.0/24
    providerID: gce://ml-prod/us-central1-a/%[1]s
`, name, 100000+i, i%10000)
		if gpu {
			b.WriteString("    taints:\n    - effect: NoSchedule\n      key: nvidia.com/gpu\n      value: present\n")
		}
		b.WriteString(`  status:
    addresses:
    - address: 10.128.0.12
      type: InternalIP
    - address: 34.41.10.20
      type: ExternalIP
    - address: ` + name + `
      type: Hostname
    allocatable:
      cpu: 7910m
      ephemeral-storage: "47060071478"
      hugepages-1Gi: "0"
      hugepages-2Mi: "0"
      memory: 27487708Ki
      nvidia.com/gpu: "1"
      pods: "110"
    capacity:
      cpu: "8"
      ephemeral-storage: 98831908Ki
      hugepages-1Gi: "0"
      hugepages-2Mi: "0"
      memory: 32882108Ki
      nvidia.com/gpu: "1"
      pods: "110"
    conditions:
`)
		for _, condition := range []string{"FrequentUnregisterNetDevice", "KernelDeadlock", "MemoryPressure", "DiskPressure", "PIDPressure", "Ready"} {
			fmt.Fprintf(&b, `    - lastHeartbeatTime: "2024-12-01T10:00:00Z"
      lastTransitionTime: "2024-11-30T10:00:00Z"
      message: node is functioning properly, no %s
      reason: No%s
      status: "False"
      type: %s
`, condition, condition, condition)
		}
		b.WriteString("    daemonEndpoints:\n      kubeletEndpoint:\n        Port: 10250\n    images:\n")
		for image := range 50 {
			fmt.Fprintf(&b, `    - names:
      - us-docker.pkg.dev/ml-prod/serving/model-server@sha256:%064x
      - us-docker.pkg.dev/ml-prod/serving/model-server:v1.%d.%d
      sizeBytes: %d
`, i*50+image, image, i, 1_000_000_000+image)
		}
		fmt.Fprintf(&b, `    nodeInfo:
      architecture: amd64
      bootID: 1f2e3d4c-%04[1]d-4b5a-8c7d-6e5f4a3b2c1d
      containerRuntimeVersion: containerd://1.7.24
      kernelVersion: 6.1.112+
      kubeProxyVersion: v1.31.4-gke.1183000
      kubeletVersion: v1.31.4-gke.1183000
      machineID: 4c3b2a1f0e9d8c7b6a5f4e3d2c1b%04[1]d
      operatingSystem: linux
      osImage: Container-Optimized OS from Google
      systemUUID: 4c3b2a1f-0e9d-8c7b-6a5f-4e3d2c1b%04[1]d
`, i%10000)
	}
	return b.String()
}

// tinyNodes is a List of nodes that say nothing but their names.
func tinyNodes(nodes int) string {
	var b strings.Builder
	b.WriteString("kind: List\nitems:\n")
	for i := range nodes {
		fmt.Fprintf(&b, "- {kind: Node, metadata: {name: n%d}}\n", i)
	}
	return b.String()
}

// podsSelecting is a stream of Deployments, each selecting a node pool of
// its own that no node is in; with tolerations, each tolerates that many
// taints and selects the GPU pool, whose nodes are too small for it.
func podsSelecting(deployments, tolerations int) string {
	var b strings.Builder
	for i := range deployments {
		selector := fmt.Sprintf("{cloud.google.com/gke-nodepool: pool-%d}", i)
		var tolerate strings.Builder
		if tolerations > 0 {
			selector = "{cloud.google.com/gke-nodepool: l4-pool}"
			tolerate.WriteString("      tolerations:\n")
			for j := range tolerations {
				fmt.Fprintf(&tolerate, "      - {key: taint-%d, operator: Exists}\n", j)
			}
			tolerate.WriteString("      - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n")
		}
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: model-%[1]d}
spec:
  selector: {matchLabels: {app: model-%[1]d}}
  template:
    metadata: {labels: {app: model-%[1]d}}
    spec:
      nodeSelector: %[2]s
%[3]s      containers:
      - name: server
        image: vllm/vllm-openai:v0.6.3
        resources: {limits: {cpu: "64", memory: 16Gi, nvidia.com/gpu: 1}}
`, i, selector, tolerate.String())
	}
	return b.String()
}

// labeledNodes is a List of nodes that each carry labels labels, the same
// on every node.
func labeledNodes(nodes, labels int) string {
	var b strings.Builder
	b.WriteString("kind: List\nitems:\n")
	for i := range nodes {
		fmt.Fprintf(&b, "- kind: Node\n  metadata:\n    name: n%d\n    labels:\n", i)
		for label := range labels {
			fmt.Fprintf(&b, "      label-%05d.example.com/key: v\n", label)
		}
	}
	return b.String()
}

// podsSelectingLabels is a stream of Deployments, each selecting nodes by
// a different choice of selected of the labels labeledNodes writes.
func podsSelectingLabels(deployments, labels, selected int) string {
	var b strings.Builder
	for i := range deployments {
		fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: model-%[1]d}\nspec:\n"+
			"  selector: {matchLabels: {app: model-%[1]d}}\n  template:\n    metadata: {labels: {app: model-%[1]d}}\n    spec:\n      nodeSelector:\n", i)
		for label := range selected {
			fmt.Fprintf(&b, "        label-%05d.example.com/key: v\n", (i+label)%labels)
		}
		b.WriteString("      containers:\n      - {name: server, image: vllm/vllm-openai:v0.6.3, resources: {limits: {cpu: \"64\", memory: 16Gi}}}\n")
	}
	return b.String()
}
