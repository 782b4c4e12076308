// Package cluster reads the nodes of the target cluster, as `kubectl get
// nodes -o yaml` prints them, into the facts the scheduler decides with:
// labels, taints, allocatable resources, CPU architecture and the NVIDIA
// driver that GPU Feature Discovery labels.
package cluster

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/internal/quantity"

	"github.com/modellint/modellint/internal/message"
)

// MaxFileBytes bounds the nodes file: a few thousand nodes fit, a wrong
// file (a log, a dump) is refused before it is parsed.
const MaxFileBytes = 32 << 20

// The labels GPU Feature Discovery sets for the driver, e.g. 535, 104, 05.
// https://github.com/NVIDIA/k8s-device-plugin/blob/main/docs/gpu-feature-discovery/README.md
const (
	LabelDriverMajor = "nvidia.com/cuda.driver.major"
	LabelDriverMinor = "nvidia.com/cuda.driver.minor"
	LabelDriverRev   = "nvidia.com/cuda.driver.rev"
	// LabelDriverFull is set by newer releases, alongside the others.
	LabelDriverFull = "nvidia.com/cuda.driver-version.full"
	// LabelArch is the kubelet's; status.nodeInfo.architecture is the fallback.
	LabelArch = "kubernetes.io/arch"
)

// Facts are the nodes of one cluster.
type Facts struct {
	// Path is the file they were read from, for messages.
	Path  string
	Nodes []Node
}

// Node is what the scheduler and the GPU rules read of one node.
type Node struct {
	Name        string
	Labels      map[string]string
	Taints      []corev1.Taint
	Allocatable corev1.ResourceList
	// Architecture is amd64, arm64 … ("" when the node does not say).
	Architecture string
	// NVIDIADriver is the driver version, e.g. 535.104.05 ("" on nodes
	// without GPU Feature Discovery's labels).
	NVIDIADriver string
}

// Read reads a `kubectl get nodes -o yaml` file: a List of Node, a
// NodeList or a single Node.
func Read(path string) (*Facts, error) {
	data, err := fileread.Regular(path, MaxFileBytes)
	var tooLarge *fileread.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("cluster nodes %s: larger than %d MiB, not a kubectl get nodes -o yaml", path, MaxFileBytes>>20)
	case err != nil:
		return nil, fmt.Errorf("cluster nodes %s: %w", path, unwrapPath(err))
	}
	facts, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("cluster nodes %s: %s", path, oneLine(err.Error()))
	}
	facts.Path = path
	return facts, nil
}

func parse(data []byte) (*Facts, error) {
	var header struct {
		Kind string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &header); err != nil {
		return nil, err
	}
	var generic any
	if err := yaml.Unmarshal(data, &generic); err != nil {
		return nil, err
	}
	if err := checkQuantities(generic, ""); err != nil {
		return nil, err
	}
	var nodes []corev1.Node
	switch header.Kind {
	case "Node":
		var node corev1.Node
		if err := yaml.Unmarshal(data, &node); err != nil {
			return nil, err
		}
		nodes = []corev1.Node{node}
	case "List", "NodeList":
		var list corev1.NodeList
		if err := yaml.Unmarshal(data, &list); err != nil {
			return nil, err
		}
		for i, item := range list.Items {
			// kubectl writes each item's kind; a NodeList from the API may leave it out.
			if item.Kind != "" && item.Kind != "Node" {
				return nil, fmt.Errorf("items[%d] is a %s, not a Node (want kubectl get nodes -o yaml)", i, item.Kind)
			}
		}
		nodes = list.Items
	default:
		return nil, fmt.Errorf("kind %s is not a Node, NodeList or List (want kubectl get nodes -o yaml)", message.Quote(header.Kind))
	}
	if len(nodes) == 0 {
		return nil, errors.New("no nodes in it")
	}
	facts := &Facts{}
	for _, node := range nodes {
		facts.Nodes = append(facts.Nodes, newNode(node))
	}
	return facts, nil
}

// checkQuantities refuses a capacity or allocatable value that would hang
// resource.ParseQuantity while the nodes are decoded.
func checkQuantities(value any, key string) error {
	switch v := value.(type) {
	case map[string]any:
		for name, item := range v {
			if err := checkQuantities(item, name); err != nil {
				return err
			}
			if key == "capacity" || key == "allocatable" {
				if text, ok := item.(string); ok {
					if err := quantity.Check(text); err != nil {
						return fmt.Errorf("%s.%s: %w", key, name, err)
					}
				}
			}
		}
	case []any:
		for _, item := range v {
			if err := checkQuantities(item, key); err != nil {
				return err
			}
		}
	}
	return nil
}

func newNode(node corev1.Node) Node {
	architecture := node.Labels[LabelArch]
	if architecture == "" {
		architecture = node.Status.NodeInfo.Architecture
	}
	return Node{
		Name:         node.Name,
		Labels:       node.Labels,
		Taints:       node.Spec.Taints,
		Allocatable:  node.Status.Allocatable,
		Architecture: architecture,
		NVIDIADriver: driverVersion(node.Labels),
	}
}

