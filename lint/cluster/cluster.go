// Package cluster reads the nodes of the target cluster, as `kubectl get
// nodes -o yaml` prints them, into the facts the scheduler decides with:
// labels, taints, allocatable resources, CPU architecture and the NVIDIA
// driver that GPU Feature Discovery labels.
package cluster

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/internal/fileread"
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

// Facts are the nodes of one cluster. What the pods tried on them found
// is kept (see Placements), so Nodes are not to change once one was.
type Facts struct {
	// Path is the file they were read from, for messages.
	Path  string
	Nodes []Node

	mu       sync.Mutex
	placed   map[*corev1.PodSpec]*placed // see Placements
	labels   map[string]*keyIndex        // see labelIndex
	matching map[string][]Node           // see Matching, by the nodes' set
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
	// PodFamily is the IP family of the pods' primary IP on the node,
	// from its first pod CIDR, else from its InternalIP addresses
	// (PodFamilyFromAddresses): "IPv4", "IPv6", or "" when not known.
	PodFamily              string
	PodFamilyFromAddresses bool
}

// PodFamily is the IP family of the primary IP of pods on the nodes, when
// every node that says agrees: "IPv4", "IPv6", or "" (none says, or they
// differ); fromAddresses says some node told it by its addresses alone.
func PodFamily(nodes []Node) (family string, fromAddresses bool) {
	for _, node := range nodes {
		switch {
		case node.PodFamily == "":
			continue
		case family == "":
			family = node.PodFamily
		case family != node.PodFamily:
			return "", false
		}
		fromAddresses = fromAddresses || node.PodFamilyFromAddresses
	}
	return family, fromAddresses
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
		return nil, fmt.Errorf("cluster nodes %s: %w", path, fileread.Cause(err))
	}
	facts, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("cluster nodes %s: %s", path, oneLine(err.Error()))
	}
	facts.Path = path
	return facts, nil
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
// Pods that fit the same nodes share the slice, whose length is its
// capacity: an append copies it.
func (f *Facts) Matching(pod *corev1.PodSpec) []Node {
	p := f.place(pod)
	p.matchingOnce.Do(func() {
		fits, count := newNodeSet(len(p.placements)), 0
		for i := range p.placements {
			if p.placements[i].Fits() {
				fits.add(int32(i))
				count++
			}
		}
		key := fits.key()
		f.mu.Lock()
		shared, ok := f.matching[key]
		f.mu.Unlock()
		if !ok && count > 0 {
			shared = make([]Node, 0, count)
			for i := range p.placements {
				if p.placements[i].Fits() {
					shared = append(shared, *p.placements[i].Node)
				}
			}
		}
		f.mu.Lock()
		if f.matching == nil || len(f.matching) >= maxPlaced {
			f.matching = map[string][]Node{}
		}
		f.matching[key] = shared
		f.mu.Unlock()
		p.matching = shared
	})
	return p.matching
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
// every NoSchedule and NoExecute taint is tolerated. To try a pod on every
// node, Facts.Placements indexes it once.
func (n *Node) Matches(pod *corev1.PodSpec) bool {
	_, untolerated := n.UntoleratedTaint(pod)
	return n.MatchesSelector(pod) && !untolerated
}

// MatchesSelector reports whether the pod's nodeSelector and required node
// affinity allow the node.
func (n *Node) MatchesSelector(pod *corev1.PodSpec) bool { return newFilter(pod).selects(n) }

// UntoleratedTaint returns the first NoSchedule or NoExecute taint of the
// node that none of the pod's tolerations tolerates. PreferNoSchedule only
// steers the scheduler, so it never keeps a pod off.
func (n *Node) UntoleratedTaint(pod *corev1.PodSpec) (corev1.Taint, bool) {
	t := newTolerations(pod.Tolerations)
	placement := Placement{Node: n, taint: t.untolerated(n)}
	return placement.Untolerated()
}

func oneLine(message string) string { return strings.Join(strings.Fields(message), " ") }
