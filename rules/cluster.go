package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/gpu"
	"github.com/modellint/modellint/lint/image/cuda"
	"github.com/modellint/modellint/lint/manifest"
)

// The rules that read the target cluster's nodes (--cluster), and the
// helpers MDL306 and MDL408 take the nodes' driver and GPU from.

const skipNoCluster = "no cluster nodes given: pass --cluster FILE (kubectl get nodes -o yaml) or set cluster.nodes"

const clusterReferences = "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/"

var requestUnschedulable = &lint.Rule{
	ID: "MDL216", Name: "request-unschedulable", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "The pod requests more CPU, memory or GPUs than any node it may land on can hold, even empty.",
		Why: "The scheduler places a pod only on a node whose allocatable resources (capacity less what the kubelet " +
			"and system reserve) hold the pod's requests: the sum over its containers, or its largest init container " +
			"when that is more. When no node that the pod's nodeSelector, required node affinity and tolerations allow " +
			"is large enough, the pod stays Pending with \"0/3 nodes are available: 3 Insufficient nvidia.com/gpu\", " +
			"however many pods are deleted, until a larger node joins. Checked against the nodes of --cluster (or " +
			"cluster.nodes): cpu, memory and the GPU resource; skipped without them.",
		Bad: "# --cluster nodes.yaml: e2-standard-4 CPU nodes (3920m CPU allocatable) and tainted L4 nodes\n" +
			"resources:\n  requests: {cpu: \"8\", memory: 6Gi}\n  limits: {memory: 6Gi}",
		Good: "resources:\n  requests: {cpu: \"3\", memory: 6Gi}\n  limits: {memory: 6Gi}",
		Fix: "Request no more than the largest matching node allocates (kubectl describe node, Allocatable), or " +
			"schedule the pod on a pool of larger nodes.",
		References: []string{
			"https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#how-pods-with-resource-requests-are-scheduled",
			"https://kubernetes.io/docs/tasks/administer-cluster/reserve-compute-resources/#node-allocatable",
			clusterReferences,
		},
	},
	Check: checkRequestUnschedulable,
}

var nodeSelectorUnmatched = &lint.Rule{
	ID: "MDL217", Name: "node-selector-unmatched", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "No node of the cluster matches the pod's nodeSelector and required node affinity, or tolerates its taints.",
		Why: "A nodeSelector or required node affinity term naming a label no node carries (a GPU type the cluster has " +
			"not got, a node pool that was renamed), or a NoSchedule/NoExecute taint on every node that is left which " +
			"the pod does not tolerate, leaves the scheduler nowhere to put the pod: it stays Pending with \"0/3 nodes " +
			"are available: 1 node(s) didn't match Pod's node affinity/selector, 2 node(s) had untolerated taint " +
			"{nvidia.com/gpu: present}\". Checked against the nodes of --cluster (or cluster.nodes); skipped without them.",
		Bad:  "# --cluster nodes.yaml: a CPU pool and an L4 pool\nnodeSelector:\n  cloud.google.com/gke-accelerator: nvidia-tesla-a100",
		Good: "nodeSelector:\n  cloud.google.com/gke-accelerator: nvidia-l4\ntolerations:\n  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}",
		Fix: "Select a label the cluster's nodes carry (kubectl get nodes --show-labels), tolerate the taints of the " +
			"nodes the pod is meant for, or add the node pool it selects.",
		References: []string{
			clusterReferences,
			"https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/",
		},
	},
	Check: checkNodeSelectorUnmatched,
}

func checkNodeSelectorUnmatched(pass *lint.Pass) {
	if pass.Cluster == nil {
		pass.Skip(skipNoCluster)
		return
	}
	w := pass.Workload()
	placements := pass.Cluster.Placements(w.Spec)
	selected := 0
	for i := range placements {
		if placements[i].Fits() {
			return
		}
		if placements[i].Selected {
			selected++
		}
	}
	summary, _ := unavailable(placements, nil)
	if selected == 0 {
		pass.Reportf(selectorField(w), "no node of the cluster (%s) matches the pod's %s: the pod stays Pending with %q; "+
			"select labels the nodes carry (%s)", pass.Cluster.Path, describeSelector(w.Spec), summary, nodeNames(pass.Cluster.Nodes))
		return
	}
	at := w.SpecPath + ".tolerations"
	if len(w.Spec.Tolerations) == 0 && len(w.Spec.NodeSelector) > 0 {
		at = selectorField(w)
	}
	var taints []string
	for _, p := range placements {
		if taint, untolerated := p.Untolerated(); p.Selected && untolerated {
			taints = append(taints, p.Node.Name+" "+describeTaint(taint))
		}
	}
	pass.Reportf(at, "the %s the pod selects all carry a taint it does not tolerate (%s): the pod stays Pending with %q; "+
		"add a toleration for it", plural(selected, "node"), shortList(taints), summary)
}

