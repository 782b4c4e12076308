package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Kinds modellint has no extractor for are read generically: a map that
// holds a "containers" list of maps with an "image" is a pod spec (a pod
// template's spec, an operator's extraPodSpec), and linted as a pod, so
// that serving operators' kinds (Dynamo, AIBrix, OME, KubeAI, llmaz …)
// are not passed over in silence. So is a map that holds its main
// container as a single map under one of singleContainerKeys, with the
// pod fields of that map. A -v note names what was read.

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

// singleContainerKeys are the keys under which operators hold a pod's main
// container as one map beside the pod's fields, rather than in a
// containers list: Dynamo's extraPodSpec.mainContainer
// (deploy/cloud/operator/api/dynamo/common in ai-dynamo/dynamo) and OME's
// runner of an engineConfig, decoderConfig, routerConfig, leader or worker
// (pkg/apis/ome/v1beta1 in sgl-project/ome). injectedEnv are the env vars
// the operator of group adds to that container: OME gives the runner
// MODEL_PATH, the base model's path, which its runtimes pass as
// $(MODEL_PATH) (UpdateEnvVariables in
// pkg/controller/v1beta1/inferenceservice/components/base.go).
var singleContainerKeys = []struct {
	key         string
	group       string
	injectedEnv []string
}{
	{key: "mainContainer"},
	{key: "runner", group: "ome.io", injectedEnv: []string{"MODEL_PATH"}},
}

// genericPod is a pod spec found in a generic kind: its path, the path of
// the template metadata beside it ("" when there is none), and the path of
// its main container when it is a single map ("" for a containers list).
type genericPod struct{ spec, meta, container string }

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
			container := singleContainer(value)
			if (container != "" || holdsContainers(value["containers"])) && path != "" {
				pod := genericPod{spec: path}
				if container != "" {
					pod.container = JoinPath(path, container)
				}
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

// singleContainer is the key of pod's main container when pod holds it as
// a single map that names an image, "" when it does not.
func singleContainer(pod map[string]any) string {
	for _, single := range singleContainerKeys {
		if container, ok := pod[single.key].(map[string]any); ok {
			if image, ok := container["image"].(string); ok && image != "" {
				return single.key
			}
		}
	}
	return ""
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
	if pod.container != "" && !withMainContainer(w, source, spec, strings.TrimPrefix(strings.TrimPrefix(pod.container, base), ".")) {
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
	if strings.Contains(pod.spec, "leaderWorkerTemplate.") {
		// A LeaderWorkerSet's templates held by another kind (llmaz's
		// Service, a DisaggregatedSet): its controller makes that
		// LeaderWorkerSet, whose webhook adds its env to the pods.
		w.injectLWSEnv()
	}
	return w
}

// withMainContainer puts the main container held as a single map at path
// first among the containers of w, whose spec is at specPath; false when
// it does not decode.
func withMainContainer(w *Workload, o *Object, specPath, path string) bool {
	var decoded corev1.Container
	if err := o.Decode(&decoded, splitPath(path)...); err != nil {
		return false
	}
	w.Spec.Containers = append([]corev1.Container{decoded}, w.Spec.Containers...)
	w.Containers = nil
	for i := range w.Spec.InitContainers {
		w.addContainer(&w.Spec.InitContainers[i], IndexPath(JoinPath(specPath, "initContainers"), i), true)
	}
	main := w.addContainer(&w.Spec.Containers[0], path, false)
	for _, single := range singleContainerKeys {
		if (path == single.key || strings.HasSuffix(path, "."+single.key)) && o.Group() == single.group {
			main.inject(single.injectedEnv...)
		}
	}
	for i := 1; i < len(w.Spec.Containers); i++ {
		w.addContainer(&w.Spec.Containers[i], IndexPath(JoinPath(specPath, "containers"), i-1), false)
	}
	return true
}

// GenericNote says which pod specs of an object of a kind read
// generically were linted.
func GenericNote(o *Object) string {
	var paths []string
	for _, pod := range genericPods(o) {
		if pod.container != "" {
			paths = append(paths, pod.spec+" with its container "+pod.container)
		} else {
			paths = append(paths, pod.spec)
		}
	}
	if len(paths) == 0 {
		return ""
	}
	return fmt.Sprintf("a kind modellint has no reader for, linted as a pod at %s (the fields a pod spec has; "+
		"what its controller adds is not known)", strings.Join(paths, ", "))
}
