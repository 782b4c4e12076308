package engine

import (
	"slices"
	"sync"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// inNamespaceTurns is the order the workers take the targets in: open
// namespaces at a time, a target of each in turn, and a namespace that runs
// out gives its place to the next. The targets of no namespace come first,
// the others in the order they first appear.
//
// Rules derive some values once per namespace (Set.DerivedIn), and a worker
// that needs one another is deriving waits for it: in target order, where a
// namespace's workloads sit side by side, both workers started on the same
// namespace together and one waited. A few namespaces at a time, not all of
// them, let each be released (namespaceRelease) long before the run ends.
func inNamespaceTurns(targets []*lint.Target, open int) []int {
	var namespaces []string
	members := map[string][]int{}
	for i, target := range targets {
		namespace := namespaceOf(target)
		if _, seen := members[namespace]; !seen {
			namespaces = append(namespaces, namespace)
		}
		members[namespace] = append(members[namespace], i)
	}
	if _, ok := members[""]; ok && namespaces[0] != "" {
		namespaces = append([]string{""}, slices.DeleteFunc(namespaces, func(n string) bool { return n == "" })...)
	}
	open = max(open, 1)
	window := namespaces[:min(open, len(namespaces))]
	waiting := namespaces[len(window):]
	next := map[string]int{}
	order := make([]int, 0, len(targets))
	for len(window) > 0 {
		kept := window[:0:0]
		for _, namespace := range window {
			order = append(order, members[namespace][next[namespace]])
			next[namespace]++
			switch {
			case next[namespace] < len(members[namespace]):
				kept = append(kept, namespace)
			case len(waiting) > 0:
				kept = append(kept, waiting[0])
				waiting = waiting[1:]
			}
		}
		window = kept
	}
	return order
}

// namespaceOf is the namespace a target's rules read the objects of; ""
// for a workload written without one, and for a target with no workload.
func namespaceOf(target *lint.Target) string {
	if target.Workload != nil {
		return target.Workload.Object.Namespace
	}
	return ""
}

// namespaceRelease tells the sets when a namespace is done
// (manifest.Set.ReleaseNamespace): when its last target is linted and so is
// every target of no namespace, whose rules read the objects of any.
type namespaceRelease struct {
	mu   sync.Mutex
	left map[string]int
	// waiting are the namespaces done before those of no namespace.
	waiting []string
	sets    []*manifest.Set
}

func newNamespaceRelease(targets []*lint.Target, sets []*manifest.Set) *namespaceRelease {
	release := &namespaceRelease{left: map[string]int{}, sets: sets}
	for _, target := range targets {
		release.left[namespaceOf(target)]++
	}
	return release
}

// done says a target is linted.
func (r *namespaceRelease) done(target *lint.Target) {
	namespace := namespaceOf(target)
	var released []string
	r.mu.Lock()
	if r.left[namespace]--; r.left[namespace] == 0 {
		switch {
		case namespace == "":
			released = append(r.waiting, "")
			r.waiting = nil
		case r.left[""] > 0:
			r.waiting = append(r.waiting, namespace)
		default:
			released = []string{namespace}
		}
	}
	r.mu.Unlock()
	for _, namespace := range released {
		for _, set := range r.sets {
			set.ReleaseNamespace(namespace)
		}
	}
}