// selectorField is what a user edits to move the pod: its nodeSelector,
// else its node affinity, else the pod spec.
func selectorField(w *manifest.Workload) string {
	switch {
	case len(w.Spec.NodeSelector) > 0:
		return w.SpecPath + ".nodeSelector"
	case w.Spec.Affinity != nil && w.Spec.Affinity.NodeAffinity != nil:
		return w.SpecPath + ".affinity.nodeAffinity"
	}
	return w.SpecPath
}

func describeSelector(spec *corev1.PodSpec) string {
	var parts []string
	for _, key := range slices.Sorted(maps.Keys(spec.NodeSelector)) {
		parts = append(parts, key+"="+spec.NodeSelector[key])
	}
	text := "nodeSelector " + strings.Join(parts, ", ")
	if len(parts) == 0 {
		text = "required node affinity"
	} else if spec.Affinity != nil && spec.Affinity.NodeAffinity != nil && spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		text += " and required node affinity"
	}
	return text
}

func describeTaint(taint corev1.Taint) string {
	if taint.Value == "" {
		return fmt.Sprintf("{%s: }", taint.Key)
	}
	return fmt.Sprintf("{%s: %s}", taint.Key, taint.Value)
}

// podResources are the resources MDL216 checks, besides the GPU resource.
var podResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

func checkRequestUnschedulable(pass *lint.Pass) {
	if pass.Cluster == nil {
		pass.Skip(skipNoCluster)
		return
	}
	w := pass.Workload()
	matching := pass.Cluster.Matching(w.Spec)
	if len(matching) == 0 {
		pass.Skip("no node matches the pod's nodeSelector, affinity and tolerations (MDL217)")
		return
	}
	names := append(slices.Clone(podResources), corev1.ResourceName(pass.Config.GPUResourceName()))
	requests := podRequests(w, names)
	if len(requests) == 0 {
		pass.Skip("the pod requests no cpu, memory or " + pass.Config.GPUResourceName())
		return
	}
	summary, fits := unavailable(pass.Cluster.Placements(w.Spec), requests)
	if fits {
		return // some node can hold the pod
	}
	for _, name := range names {
		request, ok := requests[name]
		if !ok {
			continue
		}
		largest, holders := largestAllocatable(matching, name)
		if request.Cmp(largest) <= 0 {
			continue
		}
		c, list := largestRequester(w, name)
		single, pod := effectiveRequest(c, name), ""
		if single.Cmp(request) != 0 {
			pod = fmt.Sprintf(" (the pod %s in all)", formatQuantity(name, request))
		}
		pass.Reportf(resourcePath(c, list, name), "%s requests %s: %s%s but the nodes the pod may land on allocate at most %s (%s): "+
			"the pod stays Pending with %q; request at most %s, or schedule the pod on larger nodes",
			c.Label(), name, formatQuantity(name, single), pod, formatQuantity(name, largest), holders, summary, formatQuantity(name, largest))
	}
}

// podRequests are what the scheduler fits: the sum of the containers'
// requests, or the largest init container's when that is more. A
// resource with only a limit is requested at the limit.
func podRequests(w *manifest.Workload, names []corev1.ResourceName) map[corev1.ResourceName]resource.Quantity {
	requests := map[corev1.ResourceName]resource.Quantity{}
	for _, name := range names {
		var sum, largestInit resource.Quantity
		for _, c := range w.Containers {
			request := effectiveRequest(c, name)
			switch {
			case !c.Init:
				sum.Add(request)
			case request.Cmp(largestInit) > 0:
				largestInit = request
			}
		}
		if largestInit.Cmp(sum) > 0 {
			sum = largestInit
		}
		if sum.Sign() > 0 {
			requests[name] = sum
		}
	}
	return requests
}

func effectiveRequest(c *manifest.Container, name corev1.ResourceName) resource.Quantity {
	if request, ok := c.Resources.Requests[name]; ok {
		return request
	}
	return c.Resources.Limits[name]
}

// largestRequester is the container asking the most of a resource, and
// whether its requests or limits say so.
func largestRequester(w *manifest.Workload, name corev1.ResourceName) (*manifest.Container, string) {
	var largest *manifest.Container
	for _, c := range w.Containers {
		if largest == nil {
			largest = c
			continue
		}
		request, current := effectiveRequest(c, name), effectiveRequest(largest, name)
		if request.Cmp(current) > 0 {
			largest = c
		}
	}
	if _, ok := largest.Resources.Requests[name]; ok {
		return largest, "requests"
	}
	return largest, "limits"
}

// insufficient names the resources the node cannot hold the requests of;
// requested are the requests' names, sorted.
func insufficient(node cluster.Node, requests map[corev1.ResourceName]resource.Quantity, requested []corev1.ResourceName) []corev1.ResourceName {
	var short []corev1.ResourceName
	for _, name := range requested {
		request := requests[name]
		if request.Cmp(node.Allocatable[name]) > 0 {
			short = append(short, name)
		}
	}
	return short
}

