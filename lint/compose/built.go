package compose

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint/manifest"
)

// Some controllers build the whole pod from fields that are no pod spec:
// an image repository and tag, a resource profile, an engine name. The pod
// is built here as the controller's code builds it, at a path of the
// object that names what the controller creates ("deployment.spec.template.spec"),
// which no user writes: each field of it is placed on the user's field
// that made the controller write it, so a finding lands where a user edits.

// builtPod is a pod a controller builds from an object's fields.
type builtPod struct {
	object *manifest.Object
	spec   corev1.PodSpec
	// fields are the sources of the pod's fields, by their path under the
	// pod spec (".containers[0].image"); a field is placed by its longest
	// path that has one, else on fallback.
	fields   map[string]builtField
	fallback string
}

// builtField is where a field of a built pod comes from: the object's
// field at path, or (mirror) the field under path with the same rest of
// path, for a part the controller copies whole (spec.resources).
type builtField struct {
	object *manifest.Object // nil for the pod's own object
	path   string
	mirror bool
}

func newBuiltPod(o *manifest.Object, fallback string) *builtPod {
	return &builtPod{object: o, fields: map[string]builtField{}, fallback: fallback}
}

// at places the pod's field under, and all below it, on the object's
// field at path.
func (p *builtPod) at(under, path string) { p.fields[under] = builtField{path: path} }

// mirror places the pod's field under on the object's field at path, and
// each field below it on the field below path with the same rest of path.
func (p *builtPod) mirror(under, path string) { p.fields[under] = builtField{path: path, mirror: true} }

// atIn is at for a field another object wrote.
func (p *builtPod) atIn(o *manifest.Object, under, path string) {
	p.fields[under] = builtField{object: o, path: path}
}

// mirrorIn is mirror for a field another object wrote (the runtime the
// pod's object names).
func (p *builtPod) mirrorIn(o *manifest.Object, under, path string) {
	p.fields[under] = builtField{object: o, path: path, mirror: true}
}

func (p *builtPod) place(rest string) (manifest.FieldSource, bool) {
	for prefix := rest; ; prefix = parentRest(prefix) {
		if field, ok := p.fields[prefix]; ok {
			path, object := field.path, field.object
			if field.mirror {
				path += rest[len(prefix):]
			}
			if object == nil {
				object = p.object
			}
			return manifest.FieldSource{Object: object, Path: path}, true
		}
		if prefix == "" {
			return manifest.FieldSource{Object: p.object, Path: p.fallback}, true
		}
	}
}

// parentRest drops the last step of the rest of a field path:
// `.resources.limits["nvidia.com/gpu"]` → ".resources.limits" → ".resources" → "".
func parentRest(rest string) string {
	if strings.HasSuffix(rest, "]") {
		if i := strings.LastIndex(rest, "["); i >= 0 {
			if quoted := strings.LastIndex(rest, `["`); quoted >= 0 && strings.HasSuffix(rest, `"]`) {
				i = quoted
			}
			return rest[:i]
		}
	}
	if i := strings.LastIndexAny(rest, ".["); i >= 0 {
		return rest[:i]
	}
	return ""
}

// container is the path under the pod spec of its i-th container.
func container(i int) string { return manifest.IndexPath(".containers", i) }

// initContainer is the path under the pod spec of its i-th init container.
func initContainer(i int) string { return manifest.IndexPath(".initContainers", i) }

// workload makes the built pod a workload of the set, at specPath of the
// object: its containers are the controller's to write, so no fix edits
// them (see Container.ComposedFrom). incomplete says the pod rests on
// defaults an install may change, so what seems wrong with it is a
// warning, never an error.
func (p *builtPod) workload(set *manifest.Set, component, specPath string, incomplete bool) *manifest.Workload {
	w := &manifest.Workload{Object: p.object, Component: component, SpecPath: specPath,
		Lifecycle: manifest.KeptRunning, Incomplete: incomplete}
	spec := p.spec
	w.ComposeSpec(&spec)
	for _, c := range w.Containers {
		c.ComposedFrom = p.object
	}
	p.object.Borrow(specPath, p.place)
	set.AddWorkload(w)
	return w
}

// envSources places the env the controller writes item by item: the
// first user items are the user's list at userPath, placed item for item;
// each other on where placed says, mirrored when it is a user's item too.
func (p *builtPod) envSources(containerPath string, env []corev1.EnvVar, userPath string, user int,
	placed func(name string) (path string, mirror bool)) {
	for i, variable := range env {
		under := manifest.IndexPath(containerPath+".env", i)
		if i < user {
			p.mirror(under, manifest.IndexPath(userPath, i))
			continue
		}
		if path, mirror := placed(variable.Name); mirror {
			p.mirror(under, path)
		} else {
			p.at(under, path)
		}
	}
}

// mergeEnv is the env the controller writes: the user's, then each of its
// own whose name the user's does not have (MergeEnvVars in the NIM
// operator's internal/utils/utils.go; the others merge alike).
func mergeEnv(own, user []corev1.EnvVar) []corev1.EnvVar {
	merged := append([]corev1.EnvVar(nil), user...)
	names := map[string]bool{}
	for _, variable := range user {
		names[variable.Name] = true
	}
	for _, variable := range own {
		if !names[variable.Name] {
			merged = append(merged, variable)
		}
	}
	return merged
}

// rejectedObjects are the objects the API server rejects (MDL002): no
// controller builds a pod of them.
func rejectedObjects(set *manifest.Set) map[*manifest.Object]bool {
	rejected := map[*manifest.Object]bool{}
	for _, invalid := range set.Invalid {
		rejected[invalid.Object] = true
	}
	return rejected
}

// eachSpec decodes the spec of every object of a kind and API group that
// the API server accepts, and builds its pods; build returns the notes
// for the run's -v output. A spec that does not decode is MDL002's.
func eachSpec[S any](set *manifest.Set, group, kind string, build func(*manifest.Set, *manifest.Object, *S) []string) []string {
	rejected := rejectedObjects(set)
	var notes []string
	for _, o := range set.OfKinds(kind) {
		if o.Group() != group || rejected[o] {
			continue
		}
		var spec S
		if err := o.Decode(&spec, "spec"); err != nil {
			continue
		}
		notes = append(notes, build(set, o, &spec)...)
	}
	return notes
}

// noteList is a note as a list, none when it is empty.
func noteList(note string) []string {
	if note == "" {
		return nil
	}
	return []string{note}
}
