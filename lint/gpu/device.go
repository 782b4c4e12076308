package gpu

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// The extended resources a container requests accelerators by, of their
// vendors' device plugins.
const (
	// https://github.com/NVIDIA/k8s-device-plugin: whole GPUs, or replicas
	// of one under time-slicing or MPS (".shared" with renameByDefault).
	ResourceNVIDIA       = "nvidia.com/gpu"
	ResourceNVIDIAShared = "nvidia.com/gpu.shared"
	// MIG slices under the plugin's mixed strategy: nvidia.com/mig-1g.10gb.
	ResourceMIGPrefix = "nvidia.com/mig-"
	// https://github.com/ROCm/k8s-device-plugin: one GPU, or one GCD of an
	// MI250/MI250X.
	ResourceAMD = "amd.com/gpu"
	// https://docs.habana.ai/en/latest/Orchestration/Gaudi_Kubernetes/Device_Plugin_for_Kubernetes.html
	ResourceGaudi = "habana.ai/gaudi"
	// https://cloud.google.com/kubernetes-engine/docs/how-to/tpus: chips.
	ResourceTPU = "google.com/tpu"
)

// The node labels that say more of an accelerator than its model.
const (
	// GPU Feature Discovery's sharing labels: how many pods share one GPU,
	// and how ("time-slicing", "mps" or "none").
	// https://github.com/NVIDIA/k8s-device-plugin#catalog-of-labels
	LabelGFDReplicas        = "nvidia.com/gpu.replicas"
	LabelGFDSharingStrategy = "nvidia.com/gpu.sharing-strategy"
	// GKE's MIG partition of the node's GPUs (requested as nvidia.com/gpu).
	// https://cloud.google.com/kubernetes-engine/docs/how-to/gpus-multi
	LabelGKEPartitionSize = "cloud.google.com/gke-gpu-partition-size"
	// The ROCm node labeller's labels (cmd/k8s-node-labeller in
	// ROCm/k8s-device-plugin): the sysfs product name with "_" for spaces,
	// the PCI device id, and the VRAM in GiB ("64G"). Its gpu.family
	// ("AI") spans generations of different memory, so it sizes nothing.
	LabelAMDProductName     = "amd.com/gpu.product-name"
	LabelAMDProductNameBeta = "beta.amd.com/gpu.product-name"
	LabelAMDDeviceID        = "amd.com/gpu.device-id"
	LabelAMDDeviceIDBeta    = "beta.amd.com/gpu.device-id"
	LabelAMDVRAM            = "amd.com/gpu.vram"
	LabelAMDVRAMBeta        = "beta.amd.com/gpu.vram"
	// Habana Feature Discovery's labels (collector/collector.go in
	// HabanaAI/gaudi-feature-discovery): the device type and PCI id.
	LabelGaudiType = "habana.ai/device.type"
	LabelGaudiID   = "habana.ai/device.id"
	// GKE's TPU labels. https://cloud.google.com/kubernetes-engine/docs/how-to/tpus
	LabelGKETPUAccelerator = "cloud.google.com/gke-tpu-accelerator"
	LabelGKETPUTopology    = "cloud.google.com/gke-tpu-topology"
)

// Device is the accelerator one container gets: its model, and the memory
// a server on one of them can use.
type Device struct {
	GPU
	// Resource is what the container requests, and Count how many.
	Resource corev1.ResourceName
	Count    int64
	// How says how the model is known, and where the memory figure comes
	// from when not from the table of whole GPUs, for messages:
	// "nodeSelector cloud.google.com/gke-accelerator=nvidia-l4".
	How string
	// Shared says how other pods share the device's memory, "" when the
	// labels do not say it is shared.
	Shared string
	// MIG is the profile of a MIG slice ("1g.10gb"), "" for a whole GPU;
	// Whole is the GPU it is a slice of, Name "" when nothing names it.
	MIG   string
	Whole GPU
}

// Node is a cluster node as far as its accelerators go.
type Node struct {
	Name        string
	Labels      map[string]string
	Allocatable corev1.ResourceList
}

// Placement is what tells where a pod runs.
type Placement struct {
	Spec *corev1.PodSpec
	// InstanceType is the cloud instance type a controller provisions the
	// pod's node of (KAITO's resource.instanceType), "" when none.
	InstanceType string
	// Nodes are the cluster's nodes the pod may land on (--cluster); nil
	// when the cluster is not known.
	Nodes []Node
}

