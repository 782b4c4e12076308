package manifest

// readInNamespace are the kinds (by kind, their API group) a pod refers to
// by name in its own namespace, and which rules read only for the
// workloads of that namespace or of none (see Find and OfKindsIn). Once
// those are linted, nothing reads their documents again.
var readInNamespace = map[string]string{
	"Service": "", "ConfigMap": "", "Secret": "", "PersistentVolumeClaim": "",
	"LimitRange": "", "ResourceQuota": "", "PodDisruptionBudget": "policy",
}

// ReleaseNamespace says the rules are done with the workloads of a
// namespace and with those written without one, which may be placed in any:
// the namespace's derived values go (DerivedIn), and so do the documents of
// its objects of the kinds only those workloads' rules read, so a run does
// not hold every Service and ConfigMap it read until it ends.
func (s *Set) ReleaseNamespace(namespace string) {
	s.derivedMu.Lock()
	for key := range s.derived {
		if key.inNamespace && key.namespace == namespace {
			delete(s.derived, key)
		}
	}
	s.derivedMu.Unlock()
	if namespace == "" {
		return // objects written without a namespace are read from every one
	}
	for kind, group := range readInNamespace {
		for _, i := range s.inNamespace[kind][namespace] {
			object := s.Objects[i]
			// An object of a List shares its document with the others.
			if object.Group() == group && object.holds == nil && object.Base == "" {
				object.Doc.retire()
			}
		}
	}
}
