package rules

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/gpu"
	"github.com/modellint/modellint/lint/manifest"
)

// What the rules of every family ask of a workload: its serving
// containers, volumes, resources and probes, and how to name a container.

// Skip reasons shared by the manifest rules.
const (
	skipNoModelServer   = "no model-server container"
	skipKServeReadiness = "Knative's queue-proxy checks readiness of KServe pods"
	skipKServeResources = "KServe fills in default requests and limits"
)

// servingContainers returns the model-server containers of the target. When
// there are none the pass is marked skipped: a general web app is not held
// to model-server rules, and it shows as skipped rather than passed.
func servingContainers(pass *lint.Pass) []*manifest.Container {
	var serving []*manifest.Container
	for _, container := range pass.Workload().Containers {
		if container.Serving() {
			serving = append(serving, container)
		}
	}
	if len(serving) == 0 {
		pass.Skip(skipNoModelServer)
	}
	return serving
}

// platformFillsPod reports whether a serving platform builds the pod and fills
// in what the manifest leaves out: KServe sets default requests and limits
// (the inferenceservice-config ConfigMap) and Knative's queue-proxy adds a
// readiness probe on the user port.
func platformFillsPod(w *manifest.Workload) bool {
	return w.Platform == "kserve" && w.Object.Kind != "LLMInferenceService" // its presets set no resources
}

// regularContainers are the containers that run for the pod's lifetime.
func regularContainers(w *manifest.Workload) []*manifest.Container {
	var regular []*manifest.Container
	for _, container := range w.Containers {
		if !container.Init {
			regular = append(regular, container)
		}
	}
	return regular
}

// volumePath is the field path of the pod volume at index i.
func volumePath(w *manifest.Workload, i int) string {
	return manifest.IndexPath(manifest.JoinPath(w.SpecPath, "volumes"), i)
}

// findVolume returns the pod volume with a name and its index, or -1.
func findVolume(w *manifest.Workload, name string) (*corev1.Volume, int) {
	for i := range w.Spec.Volumes {
		if w.Spec.Volumes[i].Name == name {
			return &w.Spec.Volumes[i], i
		}
	}
	return nil, -1
}

// resourcePath is the field path of one resource of a container's requests
// or limits ("requests", "limits").
func resourcePath(c *manifest.Container, list string, name corev1.ResourceName) string {
	return manifest.JoinPath(c.Path+".resources."+list, string(name))
}

// limitRangeDefault returns the default a LimitRange in the linted set gives
// containers in the namespace for a resource: field is "default" (the limit)
// or "defaultRequest". Namespaces that are not written match any namespace.
func limitRangeDefault(pass *lint.Pass, field string, name corev1.ResourceName) (resource.Quantity, bool) {
	namespace := pass.Workload().Object.Namespace
	for _, object := range pass.Objects.OfKindsIn(namespace, "LimitRange") {
		if object.Kind != "LimitRange" || object.Group() != "" {
			continue
		}
		if object.Namespace != "" && namespace != "" && object.Namespace != namespace {
			continue
		}
		var limitRange corev1.LimitRange
		if err := object.Decode(&limitRange); err != nil {
			continue
		}
		for _, item := range limitRange.Spec.Limits {
			if item.Type != corev1.LimitTypeContainer {
				continue
			}
			item = withDefaults(item) // a max is the default limit
			list := item.Default
			if field == "defaultRequest" {
				list = item.DefaultRequest
			}
			if quantity, ok := list[name]; ok {
				return quantity, true
			}
		}
	}
	return resource.Quantity{}, false
}

// describe names a container with its runtime: "container tf (TF Serving)".
func describe(c *manifest.Container) string {
	if c.Runtime == nil || c.Runtime.Title == "model server" {
		return c.Label()
	}
	return c.Label() + " (" + c.Runtime.Title + ")"
}

// argv is the container's command followed by its args.
func argv(c *manifest.Container) []string {
	return append(append([]string{}, c.Command...), c.Args...)
}

// envValues maps the container's literal env vars to their values.
func envValues(c *manifest.Container) map[string]string {
	values := map[string]string{}
	for _, env := range c.Env {
		if env.ValueFrom == nil {
			values[env.Name] = env.Value
		} else {
			delete(values, env.Name) // the last of a name written twice counts
		}
	}
	return values
}

// templateLabels returns the labels of the workload's pod template.
func templateLabels(w *manifest.Workload) map[string]string {
	if w.TemplateMetaPath == "" {
		return nil
	}
	keys := append(strings.Split(w.TemplateMetaPath, "."), "labels")
	value, ok := w.Object.Lookup(keys...)
	if !ok {
		return nil
	}
	fields, _ := value.(map[string]any)
	labels := map[string]string{}
	for key, v := range fields {
		if s, ok := v.(string); ok {
			labels[key] = s
		}
	}
	return labels
}

// probeBudget is how long a probe lets a container fail before acting:
// initialDelaySeconds + periodSeconds × failureThreshold, with defaults.
func probeBudget(probe *corev1.Probe) int32 {
	return probe.InitialDelaySeconds + orDefault(probe.PeriodSeconds, defaultPeriodSeconds)*orDefault(probe.FailureThreshold, defaultFailureThreshold)
}

func containerProbe(c *manifest.Container, kind string) *corev1.Probe {
	switch kind {
	case "readinessProbe":
		return c.ReadinessProbe
	case "livenessProbe":
		return c.LivenessProbe
	}
	return c.StartupProbe
}

// requestedAccelerator is the accelerator a container requests and how
// many (gpu.Requested: the configured GPU resource, NVIDIA's shared GPUs
// and MIG slices, AMD's, Intel's Gaudi and Google's TPU); ok is false when
// it requests none.
func requestedAccelerator(pass *lint.Pass, c *manifest.Container) (resource corev1.ResourceName, count int64, ok bool) {
	return gpu.Requested(c.Resources, corev1.ResourceName(pass.Config.GPUResourceName()))
}

// requestsAccelerator reports whether a container requests an accelerator
// of any kind: the server's weights and caches go to it.
func requestsAccelerator(pass *lint.Pass, c *manifest.Container) bool {
	_, _, ok := requestedAccelerator(pass, c)
	return ok
}

// requestsNVIDIA reports whether a container requests an NVIDIA GPU, on
// which CUDA runs: a whole one, a shared replica or a MIG slice.
func requestsNVIDIA(pass *lint.Pass, c *manifest.Container) (corev1.ResourceName, bool) {
	resource, _, ok := requestedAccelerator(pass, c)
	return resource, ok && gpu.IsNVIDIA(resource)
}

// visibleDevices is how many of the accelerators it requests a process in
// the container sees: all of them, but one MIG slice however many it
// gets, as a CUDA process enumerates one MIG instance (NVIDIA's MIG user
// guide, "CUDA Device Enumeration").
func visibleDevices(pass *lint.Pass, c *manifest.Container) (corev1.ResourceName, int64) {
	resource, count, ok := requestedAccelerator(pass, c)
	switch {
	case !ok:
		return "", 0
	case gpu.IsMIG(resource):
		return resource, 1
	}
	return resource, count
}