// Requested is the accelerator resource a container requests (its limit,
// else its request) and how many: the configured GPU resource first, then
// NVIDIA's shared GPUs and MIG slices, AMD's, Intel's and Google's. ok is
// false when it requests none.
func Requested(resources corev1.ResourceRequirements, gpuResource corev1.ResourceName) (corev1.ResourceName, int64, bool) {
	count := func(name corev1.ResourceName) int64 {
		if quantity, ok := resources.Limits[name]; ok {
			return quantity.Value()
		}
		if quantity, ok := resources.Requests[name]; ok {
			return quantity.Value()
		}
		return 0
	}
	for _, name := range []corev1.ResourceName{gpuResource, ResourceNVIDIA, ResourceNVIDIAShared, ResourceAMD, ResourceGaudi, ResourceTPU} {
		if n := count(name); n > 0 {
			return name, n, true
		}
	}
	var migs []corev1.ResourceName
	for _, list := range []corev1.ResourceList{resources.Limits, resources.Requests} {
		for name := range list {
			if strings.HasPrefix(string(name), ResourceMIGPrefix) && count(name) > 0 {
				migs = append(migs, name)
			}
		}
	}
	if len(migs) == 0 {
		return "", 0, false
	}
	name := slices.Min(migs) // the same answer for the same manifest
	return name, count(name), true
}

// ForContainer answers what accelerator a container gets and how much
// memory one of them gives it: the resource it requests says the kind (a
// whole NVIDIA GPU, a MIG slice, an AMD GPU, a Gaudi, a TPU chip), the
// pod's nodeSelector or required node affinity, else the instance type,
// else the labels of the cluster's nodes it may land on (the smallest)
// say the model. ok is false when the container requests none, or its
// model is not known.
func ForContainer(resources corev1.ResourceRequirements, gpuResource corev1.ResourceName, where Placement) (Device, bool) {
	resource, count, ok := Requested(resources, gpuResource)
	if !ok {
		return Device{}, false
	}
	k := kindOf(resource)
	device, ok := fromSpec(k, resource, where.Spec)
	if !ok && where.InstanceType != "" {
		if gpu, found := k.instance(where.InstanceType); found {
			how := "resource.instanceType " + where.InstanceType
			device, ok = Device{GPU: gpu, How: how}, true
			if k == kindMIG {
				device, ok = migSlice(resource, gpu, how)
			}
		}
	}
	if !ok {
		device, ok = fromNodes(k, resource, where.Nodes)
	}
	if !ok && k == kindMIG {
		device, ok = migSlice(resource, GPU{}, "") // the profile alone, on any GPU that has it
	}
	if !ok {
		return Device{}, false
	}
	device.Resource, device.Count = resource, count
	return device, true
}

// IsNVIDIA reports whether a requested resource is an NVIDIA GPU, on which
// CUDA runs: a whole GPU, a shared replica, a MIG slice, or the resource
// a cluster names its GPUs by (cluster.gpuResource) unless it is another
// vendor's.
func IsNVIDIA(resource corev1.ResourceName) bool {
	k := kindOf(resource)
	return k == kindNVIDIA || k == kindMIG
}

// IsMIG reports whether a requested resource is a MIG slice of the device
// plugin's mixed strategy (nvidia.com/mig-1g.10gb).
func IsMIG(resource corev1.ResourceName) bool { return kindOf(resource) == kindMIG }

// kind is a family of accelerators with its own resource and labels.
type kind int

const (
	kindNVIDIA kind = iota
	kindMIG
	kindAMD
	kindGaudi
	kindTPU
)

func kindOf(resource corev1.ResourceName) kind {
	switch {
	case strings.HasPrefix(string(resource), ResourceMIGPrefix):
		return kindMIG
	case resource == ResourceAMD:
		return kindAMD
	case resource == ResourceGaudi:
		return kindGaudi
	case resource == ResourceTPU:
		return kindTPU
	}
	return kindNVIDIA // nvidia.com/gpu, its .shared replicas, or a configured name
}

