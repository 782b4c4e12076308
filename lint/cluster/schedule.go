package cluster

import (
	"encoding/binary"
	"reflect"
	"slices"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// filter is a pod's nodeSelector, required node affinity and tolerations,
// indexed once to be tried on every node: a pod's tolerations and an
// affinity's values are looked up, not scanned, so trying a pod on all the
// nodes costs the nodes' labels and taints, whatever the pod lists.
type filter struct {
	selector map[string]string
	// terms are the required affinity's terms (ORed), nil without one.
	terms       [][]requirement
	affinity    bool
	tolerations tolerations
}

// requirement is a term's expression, or its metadata.name field, with
// its values as a set.
type requirement struct {
	key      string
	field    bool // matches the node's name (matchFields)
	operator corev1.NodeSelectorOperator
	values   map[string]bool
	// bound is Gt's or Lt's one value; ok says it is an integer.
	bound   int64
	boundOK bool
}

func newFilter(pod *corev1.PodSpec) *filter {
	f := &filter{selector: pod.NodeSelector, tolerations: newTolerations(pod.Tolerations)}
	affinity := pod.Affinity
	if affinity == nil || affinity.NodeAffinity == nil || affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return f
	}
	f.affinity = true
	for _, term := range affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		// A term with nothing in it matches no node, as the scheduler has it.
		if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
			continue
		}
		var compiled []requirement
		for _, expression := range term.MatchExpressions {
			compiled = append(compiled, newRequirement(expression, false))
		}
		for _, field := range term.MatchFields {
			compiled = append(compiled, newRequirement(field, true))
		}
		f.terms = append(f.terms, compiled)
	}
	return f
}

func newRequirement(expression corev1.NodeSelectorRequirement, field bool) requirement {
	r := requirement{key: expression.Key, field: field, operator: expression.Operator}
	switch expression.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		r.values = make(map[string]bool, len(expression.Values))
		for _, value := range expression.Values {
			r.values[value] = true
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(expression.Values) == 1 {
			bound, err := strconv.ParseInt(expression.Values[0], 10, 64)
			r.bound, r.boundOK = bound, err == nil
		}
	}
	return r
}

// selects reports whether the nodeSelector and required node affinity
// allow the node.
func (f *filter) selects(n *Node) bool { return f.selectorHolds(n) && f.affinityHolds(n) }

func (f *filter) selectorHolds(n *Node) bool {
	for key, value := range f.selector {
		if actual, ok := n.Labels[key]; !ok || actual != value {
			return false
		}
	}
	return true
}

func (f *filter) affinityHolds(n *Node) bool {
	if !f.affinity {
		return true
	}
	for _, term := range f.terms {
		if termHolds(term, n) {
			return true
		}
	}
	return false
}

func termHolds(term []requirement, n *Node) bool {
	for _, r := range term {
		if r.field {
			// metadata.name is the only field the scheduler allows here.
			if r.key != "metadata.name" || !r.holds(n.Name, true) {
				return false
			}
			continue
		}
		value, present := n.Labels[r.key]
		if !r.holds(value, present) {
			return false
		}
	}
	return true
}

func (r *requirement) holds(value string, present bool) bool {
	switch r.operator {
	case corev1.NodeSelectorOpIn:
		return present && r.values[value]
	case corev1.NodeSelectorOpNotIn:
		return !present || !r.values[value]
	case corev1.NodeSelectorOpExists:
		return present
	case corev1.NodeSelectorOpDoesNotExist:
		return !present
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !present || !r.boundOK {
			return false
		}
		actual, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return false
		}
		if r.operator == corev1.NodeSelectorOpGt {
			return actual > r.bound
		}
		return actual < r.bound
	}
	return false
}

// tolerations are a pod's tolerations by what they tolerate, as the
// scheduler matches them: an empty effect tolerates every effect, an empty
// key with Exists every taint, and Equal (the default) compares values.
type tolerations struct {
	anyKey effects
	exists map[string]effects
	equal  map[[2]string]effects
}

