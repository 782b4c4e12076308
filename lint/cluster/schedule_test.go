package cluster

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestPlacementsAgree tries random pods on random nodes with the
// scheduler's rules written out plainly, as a scan of every toleration and
// value, and with Placements and the Node methods.
func TestPlacementsAgree(t *testing.T) {
	random := rand.New(rand.NewPCG(1, 2))
	pick := func(values ...string) string { return values[random.IntN(len(values))] }
	keys := []string{"", "a", "b"}
	values := []string{"", "x", "y"}
	effects := []string{"", "NoSchedule", "NoExecute", "PreferNoSchedule"}
	facts := &Facts{}
	for i := range 40 {
		node := Node{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{}}
		for range random.IntN(3) {
			node.Labels[pick(keys[1:]...)] = pick(values...)
		}
		for range random.IntN(3) {
			node.Taints = append(node.Taints, corev1.Taint{Key: pick(keys...), Value: pick(values...), Effect: corev1.TaintEffect(pick(effects...))})
		}
		facts.Nodes = append(facts.Nodes, node)
	}
	for range 400 {
		pod := &corev1.PodSpec{}
		if random.IntN(2) == 0 {
			pod.NodeSelector = map[string]string{pick(keys[1:]...): pick(values...)}
		}
		for range random.IntN(4) {
			pod.Tolerations = append(pod.Tolerations, corev1.Toleration{Key: pick(keys...), Value: pick(values...),
				Operator: corev1.TolerationOperator(pick("", "Equal", "Exists", "Other")), Effect: corev1.TaintEffect(pick(effects...))})
		}
		if random.IntN(2) == 0 {
			var terms []corev1.NodeSelectorTerm
			for range random.IntN(3) {
				var term corev1.NodeSelectorTerm
				for range random.IntN(3) {
					term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: pick(keys[1:]...),
						Operator: corev1.NodeSelectorOperator(pick("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")), Values: []string{pick(values...), pick("1", "x")}})
				}
				if random.IntN(4) == 0 {
					term.MatchFields = append(term.MatchFields, corev1.NodeSelectorRequirement{Key: pick("metadata.name", "spec.x"), Operator: "In", Values: []string{"n1", "n2"}})
				}
				terms = append(terms, term)
			}
			pod.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
		}
		placements := facts.Placements(pod)
		var matching []string
		for _, node := range facts.Matching(pod) {
			matching = append(matching, node.Name)
		}
		var want []string
		for i := range facts.Nodes {
			node := &facts.Nodes[i]
			selected, taint, untolerated := scanSelector(node, pod), corev1.Taint{}, false
			for _, candidate := range node.Taints {
				if (candidate.Effect == "NoSchedule" || candidate.Effect == "NoExecute") && !slices.ContainsFunc(pod.Tolerations, func(toleration corev1.Toleration) bool { return scanTolerates(toleration, candidate) }) {
					taint, untolerated = candidate, true
					break
				}
			}
			got := placements[i]
			gotTaint, gotUntolerated := got.Untolerated()
			methodTaint, methodUntolerated := node.UntoleratedTaint(pod)
			if got.Selected != selected || gotUntolerated != untolerated || gotTaint != taint || node.MatchesSelector(pod) != selected ||
				methodUntolerated != untolerated || methodTaint != taint {
				t.Fatalf("node %+v, pod %+v: placement %+v, want selected %v, taint %v %v", node, pod, got, selected, taint, untolerated)
			}
			if selected && !untolerated {
				want = append(want, node.Name)
			}
		}
		if !slices.Equal(matching, want) {
			t.Fatalf("pod %+v: matching %v, want %v", pod, matching, want)
		}
	}
}

func scanSelector(node *Node, pod *corev1.PodSpec) bool {
	for key, value := range pod.NodeSelector {
		if actual, ok := node.Labels[key]; !ok || actual != value {
			return false
		}
	}
	if pod.Affinity == nil {
		return true
	}
	for _, term := range pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if len(term.MatchExpressions)+len(term.MatchFields) == 0 {
			continue
		}
		holds := true
		for _, r := range term.MatchExpressions {
			value, present := node.Labels[r.Key]
			holds = holds && scanRequirement(r, value, present)
		}
		for _, r := range term.MatchFields {
			holds = holds && r.Key == "metadata.name" && scanRequirement(r, node.Name, true)
		}
		if holds {
			return true
		}
	}
	return false
}

func scanRequirement(r corev1.NodeSelectorRequirement, value string, present bool) bool {
	switch r.Operator {
	case "In":
		return present && slices.Contains(r.Values, value)
	case "NotIn":
		return !present || !slices.Contains(r.Values, value)
	case "Exists":
		return present
	case "DoesNotExist":
		return !present
	case "Gt", "Lt":
		if !present || len(r.Values) != 1 {
			return false
		}
		actual, err1 := strconv.ParseInt(value, 10, 64)
		bound, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		return r.Operator == "Gt" && actual > bound || r.Operator == "Lt" && actual < bound
	}
	return false
}

func scanTolerates(toleration corev1.Toleration, taint corev1.Taint) bool {
	if toleration.Effect != "" && toleration.Effect != taint.Effect || toleration.Key != "" && toleration.Key != taint.Key {
		return false
	}
	switch toleration.Operator {
	case "Exists":
		return true
	case "", "Equal":
		return toleration.Key != "" && toleration.Value == taint.Value
	}
	return false
}