// driverVersion joins GPU Feature Discovery's driver labels; rev may be
// empty (drivers such as 550.54 have none).
func driverVersion(labels map[string]string) string {
	if full := labels[LabelDriverFull]; full != "" {
		return full
	}
	major, minor := labels[LabelDriverMajor], labels[LabelDriverMinor]
	if major == "" || minor == "" {
		return ""
	}
	version := major + "." + minor
	if rev := labels[LabelDriverRev]; rev != "" {
		version += "." + rev
	}
	return version
}

// Matching returns the nodes the pod may be scheduled on, resources aside.
func (f *Facts) Matching(pod *corev1.PodSpec) []Node {
	var matching []Node
	for _, node := range f.Nodes {
		if node.Matches(pod) {
			matching = append(matching, node)
		}
	}
	return matching
}

// Architectures are the CPU architectures of the nodes, sorted; a node
// that does not say is left out.
func Architectures(nodes []Node) []string {
	var arches []string
	for _, node := range nodes {
		if node.Architecture != "" && !slices.Contains(arches, node.Architecture) {
			arches = append(arches, node.Architecture)
		}
	}
	slices.Sort(arches)
	return arches
}

// Matches reports whether the scheduler may place the pod on the node, its
// resources aside: the node selector and required node affinity hold and
// every NoSchedule and NoExecute taint is tolerated.
func (n *Node) Matches(pod *corev1.PodSpec) bool {
	_, untolerated := n.UntoleratedTaint(pod)
	return n.MatchesSelector(pod) && !untolerated
}

// MatchesSelector reports whether the pod's nodeSelector and required node
// affinity allow the node.
func (n *Node) MatchesSelector(pod *corev1.PodSpec) bool {
	for key, value := range pod.NodeSelector {
		if actual, ok := n.Labels[key]; !ok || actual != value {
			return false
		}
	}
	affinity := pod.Affinity
	if affinity == nil || affinity.NodeAffinity == nil || affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	// The terms are ORed, the expressions of one term ANDed; a term with
	// nothing in it matches no node, as the scheduler has it.
	for _, term := range affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if n.matchesTerm(term) {
			return true
		}
	}
	return false
}

func (n *Node) matchesTerm(term corev1.NodeSelectorTerm) bool {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false
	}
	for _, requirement := range term.MatchExpressions {
		value, present := n.Labels[requirement.Key]
		if !requirementHolds(requirement, value, present) {
			return false
		}
	}
	for _, requirement := range term.MatchFields {
		// metadata.name is the only field the scheduler allows here.
		if requirement.Key != "metadata.name" || !requirementHolds(requirement, n.Name, true) {
			return false
		}
	}
	return true
}

func requirementHolds(requirement corev1.NodeSelectorRequirement, value string, present bool) bool {
	switch requirement.Operator {
	case corev1.NodeSelectorOpIn:
		return present && contains(requirement.Values, value)
	case corev1.NodeSelectorOpNotIn:
		return !present || !contains(requirement.Values, value)
	case corev1.NodeSelectorOpExists:
		return present
	case corev1.NodeSelectorOpDoesNotExist:
		return !present
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !present || len(requirement.Values) != 1 {
			return false
		}
		actual, err1 := strconv.ParseInt(value, 10, 64)
		bound, err2 := strconv.ParseInt(requirement.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if requirement.Operator == corev1.NodeSelectorOpGt {
			return actual > bound
		}
		return actual < bound
	}
	return false
}

func contains(values []string, value string) bool {
	for _, candidate := range values {
		if candidate == value {
			return true
		}
	}
	return false
}

// UntoleratedTaint returns the first NoSchedule or NoExecute taint of the
// node that none of the pod's tolerations tolerates. PreferNoSchedule only
// steers the scheduler, so it never keeps a pod off.
func (n *Node) UntoleratedTaint(pod *corev1.PodSpec) (corev1.Taint, bool) {
	for _, taint := range n.Taints {
		if taint.Effect != corev1.TaintEffectNoSchedule && taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		tolerated := false
		for _, toleration := range pod.Tolerations {
			if tolerates(toleration, taint) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			return taint, true
		}
	}
	return corev1.Taint{}, false
}

// tolerates is the scheduler's rule: an empty effect matches every effect,
// an empty key with Exists every taint, and Equal (the default) compares
// values.
func tolerates(toleration corev1.Toleration, taint corev1.Taint) bool {
	if toleration.Effect != "" && toleration.Effect != taint.Effect {
		return false
	}
	if toleration.Key != "" && toleration.Key != taint.Key {
		return false
	}
	switch toleration.Operator {
	case corev1.TolerationOpExists:
		return true
	case "", corev1.TolerationOpEqual:
		return toleration.Key != "" && toleration.Value == taint.Value
	}
	return false
}

// unwrapPath drops the path an *os.PathError repeats, since the message
// names the file already.
func unwrapPath(err error) error {
	var pathError *os.PathError
	if errors.As(err, &pathError) {
		return pathError.Err
	}
	return err
}

func oneLine(message string) string { return strings.Join(strings.Fields(message), " ") }