// labels are the node labels that name a model of the kind, in the order
// they are trusted.
func (k kind) labels() []string {
	switch k {
	case kindAMD:
		return []string{LabelAMDProductName, LabelAMDProductNameBeta, LabelAMDDeviceID, LabelAMDDeviceIDBeta, LabelAMDVRAM, LabelAMDVRAMBeta}
	case kindGaudi:
		return []string{LabelGaudiType, LabelGaudiID}
	case kindTPU:
		return []string{LabelGKETPUAccelerator}
	}
	return Labels
}

// label resolves one label of the kind.
func (k kind) label(key, value string) (GPU, bool) {
	switch k {
	case kindAMD:
		return amdLabel(key, value)
	case kindGaudi:
		return gaudiLabel(key, value)
	case kindTPU:
		gpu, ok := tpuAccelerators[value]
		return gpu, ok
	}
	return ForLabel(key, value)
}

// instance resolves a cloud instance type of the kind.
func (k kind) instance(instanceType string) (GPU, bool) {
	switch k {
	case kindNVIDIA, kindMIG:
		return ForLabel(LabelInstanceType, instanceType)
	}
	for _, instance := range otherInstanceTypes {
		if instance.kind == k && instance.pattern.MatchString(instanceType) {
			return instance.gpu, true
		}
	}
	return GPU{}, false
}

// fromSpec reads the pod's nodeSelector and required node affinity.
func fromSpec(k kind, resource corev1.ResourceName, spec *corev1.PodSpec) (Device, bool) {
	if spec == nil {
		return Device{}, false
	}
	pinned := pinnedLabels(spec)
	if k == kindMIG || k == kindNVIDIA {
		if device, ok := migFromLabels(resource, pinned); ok {
			return device, true
		}
	}
	gpu, how, ok := forSpec(spec, k.labels(), k.label)
	if !ok {
		return Device{}, false
	}
	device := Device{GPU: gpu, How: how}
	switch k {
	case kindMIG:
		return migSlice(resource, gpu, how)
	case kindNVIDIA:
		device = shared(device, resource, pinned)
	case kindTPU:
		device.How += topology(pinned)
	}
	return device, true
}

// fromNodes is the smallest device among the cluster's nodes that have the
// resource; ok is false when one of them has a device the table does not
// know, or none has the resource.
func fromNodes(k kind, resource corev1.ResourceName, nodes []Node) (Device, bool) {
	var smallest Device
	var names []string
	for _, node := range nodes {
		if allocatable := node.Allocatable[resource]; allocatable.Sign() <= 0 {
			continue
		}
		device, known := fromNode(k, resource, node.Labels)
		switch {
		case !known:
			return Device{}, false
		case names == nil || device.MemoryBytes < smallest.MemoryBytes:
			smallest, names = device, []string{node.Name}
		case device.MemoryBytes == smallest.MemoryBytes:
			names = append(names, node.Name)
		}
	}
	if names == nil {
		return Device{}, false
	}
	nodesText := strings.Join(names[:min(len(names), 3)], ", ")
	if len(names) > 3 {
		nodesText = fmt.Sprintf("%s and %d more", nodesText, len(names)-3)
	}
	how := "from the cluster's nodes: " + nodesText
	if smallest.How != "" {
		how += "; " + smallest.How
	}
	smallest.How = how
	return smallest, true
}

// fromNode reads one node's labels; How holds only what the labels add
// to the node's name (the memory's source, the sharing).
func fromNode(k kind, resource corev1.ResourceName, labels map[string]string) (Device, bool) {
	if k == kindMIG || k == kindNVIDIA {
		if device, ok := migFromLabels(resource, labels); ok {
			return device, true
		}
	}
	var gpu GPU
	found := false
	for _, key := range k.labels() {
		if value, set := labels[key]; set {
			if gpu, found = k.label(key, value); found {
				break
			}
		}
	}
	if !found {
		return Device{}, false
	}
	switch k {
	case kindMIG:
		return migSlice(resource, gpu, "")
	case kindNVIDIA:
		return shared(Device{GPU: gpu}, resource, labels), true
	case kindTPU:
		return Device{GPU: gpu, How: strings.TrimPrefix(topology(labels), ", ")}, true
	}
	return Device{GPU: gpu}, true
}

