package manifest

import "errors"

// Set is every object of one lint run, indexed for the cross-object checks
// (does the ConfigMap an env var names exist?).
type Set struct {
	Files     []*File
	Objects   []*Object
	Workloads []*Workload
	// Invalid holds objects the API server would reject; their workloads are
	// not linted further.
	Invalid []*InvalidError
	byKind  map[string]map[string]*Object // kind → "namespace/name" → object
}

// NewSet indexes the objects of the files and extracts their workloads.
func NewSet(files []*File) (*Set, error) {
	set := &Set{Files: files, byKind: map[string]map[string]*Object{}}
	for _, file := range files {
		for _, object := range file.Objects {
			set.Objects = append(set.Objects, object)
			if set.byKind[object.Kind] == nil {
				set.byKind[object.Kind] = map[string]*Object{}
			}
			set.byKind[object.Kind][object.Namespace+"/"+object.Name] = object
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
		for _, object := range objects {
			if object.Name == name {
				return object
			}
		}
	}
	return nil
}
