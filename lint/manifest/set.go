package manifest

import (
	"errors"
	"sort"
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
}

// NewSet indexes the objects of the files and extracts their workloads.
func NewSet(files []*File) (*Set, error) {
	set := &Set{Files: files, byKind: map[string]map[string]*Object{}, byName: map[string]map[string]*Object{},
		ofKind: map[string][]int{}}
	for _, file := range files {
		for _, object := range file.Objects {
			set.ofKind[object.Kind] = append(set.ofKind[object.Kind], len(set.Objects))
			set.Objects = append(set.Objects, object)
			if set.byKind[object.Kind] == nil {
				set.byKind[object.Kind] = map[string]*Object{}
				set.byName[object.Kind] = map[string]*Object{}
			}
			set.byKind[object.Kind][object.Namespace+"/"+object.Name] = object
			if _, seen := set.byName[object.Kind][object.Name]; !seen {
				set.byName[object.Kind][object.Name] = object
			}
			set.Unknown = append(set.Unknown, UnknownFields(object)...)
			workloads, err := Workloads(object)
			var invalid *InvalidError
			if errors.As(err, &invalid) {
				set.Invalid = append(set.Invalid, invalid)
				continue
			}
			if err != nil {
				return nil, err
			}
			set.Workloads = append(set.Workloads, workloads...)
		}
	}
	return set, nil
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
	objects := make([]*Object, len(indexes))
	for i, index := range indexes {
		objects[i] = s.Objects[index]
	}
	return objects
}