// pinnedLabels are the labels the pod requires with one value: its
// nodeSelector, and the required node affinity when it has one term.
func pinnedLabels(spec *corev1.PodSpec) map[string]string {
	pinned := map[string]string{}
	if affinity := spec.Affinity; affinity != nil && affinity.NodeAffinity != nil &&
		affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if terms := affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms; len(terms) == 1 {
			for _, expression := range terms[0].MatchExpressions {
				if expression.Operator == corev1.NodeSelectorOpIn && len(expression.Values) == 1 {
					pinned[expression.Key] = expression.Values[0]
				}
			}
		}
	}
	for key, value := range spec.NodeSelector {
		pinned[key] = value
	}
	return pinned
}

// shared applies GPU Feature Discovery's sharing labels. Time-slicing
// does not divide the memory: every pod sees all of it, and they share
// it. MPS limits each replica to an equal fraction of the memory (the
// k8s-device-plugin README, "With CUDA MPS").
func shared(device Device, resource corev1.ResourceName, labels map[string]string) Device {
	strategy := labels[LabelGFDSharingStrategy]
	replicas, _ := strconv.Atoi(labels[LabelGFDReplicas])
	product := strings.ToUpper(labels[LabelGFDProduct])
	isShared := resource == ResourceNVIDIAShared || strings.HasSuffix(product, "-SHARED") ||
		(strategy != "" && strategy != "none") || replicas > 1
	if !isShared {
		return device
	}
	replicasText := ""
	if replicas > 1 {
		replicasText = fmt.Sprintf(" %d ways", replicas)
	}
	switch {
	case strategy == "mps" && replicas > 1 && replicas <= 1024:
		device.MemoryBytes /= int64(replicas)
		article := "an "
		if strings.HasPrefix(device.Name, "a ") {
			article = ""
		}
		device.Name = fmt.Sprintf("1/%d of %s%s", replicas, article, device.Name)
		device.Shared = fmt.Sprintf("shared%s by MPS, which limits each pod to 1/%d of the memory", replicasText, replicas)
	case strategy == "mps":
		device.Shared = "shared by MPS, which limits each pod to an equal fraction of the memory (the replicas are not known)"
	case strategy == "time-slicing":
		device.Shared = fmt.Sprintf("time-sliced%s: every pod on it sees all of its memory and they share it", replicasText)
	default:
		device.Shared = "shared with other pods (time-slicing shares all of its memory, MPS gives each pod a fraction; the labels do not say which)"
	}
	device.How = joinHow(device.How, device.Shared)
	return device
}

func joinHow(parts ...string) string {
	var kept []string
	for _, part := range parts {
		if part != "" {
			kept = append(kept, part)
		}
	}
	return strings.Join(kept, "; ")
}

// topology describes a TPU slice's topology label: "2x4" is 8 chips.
func topology(labels map[string]string) string {
	value, ok := labels[LabelGKETPUTopology]
	if !ok {
		return ""
	}
	chips := 1
	for _, side := range strings.Split(value, "x") {
		n, err := strconv.Atoi(side)
		if err != nil || n <= 0 || n > 1<<12 {
			return ", topology " + value
		}
		chips *= n
	}
	unit := "chips"
	if chips == 1 {
		unit = "chip"
	}
	return fmt.Sprintf(", topology %s (%d %s in the slice)", value, chips, unit)
}

// forSpec reads the nodeSelector, then the required node affinity: a term
// that allows several models, or several terms, give the smallest of them,
// where the pod may be scheduled.
func forSpec(spec *corev1.PodSpec, keys []string, resolve func(key, value string) (GPU, bool)) (GPU, string, bool) {
	for _, key := range keys {
		if value, set := spec.NodeSelector[key]; set {
			if gpu, ok := resolve(key, value); ok {
				return gpu, fmt.Sprintf("nodeSelector %s=%s", key, value), true
			}
		}
	}
	affinity := spec.Affinity
	if affinity == nil || affinity.NodeAffinity == nil || affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return GPU{}, "", false
	}
	var smallest GPU
	var how string
	for _, term := range affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		gpu, termHow, ok := forTerm(term, keys, resolve)
		if !ok {
			return GPU{}, "", false // this term lets the pod land anywhere
		}
		if how == "" || gpu.MemoryBytes < smallest.MemoryBytes {
			smallest, how = gpu, termHow
		}
	}
	return smallest, how, how != ""
}

