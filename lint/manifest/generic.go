package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Kinds modellint has no extractor for are read generically: a map that
// holds a "containers" list of maps with an "image" is a pod spec (a pod
// template's spec, an operator's extraPodSpec), and linted as a pod, so
// that serving operators' kinds (Dynamo, AIBrix, OME, KubeAI, llmaz …)
// are not passed over in silence. A -v note names what was read.

// Bounds of the search: operators' specs nest pod specs a few levels deep.
const (
	maxGenericDepth = 12
	maxGenericPods  = 16
)

// isGenericKind reports whether the object is of a custom resource kind
// that no extractor reads: its group is a domain that is not Kubernetes'
// own.
func isGenericKind(o *Object) bool {
	group := o.Group()
	key := group + "/" + o.Kind
	if _, known := podTemplates[key]; known {
		return false
	}
	if _, known := multiTemplateKinds[key]; known {
		return false
	}
	if _, known := notLintedKinds[key]; known {
		return false
	}
	return strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io")
}

// genericPod is a pod spec found in a generic kind: its path, and the path
// of the template metadata beside it ("" when there is none).
type genericPod struct{ spec, meta string }

// GenericPodPaths are the field paths of the pod specs of an object of a
// kind read generically, in document order; none for other kinds.
func GenericPodPaths(o *Object) []string {
	var paths []string
	for _, pod := range genericPods(o) {
		paths = append(paths, pod.spec)
	}
	return paths
}

func genericPods(o *Object) []genericPod {
	if !isGenericKind(o) {
		return nil
	}
	var pods []genericPod
	plain := o.Plain() // built from the field table at each call: once here
	var visit func(value any, path string, depth int)
	visit = func(value any, path string, depth int) {
		if depth > maxGenericDepth || len(pods) == maxGenericPods {
			return
		}
		switch value := value.(type) {
		case map[string]any:
			if holdsContainers(value["containers"]) && path != "" {
				pod := genericPod{spec: path}
				if parent, ok := strings.CutSuffix(path, ".spec"); ok {
					if _, hasMeta := ValueAt(plain, parent+".metadata"); hasMeta {
						pod.meta = parent + ".metadata"
					}
				}
				pods = append(pods, pod)
				return
			}
			for _, key := range slices.Sorted(maps.Keys(value)) {
				if key == "metadata" || key == "status" || strings.ContainsAny(key, ".[]\"") {
					continue
				}
				visit(value[key], JoinPath(path, key), depth+1)
			}
		case []any:
			for i, item := range value {
				visit(item, IndexPath(path, i), depth+1)
			}
		}
	}
	visit(plain, "", 0)
	return pods
}

// holdsContainers reports whether value is a non-empty list of maps that
// each name an image, as a pod spec's containers do.
func holdsContainers(value any) bool {
	list, ok := value.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	for _, item := range list {
		container, ok := item.(map[string]any)
		if !ok {
			return false
		}
		if image, ok := container["image"].(string); !ok || image == "" {
			return false
		}
	}
	return true
}

// genericWorkloads reads the pod specs of an object of a kind read
// generically. A spec under a list element is read through an object
// based there, as SeldonDeployment's componentSpecs are. A pod spec that
// does not decode is left out: the kind is not known well enough to call
// it an error.
func genericWorkloads(o *Object) ([]*Workload, error) {
	var workloads []*Workload
	for _, pod := range genericPods(o) {
		w := genericWorkload(o, pod)
		if w != nil {
			w.Lifecycle, w.Incomplete = KeptRunning, true
			workloads = append(workloads, w)
		}
	}
	return workloads, nil
}

func genericWorkload(o *Object, pod genericPod) *Workload {
	base, spec := "", pod.spec
	if cut := strings.LastIndexByte(pod.spec, ']'); cut >= 0 {
		base, spec = pod.spec[:cut+1], strings.TrimPrefix(pod.spec[cut+1:], ".")
	}
	meta := ""
	if pod.meta != "" {
		meta = strings.TrimPrefix(strings.TrimPrefix(pod.meta, base), ".")
	}
	source := o
	if base != "" {
		source = &Object{File: o.File, Doc: o.Doc, Base: o.FullPath(base), APIVersion: o.APIVersion, Kind: o.Kind,
			Name: o.Name, Namespace: o.Namespace}
	}
	w, err := newWorkload(source, pod.spec, spec, meta)
	if err != nil || w == nil {
		return nil
	}
	if base != "" {
		w.Object, w.SpecPath = o, pod.spec
		if pod.meta != "" {
			w.TemplateMetaPath = pod.meta
		}
		for _, container := range w.Containers {
			container.Path = base + "." + container.Path
		}
	}
	return w
}

// GenericNote says which pod specs of an object of a kind read
// generically were linted.
func GenericNote(o *Object) string {
	paths := GenericPodPaths(o)
	if len(paths) == 0 {
		return ""
	}
	return fmt.Sprintf("a kind modellint has no reader for, linted as a pod at %s (the fields a pod spec has; "+
		"what its controller adds is not known)", strings.Join(paths, ", "))
}