// effects are the taint effects a toleration tolerates, of the two that
// keep a pod off a node (PreferNoSchedule only steers the scheduler).
type effects uint8

const (
	noSchedule effects = 1 << iota
	noExecute
	everyEffect = noSchedule | noExecute
)

func effectOf(effect corev1.TaintEffect) effects {
	switch effect {
	case "":
		return everyEffect
	case corev1.TaintEffectNoSchedule:
		return noSchedule
	case corev1.TaintEffectNoExecute:
		return noExecute
	}
	return 0
}

func newTolerations(list []corev1.Toleration) tolerations {
	t := tolerations{exists: map[string]effects{}, equal: map[[2]string]effects{}}
	for _, toleration := range list {
		tolerated := effectOf(toleration.Effect)
		switch {
		case toleration.Operator == corev1.TolerationOpExists && toleration.Key == "":
			t.anyKey |= tolerated
		case toleration.Operator == corev1.TolerationOpExists:
			t.exists[toleration.Key] |= tolerated
		case (toleration.Operator == "" || toleration.Operator == corev1.TolerationOpEqual) && toleration.Key != "":
			t.equal[[2]string{toleration.Key, toleration.Value}] |= tolerated
		}
	}
	return t
}

// untolerated returns the index of the first NoSchedule or NoExecute
// taint of the node that no toleration tolerates, -1 for none.
func (t *tolerations) untolerated(n *Node) int32 {
	for i, taint := range n.Taints {
		effect := effectOf(taint.Effect)
		if effect == 0 || effect == everyEffect {
			continue // PreferNoSchedule, or no effect: the pod is not kept off
		}
		if t.anyKey&effect == 0 && t.exists[taint.Key]&effect == 0 && t.equal[[2]string{taint.Key, taint.Value}]&effect == 0 {
			return int32(i)
		}
	}
	return -1
}

// Placement is what the scheduler's filters say of one node for a pod,
// its resources aside.
type Placement struct {
	Node *Node
	// Selected says the pod's nodeSelector and required node affinity
	// allow the node.
	Selected bool
	// taint is the index in Node.Taints of the first NoSchedule or
	// NoExecute taint the pod does not tolerate, -1 for none.
	taint int32
}

// Untolerated returns the node's first NoSchedule or NoExecute taint the
// pod does not tolerate.
func (p *Placement) Untolerated() (corev1.Taint, bool) {
	if p.taint < 0 {
		return corev1.Taint{}, false
	}
	return p.Node.Taints[p.taint], true
}

// Fits reports whether the scheduler may place the pod on the node, its
// resources aside.
func (p *Placement) Fits() bool { return p.Selected && p.taint < 0 }

// Placements tries the pod on every node, in the order of Nodes. The
// rules of a workload each ask for its pod's placements, so those of the
// last pods asked for are kept; the slice is shared, not to be changed.
func (f *Facts) Placements(pod *corev1.PodSpec) []Placement { return f.place(pod).placements }

// place returns the pod's placements, kept or made.
func (f *Facts) place(pod *corev1.PodSpec) *placed {
	shape := shapeOf(pod)
	f.mu.Lock()
	kept := f.placed[pod]
	f.mu.Unlock()
	if kept != nil && kept.shape == shape && len(kept.placements) == len(f.Nodes) {
		return kept
	}
	filter := newFilter(pod)
	labeled, decided := f.withLabels(pod.NodeSelector)
	p := &placed{shape: shape, placements: make([]Placement, len(f.Nodes))}
	for i := range f.Nodes {
		node := &f.Nodes[i]
		selected := (labeled == nil || labeled.has(i)) && (decided || filter.selectorHolds(node)) && filter.affinityHolds(node)
		p.placements[i] = Placement{Node: node, Selected: selected, taint: filter.tolerations.untolerated(node)}
	}
	f.mu.Lock()
	if f.placed == nil || len(f.placed) >= maxPlaced {
		f.placed = map[*corev1.PodSpec]*placed{}
	}
	f.placed[pod] = p
	f.mu.Unlock()
	return p
}