// forTerm finds the first known label a term pins with operator In, and
// the smallest model among its values (all of which must be known).
func forTerm(term corev1.NodeSelectorTerm, keys []string, resolve func(key, value string) (GPU, bool)) (GPU, string, bool) {
	for _, key := range keys {
		for _, expression := range term.MatchExpressions {
			if expression.Key != key || expression.Operator != corev1.NodeSelectorOpIn || len(expression.Values) == 0 {
				continue
			}
			gpus := make([]GPU, 0, len(expression.Values))
			for _, value := range expression.Values {
				if gpu, ok := resolve(key, value); ok {
					gpus = append(gpus, gpu)
				}
			}
			if len(gpus) < len(expression.Values) {
				continue
			}
			smallest := slices.MinFunc(gpus, func(a, b GPU) int { return cmp.Compare(a.MemoryBytes, b.MemoryBytes) })
			return smallest, fmt.Sprintf("node affinity %s in (%s)", key, strings.Join(expression.Values, ", ")), true
		}
	}
	return GPU{}, "", false
}

// amdProducts are Instinct models by the name in the product-name label
// and their PCI device ids (https://pci-ids.ucw.cz/read/PC/1002), the
// longer names first.
var amdProducts = []struct {
	name string
	ids  []string
	gpu  GPU
}{
	{"MI325X", []string{"74a5"}, mi325x},
	{"MI300X", []string{"74a1"}, mi300x},
	{"MI250X", []string{"7408"}, mi250x},
	{"MI250", []string{"740c"}, mi250},
	{"MI210", []string{"740f"}, mi210},
}

func amdLabel(key, value string) (GPU, bool) {
	switch key {
	case LabelAMDProductName, LabelAMDProductNameBeta:
		name := strings.ToUpper(value)
		for _, product := range amdProducts {
			if strings.Contains(name, product.name) {
				return product.gpu, true
			}
		}
	case LabelAMDDeviceID, LabelAMDDeviceIDBeta:
		id := strings.ToLower(strings.TrimPrefix(value, "0x"))
		for _, product := range amdProducts {
			if slices.Contains(product.ids, id) {
				return product.gpu, true
			}
		}
	case LabelAMDVRAM, LabelAMDVRAMBeta:
		gibibytes, err := strconv.ParseInt(strings.TrimSuffix(value, "G"), 10, 64)
		if err == nil && gibibytes > 0 && gibibytes <= 1<<12 {
			return GPU{Name: "an AMD GPU of " + value, MemoryBytes: gibibytes * gib}, true
		}
	}
	return GPU{}, false
}

func gaudiLabel(key, value string) (GPU, bool) {
	switch key {
	case LabelGaudiType:
		switch name := strings.ToUpper(value); {
		case strings.Contains(name, "GAUDI3"):
			return gaudi3, true
		case strings.Contains(name, "GAUDI2"):
			return gaudi2, true
		case strings.Contains(name, "GAUDI"):
			return gaudi, true
		}
	case LabelGaudiID:
		switch strings.ToLower(strings.TrimPrefix(value, "0x")) {
		case "1000", "1001", "1010", "1011":
			return gaudi, true
		case "1020", "1030":
			return gaudi2, true
		case "1060", "1061", "1062":
			return gaudi3, true
		}
	}
	return GPU{}, false
}

// tpuAccelerators are GKE's TPU accelerator label values.
// https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus
var tpuAccelerators = map[string]GPU{
	"tpu-v4-podslice": tpuV4, "tpu-v5-lite-podslice": tpuV5e, "tpu-v5-lite-device": tpuV5e,
	"tpu-v5p-slice": tpuV5p, "tpu-v6e-slice": tpuV6e,
}

// otherInstanceTypes are the instance types of accelerators other than
// NVIDIA's. AWS: https://aws.amazon.com/ec2/instance-types/dl1/ and
// https://aws.amazon.com/ec2/instance-types/g4/ (G4ad); Azure:
// https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndmi300xv5-series
var otherInstanceTypes = []struct {
	kind    kind
	pattern *lazyregexp.Regexp
	gpu     GPU
}{
	{kindGaudi, lazyregexp.New(`^dl1\.`), gaudi},
	{kindAMD, lazyregexp.New(`^g4ad\.`), v520},
	{kindAMD, lazyregexp.New(`(?i)^standard_nd96isr_mi300x_v5$`), mi300x},
}
