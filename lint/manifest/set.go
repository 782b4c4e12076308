package manifest

import (
	"errors"
	"slices"
	"sort"
	"sync"

	"github.com/modellint/modellint/internal/parallel"
)

// Set is every object of one lint run, indexed for the cross-object checks
// (does the ConfigMap an env var names exist?).
type Set struct {
	Files     []*File
	Objects   []*Object
	Workloads []*Workload
	// Invalid holds objects the API server would reject; their workloads are
	// not linted further.
	Invalid []*InvalidError
	// Unknown are fields of built-in objects that strict field validation
	// rejects; the objects are still linted.
	Unknown []*InvalidError
	byKind  map[string]map[string]*Object // kind → "namespace/name" → object
	byName  map[string]map[string]*Object // kind → name → first object of that name
	ofKind  map[string][]int              // kind → indexes into Objects
	// inNamespace is ofKind by namespace ("" for objects written without one).
	inNamespace map[string]map[string][]int

	derivedMu sync.Mutex
	derived   map[derivedKey]*derivedValue // see Derived and DerivedIn
}

// derivedKey names a derived value: of the whole set, or of one namespace
// (inNamespace).
type derivedKey struct {
	namespace   string
	inNamespace bool
	key         string
}

// SetOption changes how NewSet reads the objects.
type SetOption func(*setOptions)

type setOptions struct {
	releaseTyped bool
}

// ReleaseTyped drops the typed fields of each object's workloads as soon
// as they are extracted, before the next objects are decoded: a caller
// holds a workload (Workload.Hold) while it reads them. Without it, they
// stay for as long as the set does.
func ReleaseTyped() SetOption { return func(o *setOptions) { o.releaseTyped = true } }

// NewSet indexes the objects of the files and extracts their workloads.
func NewSet(files []*File, options ...SetOption) (*Set, error) {
	var chosen setOptions
	for _, option := range options {
		option(&chosen)
	}
	set := emptySet(files)
	// The index is built while the objects decode: it reads only their
	// kinds and names, which decoding does not touch, and on its own it
	// kept a CPU idle for the time it took.
	indexed := make(chan struct{})
	go func() {
		set.index()
		close(indexed)
	}()
	decoded := decodeAll(set.Objects, chosen.releaseTyped)
	<-indexed
	for i := range set.Objects {
		set.Unknown = append(set.Unknown, decoded[i].unknown...)
		var invalid *InvalidError
		if errors.As(decoded[i].err, &invalid) {
			set.Invalid = append(set.Invalid, invalid)
			continue
		}
		if decoded[i].err != nil {
			return nil, decoded[i].err
		}
		set.Workloads = append(set.Workloads, decoded[i].workloads...)
	}
	if chosen.releaseTyped && !slices.ContainsFunc(files, func(f *File) bool { return f.Rendered }) {
		for _, file := range files {
			file.droppable = true
		}
		for _, w := range set.Workloads {
			w.Object.File.pending.Add(1)
		}
	}
	return set, nil
}

// index files the objects by kind, namespace and name.
func (s *Set) index() {
	for i, object := range s.Objects {
		s.ofKind[object.Kind] = append(s.ofKind[object.Kind], i)
		if s.inNamespace[object.Kind] == nil {
			s.inNamespace[object.Kind] = map[string][]int{}
		}
		byNamespace := s.inNamespace[object.Kind]
		byNamespace[object.Namespace] = append(byNamespace[object.Namespace], i)
		if s.byKind[object.Kind] == nil {
			s.byKind[object.Kind] = map[string]*Object{}
			s.byName[object.Kind] = map[string]*Object{}
		}
		s.byKind[object.Kind][object.Namespace+"/"+object.Name] = object
		if _, seen := s.byName[object.Kind][object.Name]; !seen {
			s.byName[object.Kind][object.Name] = object
		}
	}
}

// decodedObject is what NewSet reads off one object.
type decodedObject struct {
	unknown   []*InvalidError
	workloads []*Workload
	err       error
}

// decodeAll decodes the objects on every CPU, each on its own (objects of
// one List share only their document, which is read), and returns the
// outcomes in the order of the objects, whatever the scheduling.
func decodeAll(objects []*Object, releaseTyped bool) []decodedObject {
	return parallel.Map(objects, func(object *Object) decodedObject {
		if settled := object.decoded; settled != nil {
			object.decoded = nil
			return *settled
		}
		return decodeObject(object, releaseTyped)
	})
}