// largestAllocatable returns the most of a resource one node allocates,
// and the nodes with it and how much ("node-a: 7910m").
func largestAllocatable(nodes []cluster.Node, name corev1.ResourceName) (resource.Quantity, string) {
	var largest resource.Quantity
	var each []string
	for i, node := range nodes {
		allocatable := node.Allocatable[name]
		if allocatable.Cmp(largest) > 0 {
			largest = allocatable
		}
		if i < listed {
			each = append(each, node.Name+": "+formatQuantity(name, allocatable))
		}
	}
	return largest, listOf(each, len(nodes))
}

// unavailable writes the scheduler's FailedScheduling summary for the
// pod on these nodes: "0/3 nodes are available: 1 Insufficient cpu, …",
// or says a node fits it, requests and all. requests is nil when only
// selectors and taints are judged.
func unavailable(placements []cluster.Placement, requests map[corev1.ResourceName]resource.Quantity) (summary string, fits bool) {
	requested := slices.Sorted(maps.Keys(requests))
	counts := map[string]int{}
	for _, p := range placements {
		if !p.Selected {
			counts["node(s) didn't match Pod's node affinity/selector"]++
			continue
		}
		if taint, untolerated := p.Untolerated(); untolerated {
			counts["node(s) had untolerated taint "+describeTaint(taint)]++
			continue
		}
		short := insufficient(*p.Node, requests, requested)
		if len(short) == 0 {
			return "", true
		}
		for _, name := range short {
			counts["Insufficient "+string(name)]++
		}
	}
	var reasons []string
	for reason, count := range counts {
		reasons = append(reasons, fmt.Sprintf("%d %s", count, reason))
	}
	slices.Sort(reasons) // counts first, as the scheduler sorts them
	return fmt.Sprintf("0/%d nodes are available: %s.", len(placements), strings.Join(reasons, ", ")), false
}

func formatQuantity(name corev1.ResourceName, q resource.Quantity) string {
	if name == corev1.ResourceMemory {
		return humanBytes(q.Value())
	}
	return q.String()
}

// nodeNames lists nodes for a message, the first few of a large pool.
func nodeNames(nodes []cluster.Node) string {
	names := make([]string, len(nodes))
	for i, node := range nodes {
		names[i] = node.Name
	}
	return shortList(names)
}

func shortList(items []string) string { return listOf(items[:min(len(items), listed)], len(items)) }

// listed is how many items a message lists of a long list.
const listed = 3

// listOf lists the first items of a list of total, and how many more.
func listOf(first []string, total int) string {
	if total <= len(first) {
		return strings.Join(first, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(first, ", "), total-len(first))
}

// podNodes are the cluster's nodes the target's pod may land on; every
// node for an image linted on its own.
func podNodes(pass *lint.Pass) []cluster.Node {
	if pass.Workload() == nil {
		return pass.Cluster.Nodes
	}
	return pass.Cluster.Matching(pass.Workload().Spec)
}

// clusterDriver is the oldest NVIDIA driver among the GPU nodes the pod
// may land on: the one the image must work with.
func clusterDriver(pass *lint.Pass) (driver cuda.Version, text string, ok bool) {
	var oldest []string
	for _, node := range podNodes(pass) {
		version, parsed := cuda.ParseVersion(node.NVIDIADriver)
		if !parsed {
			continue
		}
		switch {
		case driver == nil || version.Compare(driver) < 0:
			driver, text, oldest = version, node.NVIDIADriver, []string{node.Name}
		case version.Compare(driver) == 0:
			oldest = append(oldest, node.Name)
		}
	}
	if driver == nil {
		return nil, "", false
	}
	return driver, fmt.Sprintf("%s (from the cluster's nodes: %s)", text, shortList(oldest)), true
}

// clusterGPU is the smallest GPU among the GPU nodes the pod may land on,
// known from their labels; ok is false when one of them has a GPU the
// labels do not name.
func clusterGPU(pass *lint.Pass, gpuResource corev1.ResourceName) (device gpu.GPU, how string, ok bool) {
	var smallest []string
	for _, node := range podNodes(pass) {
		if allocatable := node.Allocatable[gpuResource]; allocatable.Sign() <= 0 {
			continue
		}
		found, known := gpu.ForNode(node.Labels)
		switch {
		case !known:
			return gpu.GPU{}, "", false
		case smallest == nil || found.MemoryBytes < device.MemoryBytes:
			device, smallest = found, []string{node.Name}
		case found.MemoryBytes == device.MemoryBytes:
			smallest = append(smallest, node.Name)
		}
	}
	if smallest == nil {
		return gpu.GPU{}, "", false
	}
	return device, "from the cluster's nodes: " + shortList(smallest), true
}