// withLabels returns the nodes that carry every label of a nodeSelector
// (nil for all), from the index of the label keys pods select by, and
// whether that decides the selector: keys beyond the index are left to a
// check node by node. A pod is then tried only on the nodes of its pool,
// and a selector of many labels costs a word per 64 nodes a label.
func (f *Facts) withLabels(selector map[string]string) (labeled nodeSet, decided bool) {
	decided = true
	for key, value := range selector {
		index, ok := f.labelIndex(key)
		if !ok {
			decided = false
			continue
		}
		with := index.nodes(value, len(f.Nodes))
		if labeled == nil {
			labeled = slices.Clone(with)
			continue
		}
		for w := range labeled {
			labeled[w] &= with[w]
		}
	}
	return labeled, decided
}

// nodeSet is a set of nodes by their index, a bit each.
type nodeSet []uint64

func newNodeSet(nodes int) nodeSet { return make(nodeSet, (nodes+63)/64) }

func (s nodeSet) add(i int32)    { s[i/64] |= 1 << (i % 64) }
func (s nodeSet) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// key is the set as a map key.
func (s nodeSet) key() string {
	key := make([]byte, 0, 8*len(s))
	for _, word := range s {
		key = binary.LittleEndian.AppendUint64(key, word)
	}
	return string(key)
}

// keyIndex is, for one label key, the nodes with each of its values: as
// a set when many nodes have it, as a list (made a set when asked for)
// when few do, such as a node's hostname.
type keyIndex struct {
	few  map[string][]int32
	many map[string]nodeSet
}

func (k *keyIndex) nodes(value string, nodes int) nodeSet {
	if set, ok := k.many[value]; ok {
		return set
	}
	set := newNodeSet(nodes)
	for _, i := range k.few[value] {
		set.add(i)
	}
	return set
}

// maxIndexed bounds the label keys indexed: real pods select by a few
// (the node pool, the accelerator, the architecture).
const maxIndexed = 256

// labelIndex returns the index of a label key, made on first use.
func (f *Facts) labelIndex(key string) (*keyIndex, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if index, ok := f.labels[key]; ok {
		return index, true
	}
	if len(f.labels) >= maxIndexed {
		return nil, false
	}
	index := &keyIndex{few: map[string][]int32{}, many: map[string]nodeSet{}}
	for i := range f.Nodes {
		if value, ok := f.Nodes[i].Labels[key]; ok {
			index.few[value] = append(index.few[value], int32(i))
		}
	}
	// A value of as many nodes as a set has words is kept as a set.
	for value, list := range index.few {
		if len(list) >= max(16, len(f.Nodes)/64) {
			set := newNodeSet(len(f.Nodes))
			for _, i := range list {
				set.add(i)
			}
			index.many[value] = set
			delete(index.few, value)
		}
	}
	if f.labels == nil {
		f.labels = map[string]*keyIndex{}
	}
	f.labels[key] = index
	return index, true
}

// maxPlaced bounds the pods whose placements are kept: more than the
// workloads linted at once.
const maxPlaced = 64

// placed are the placements of a pod, with its shape when it was tried,
// and the nodes it fits on, once asked for.
type placed struct {
	shape        podShape
	placements   []Placement
	matchingOnce sync.Once
	matching     []Node
}

// podShape tells that a pod spec kept by its address has changed since it
// was tried: its selector, affinity or tolerations are others.
type podShape struct {
	selector          uintptr
	selectorLength    int
	affinity          *corev1.Affinity
	tolerations       *corev1.Toleration
	tolerationsLength int
}

func shapeOf(pod *corev1.PodSpec) podShape {
	shape := podShape{selector: reflect.ValueOf(pod.NodeSelector).Pointer(), selectorLength: len(pod.NodeSelector),
		affinity: pod.Affinity, tolerationsLength: len(pod.Tolerations)}
	if len(pod.Tolerations) > 0 {
		shape.tolerations = &pod.Tolerations[0]
	}
	return shape
}