// emptySet is a set of the files' objects, not yet indexed or decoded.
func emptySet(files []*File) *Set {
	set := &Set{Files: files, byKind: map[string]map[string]*Object{}, byName: map[string]map[string]*Object{},
		ofKind: map[string][]int{}, inNamespace: map[string]map[string][]int{}}
	for _, file := range files {
		set.Objects = append(set.Objects, file.Objects...)
	}
	return set
}

// Subset is the set of the objects of some of the files, indexed, with the
// workloads already extracted from them: nothing is decoded again. What the
// objects' decode rejected (Invalid, Unknown) stays with s.
func (s *Set) Subset(files []*File) *Set {
	subset := emptySet(files)
	subset.index()
	in := map[*File]bool{}
	for _, file := range files {
		in[file] = true
	}
	for _, w := range s.Workloads {
		if in[w.Object.File] {
			subset.Workloads = append(subset.Workloads, w)
		}
	}
	return subset
}

// Derived returns what compute derives from the objects, computed once per
// set and key. Keys are computed apart: a caller of one does not wait for
// another's compute.
func (s *Set) Derived(key string, compute func() any) any {
	return s.derive(derivedKey{key: key}, compute)
}

// DerivedIn is Derived for a value of one namespace's objects: a rule that
// reads the same objects for every workload of a namespace (the Services
// whose links the kubelet injects) derives them once per namespace, not once
// per workload, and the value goes with ReleaseNamespace.
func (s *Set) DerivedIn(namespace, key string, compute func() any) any {
	return s.derive(derivedKey{namespace: namespace, inNamespace: true, key: key}, compute)
}

func (s *Set) derive(key derivedKey, compute func() any) any {
	s.derivedMu.Lock()
	if s.derived == nil {
		s.derived = map[derivedKey]*derivedValue{}
	}
	entry := s.derived[key]
	if entry == nil {
		entry = &derivedValue{}
		s.derived[key] = entry
	}
	s.derivedMu.Unlock()
	entry.once.Do(func() { entry.value = compute() })
	return entry.value
}

// derivedValue is one key's value, computed by the first caller.
type derivedValue struct {
	once  sync.Once
	value any
}

// Find returns the object of a kind with a name in a namespace. Objects
// written without a namespace match any namespace, since `kubectl apply -n`
// places them wherever the workload goes.
func (s *Set) Find(kind, namespace, name string) *Object {
	objects := s.byKind[kind]
	if object, ok := objects[namespace+"/"+name]; ok {
		return object
	}
	if object, ok := objects["/"+name]; ok {
		return object
	}
	if namespace == "" {
		return s.byName[kind][name]
	}
	return nil
}

// OfKinds returns the objects of the kinds in the order they were read,
// so a rule that looks for, say, the HorizontalPodAutoscaler of each
// workload does not walk every object of the run for each one.
func (s *Set) OfKinds(kinds ...string) []*Object {
	var indexes []int
	for _, kind := range kinds {
		indexes = append(indexes, s.ofKind[kind]...)
	}
	if len(kinds) > 1 {
		sort.Ints(indexes)
	}
	return s.objectsAt(indexes)
}

// OfKindsIn is OfKinds for a workload of a namespace: the objects of that
// namespace and those written without one (which `kubectl apply -n` puts in
// any); every object of the kinds when namespace is "". A rule that looks
// up, per workload, the Services of its namespace does not walk the
// Services of every namespace.
func (s *Set) OfKindsIn(namespace string, kinds ...string) []*Object {
	if namespace == "" {
		return s.OfKinds(kinds...)
	}
	var indexes []int
	for _, kind := range kinds {
		indexes = append(indexes, s.inNamespace[kind][namespace]...)
		indexes = append(indexes, s.inNamespace[kind][""]...)
	}
	sort.Ints(indexes)
	return s.objectsAt(indexes)
}

func (s *Set) objectsAt(indexes []int) []*Object {
	objects := make([]*Object, len(indexes))
	for i, index := range indexes {
		objects[i] = s.Objects[index]
	}
	return objects
}
