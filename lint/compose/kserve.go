package compose

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

// What KServe calls things (pkg/constants/constants.go).
const (
	kserveGroup = "serving.kserve.io"
	// servingContainer is the container of a ServingRuntime that the
	// predictor's model spec is merged into.
	servingContainer = "kserve-container"
	// modelMountPath is where the model of a storageUri lands.
	modelMountPath = "/mnt/models"
	// pvcVolume is the volume of a pvc:// storageUri, mounted in place.
	pvcVolume = "kserve-pvc-source"
	// downloadVolume is the emptyDir the storage initializer (or the
	// modelcar of oci://) fills for other schemes.
	downloadVolume = "kserve-provision-location"
)

// modelPath is the model shorthand of an InferenceService's predictor.
const modelPath = "spec.predictor.model"

// KServe composes the pods KServe builds from several objects of the set:
// the predictor of each InferenceService whose model spec names a runtime
// the set holds, merged over that runtime's kserve-container, and the
// volume a storageUri (an LLMInferenceService's model.uri) puts the model
// in at /mnt/models. The ServingRuntimes some predictor was composed with
// are no workloads of their own any more: alone they are no pod. It
// returns notes for the run's -v output.
func KServe(set *manifest.Set) ([]string, error) {
	k := &kserve{set: set, runtimes: map[*manifest.Object]*runtime{}, used: map[*manifest.Object]bool{}}
	var notes []string
	for _, w := range set.Workloads {
		switch {
		case w.Object.Group() == kserveGroup && w.Object.Kind == "InferenceService" && w.Component == "predictor":
			note, err := k.predictor(w)
			if err != nil {
				return nil, err
			}
			if note != "" {
				notes = append(notes, note)
			}
		case w.Object.Group() == kserveGroup && w.Object.Kind == "InferenceService":
			if err := customStorage(w); err != nil {
				return nil, err
			}
		case w.Object.Group() == kserveGroup && w.Object.Kind == "LLMInferenceService" && w.ModelURI != "":
			if err := k.llmModel(w); err != nil {
				return nil, err
			}
		}
	}
	dropUsed(set, k.used)
	return notes, nil
}

// dropUsed drops the workloads of the objects some pod was composed with
// (a ServingRuntime, a ServerConfig): alone they are no pod.
func dropUsed(set *manifest.Set, used map[*manifest.Object]bool) {
	if len(used) == 0 {
		return
	}
	kept := set.Workloads[:0]
	for _, w := range set.Workloads {
		if used[w.Object] {
			w.Done()
			continue
		}
		kept = append(kept, w)
	}
	clear(set.Workloads[len(kept):])
	set.Workloads = kept
}

type kserve struct {
	set *manifest.Set
	// runtimes are the ServingRuntimes and ClusterServingRuntimes read so
	// far, nil for those that could not be.
	runtimes map[*manifest.Object]*runtime
	// used are the runtimes some predictor was composed with.
	used map[*manifest.Object]bool
}

// runtime is what a ServingRuntime says of the pods made with it
// (pkg/apis/serving/v1alpha1/servingruntime_types.go).
type runtime struct {
	object *manifest.Object
	spec   struct {
		SupportedModelFormats []struct {
			Name       string  `json:"name"`
			Version    *string `json:"version"`
			AutoSelect *bool   `json:"autoSelect"`
			Priority   *int32  `json:"priority"`
		} `json:"supportedModelFormats"`
		ProtocolVersions []string                      `json:"protocolVersions"`
		MultiModel       *bool                         `json:"multiModel"`
		Disabled         *bool                         `json:"disabled"`
		WorkerSpec       any                           `json:"workerSpec"`
		Containers       []corev1.Container            `json:"containers"`
		Volumes          []corev1.Volume               `json:"volumes"`
		NodeSelector     map[string]string             `json:"nodeSelector"`
		Tolerations      []corev1.Toleration           `json:"tolerations"`
		Affinity         *corev1.Affinity              `json:"affinity"`
		ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets"`
	}
}

// modelSpec is the part of a predictor's model spec that selects the
// runtime (pkg/apis/serving/v1beta1/predictor_model.go).
type modelSpec struct {
	ModelFormat struct {
		Name    string  `json:"name"`
		Version *string `json:"version"`
	} `json:"modelFormat"`
	Runtime         *string `json:"runtime"`
	ProtocolVersion *string `json:"protocolVersion"`
	StorageURI      string  `json:"storageUri"`
}

// runtime reads a ServingRuntime or ClusterServingRuntime once; nil when
// its spec does not decode (MDL002 reports that).
func (k *kserve) runtime(o *manifest.Object) *runtime {
	if r, ok := k.runtimes[o]; ok {
		return r
	}
	r := &runtime{object: o}
	if err := o.Decode(&r.spec, "spec"); err != nil {
		r = nil
	}
	k.runtimes[o] = r
	return r
}

// predictor composes the predictor's model spec with its runtime and mounts
// its storageUri; the note says why a model spec was not composed.
func (k *kserve) predictor(w *manifest.Workload) (string, error) {
	shorthand := modelContainer(w)
	if shorthand == nil {
		if err := k.frameworkStorage(w); err != nil {
			return "", err
		}
		return "", customStorage(w)
	}
	isvc := w.Object
	var model modelSpec
	if err := isvc.Decode(&model, "spec", "predictor", "model"); err != nil {
		return "", nil // the API server rejects it: reported as MDL002
	}
	r, why := k.selectRuntime(isvc, model)
	if r == nil {
		if err := mountStorage(w, shorthand, model.StorageURI, modelPath+".storageUri", true); err != nil {
			return "", err
		}
		return fmt.Sprintf("%s: %s, so its model container is linted without the runtime's image, command, ports "+
			"and volumes", w.Name(), why), nil
	}
	if err := compose(w, shorthand, r); err != nil {
		return "", err
	}
	k.used[r.object] = true
	return "", mountStorage(w, shorthand, model.StorageURI, modelPath+".storageUri", true)
}

// frameworkStorage mounts the storageUri of the older per-framework
// shorthands (spec.predictor.sklearn, .tensorflow …): KServe's storage
// initializer fills /mnt/models for them as for model:. They are not
// composed with a runtime here.
func (k *kserve) frameworkStorage(w *manifest.Workload) error {
	for _, c := range w.Containers {
		if !c.FromServingRuntime || c.Init {
			continue
		}
		value, _ := w.Object.Lookup(append(strings.Split(c.Path, "."), "storageUri")...)
		if uri, _ := value.(string); uri != "" {
			if err := mountStorage(w, c, uri, c.Path+".storageUri", true); err != nil {
				return err
			}
		}
	}
	return nil
}

// modelContainer is the container of the predictor's model shorthand
// (spec.predictor.model), nil when the predictor has none.
func modelContainer(w *manifest.Workload) *manifest.Container {
	for _, c := range w.Containers {
		if c.FromServingRuntime && c.Path == modelPath {
			return c
		}
	}
	return nil
}

// selectRuntime picks the runtime KServe would run the model with, from the
// runtimes in the set (reconcileModel in
// pkg/controller/v1beta1/inferenceservice/components/predictor.go): the one
// runtime: names, a ServingRuntime of the namespace before a
// ClusterServingRuntime (utils.GetServingRuntime); else the enabled
// single-model runtimes whose supportedModelFormats with autoSelect name
// the model's format (and version), the namespace's first, each kind by
// priority for the format, highest first (ModelSpec.GetSupportingRuntimes).
// Creation times are unknown in files, so ties go by name. why says why
// none was picked.
func (k *kserve) selectRuntime(isvc *manifest.Object, model modelSpec) (*runtime, string) {
	multiNode := false
	if _, ok := isvc.Lookup("spec", "predictor", "workerSpec"); ok {
		multiNode = true
	}
	if model.Runtime != nil {
		name := *model.Runtime
		var r *runtime
		if o := k.set.Find("ServingRuntime", isvc.Namespace, name); o != nil && o.Group() == kserveGroup {
			r = k.runtime(o)
		} else if o := k.set.Find("ClusterServingRuntime", "", name); o != nil && o.Group() == kserveGroup {
			r = k.runtime(o)
		}
		switch {
		case r == nil:
			return nil, fmt.Sprintf("runtime %q is not in the linted files", name)
		case r.disabled():
			return nil, fmt.Sprintf("runtime %q is disabled", name)
		case !r.supports(model, true):
			return nil, fmt.Sprintf("runtime %q does not list model format %q", name, model.ModelFormat.Name)
		case !r.speaks(model):
			protocol := protocolOf(model)
			if model.ProtocolVersion == nil {
				protocol += " (KServe's default, as the predictor sets no protocolVersion)"
			}
			return nil, fmt.Sprintf("runtime %q does not list protocol %s", name, protocol)
		}
		return r, ""
	}
	if model.ModelFormat.Name == "" {
		return nil, "no modelFormat or runtime names its runtime"
	}
	candidates := func(kind, namespace string) []*runtime {
		var found []*runtime
		for _, o := range k.set.OfKindsIn(namespace, kind) {
			r := k.runtime(o)
			if o.Group() != kserveGroup || r == nil || r.disabled() || r.multiModel() || r.multiNode() != multiNode ||
				!r.supports(model, false) || !r.speaks(model) {
				continue
			}
			found = append(found, r)
		}
		sort.SliceStable(found, func(i, j int) bool { return found[i].object.Name < found[j].object.Name })
		sort.SliceStable(found, func(i, j int) bool {
			p, q := found[i].priority(model.ModelFormat.Name), found[j].priority(model.ModelFormat.Name)
			return p != nil && (q == nil || *p > *q)
		})
		return found
	}
	found := append(candidates("ServingRuntime", isvc.Namespace), candidates("ClusterServingRuntime", "")...)
	if len(found) == 0 {
		return nil, fmt.Sprintf("no ServingRuntime or ClusterServingRuntime in the linted files auto-selects model format %q",
			model.ModelFormat.Name)
	}
	return found[0], ""
}

func (r *runtime) disabled() bool   { return r.spec.Disabled != nil && *r.spec.Disabled }
func (r *runtime) multiModel() bool { return r.spec.MultiModel != nil && *r.spec.MultiModel }
func (r *runtime) multiNode() bool  { return r.spec.WorkerSpec != nil }

// supports reports whether the runtime serves the model's format: any
// format it lists when the model names it, only those with autoSelect
// otherwise (ModelSpec.RuntimeSupportsModel).
func (r *runtime) supports(model modelSpec, named bool) bool {
	for _, format := range r.spec.SupportedModelFormats {
		if !named && (format.AutoSelect == nil || !*format.AutoSelect) {
			continue
		}
		if format.Name != model.ModelFormat.Name {
			continue
		}
		if model.ModelFormat.Version == nil || format.Version != nil && *format.Version == *model.ModelFormat.Version {
			return true
		}
	}
	return false
}

// speaks reports whether the runtime serves the protocol the model spec
// gets: the one it writes, else v2 for the triton format (KServe's
// defaulting webhook, inference_service_defaults.go), else v1
// (ModelSpec.GetProtocol). A runtime that lists no protocols serves any
// (ServingRuntimeSpec.IsProtocolVersionSupported).
func (r *runtime) speaks(model modelSpec) bool {
	if len(r.spec.ProtocolVersions) == 0 {
		return true
	}
	return slices.Contains(r.spec.ProtocolVersions, protocolOf(model))
}

// protocolOf is the protocol the predictor asks for: its protocolVersion,
// else v2 for the triton format and v1 for the others.
func protocolOf(model modelSpec) string {
	switch {
	case model.ProtocolVersion != nil:
		return *model.ProtocolVersion
	case model.ModelFormat.Name == "triton":
		return "v2"
	}
	return "v1"
}

func (r *runtime) priority(format string) *int32 {
	for _, f := range r.spec.SupportedModelFormats {
		if f.Name == format {
			return f.Priority
		}
	}
	return nil
}

// keep holds the workload's typed fields for the rest of the run: the
// composed container and pod spec are not the object's decode, which a
// later Hold would otherwise put back.
func keep(w *manifest.Workload) error {
	return w.Hold()
}

// compose merges the predictor's model container over the runtime's
// kserve-container, and the runtime's pod fields into the predictor's pod
// spec, as KServe's buildPodSpec does
// (utils.MergeServingRuntimeAndInferenceServiceSpecs): the model spec's
// fields over the runtime's by strategic merge (env by name, ports by
// containerPort, volumeMounts by mountPath, resources by key), its args
// after the runtime's, then the runtime's {{.Name}}-style placeholders
// filled from the InferenceService's metadata (utils.ReplacePlaceholders).
func compose(w *manifest.Workload, shorthand *manifest.Container, r *runtime) error {
	index := slices.IndexFunc(r.spec.Containers, func(c corev1.Container) bool { return c.Name == servingContainer })
	if index < 0 {
		return nil // KServe fails the predictor: "failed to find kserve-container in ServingRuntime containers"
	}
	if err := keep(w); err != nil {
		return err
	}
	isvc := w.Object
	own := manifest.FieldSource{Object: isvc, Path: shorthand.Path}
	other := manifest.FieldSource{Object: r.object, Path: manifest.IndexPath("spec.containers", index)}
	merged, sources := mergeContainer(r.spec.Containers[index], *shorthand.Container, own, other)
	fillPlaceholders(&merged, isvc)
	shorthand.Container = &merged
	shorthand.Image = merged.Image
	shorthand.FromServingRuntime = false
	shorthand.ComposedFrom = r.object
	// The format's runtime counts until the composed container's own image
	// and command say which server it is (the engine settles it).
	if detected := server.Detect(merged.Image, merged.Command, merged.Args); detected != nil {
		shorthand.Runtime = detected
	}
	isvc.Borrow(shorthand.Path, sources.place)

	spec := *w.Spec
	volumes := manifest.FieldSource{Object: r.object, Path: "spec.volumes"}
	volumeSources := &placement{own: manifest.FieldSource{Object: isvc, Path: manifest.JoinPath(w.SpecPath, "volumes")}, other: volumes,
		lists: map[string][]manifest.FieldSource{}}
	spec.Volumes = slices.Clone(spec.Volumes)
	for i := range spec.Volumes {
		volumeSources.lists[""] = append(volumeSources.lists[""], manifest.FieldSource{Object: isvc,
			Path: manifest.IndexPath(volumeSources.own.Path, i)})
	}
	for i, volume := range r.spec.Volumes {
		if !slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == volume.Name }) {
			spec.Volumes = append(spec.Volumes, volume)
			volumeSources.lists[""] = append(volumeSources.lists[""], manifest.FieldSource{Object: r.object,
				Path: manifest.IndexPath(volumes.Path, i)})
		}
	}
	isvc.Borrow(volumeSources.own.Path, volumeSources.place)
	// MergePodSpec: the predictor's fields over the runtime's.
	if spec.NodeSelector == nil {
		spec.NodeSelector = r.spec.NodeSelector
	}
	if spec.Tolerations == nil {
		spec.Tolerations = r.spec.Tolerations
	}
	if spec.Affinity == nil {
		spec.Affinity = r.spec.Affinity
	}
	if spec.ImagePullSecrets == nil {
		spec.ImagePullSecrets = r.spec.ImagePullSecrets
	}
	w.Spec = &spec
	return nil
}

// mergeContainer merges the model spec's container over the runtime's
// (utils.MergeRuntimeContainers): what the model spec writes wins, lists
// merge by their keys, args are the runtime's and then the model spec's.
// The placement says which object wrote each field of the result.
func mergeContainer(base, overlay corev1.Container, own, other manifest.FieldSource) (corev1.Container, *placement) {
	merged := base
	p := &placement{own: own, other: other, lists: map[string][]manifest.FieldSource{}}
	if overlay.Image != "" {
		merged.Image = overlay.Image
	}
	if overlay.Command != nil {
		merged.Command = overlay.Command
	}
	if overlay.WorkingDir != "" {
		merged.WorkingDir = overlay.WorkingDir
	}
	for _, field := range []struct{ into, from **corev1.Probe }{
		{&merged.LivenessProbe, &overlay.LivenessProbe}, {&merged.ReadinessProbe, &overlay.ReadinessProbe},
		{&merged.StartupProbe, &overlay.StartupProbe},
	} {
		if *field.from != nil {
			*field.into = *field.from
		}
	}
	if overlay.SecurityContext != nil {
		merged.SecurityContext = overlay.SecurityContext
	}
	if overlay.Lifecycle != nil {
		merged.Lifecycle = overlay.Lifecycle
	}
	if overlay.ImagePullPolicy != "" {
		merged.ImagePullPolicy = overlay.ImagePullPolicy
	}
	if overlay.EnvFrom != nil {
		merged.EnvFrom = overlay.EnvFrom
	}

	merged.Args = append(slices.Clone(base.Args), overlay.Args...)
	p.lists["args"] = append(elements(other, "args", len(base.Args)), elements(own, "args", len(overlay.Args))...)
	merged.Env, p.lists["env"] = mergeByKey(base.Env, overlay.Env, own, other, "env",
		func(e corev1.EnvVar) string { return e.Name })
	merged.Ports, p.lists["ports"] = mergeByKey(base.Ports, overlay.Ports, own, other, "ports",
		func(port corev1.ContainerPort) string { return fmt.Sprint(port.ContainerPort) })
	merged.VolumeMounts, p.lists["volumeMounts"] = mergeByKey(base.VolumeMounts, overlay.VolumeMounts, own, other,
		"volumeMounts", func(m corev1.VolumeMount) string { return m.MountPath })
	merged.Resources = corev1.ResourceRequirements{
		Limits:   mergeResources(base.Resources.Limits, overlay.Resources.Limits),
		Requests: mergeResources(base.Resources.Requests, overlay.Resources.Requests),
		Claims:   base.Resources.Claims,
	}
	if overlay.Resources.Claims != nil {
		merged.Resources.Claims = overlay.Resources.Claims
	}
	return merged, p
}

// elements are the sources of the first n items of a list field.
func elements(at manifest.FieldSource, field string, n int) []manifest.FieldSource {
	sources := make([]manifest.FieldSource, n)
	for i := range sources {
		sources[i] = manifest.FieldSource{Object: at.Object, Path: manifest.IndexPath(manifest.JoinPath(at.Path, field), i)}
	}
	return sources
}

// mergeByKey merges two lists by a key as a strategic merge patch does: the
// base's items in their order, each replaced by the overlay's of the same
// key, then the overlay's new items; with the source of each item.
func mergeByKey[T any](base, overlay []T, own, other manifest.FieldSource, field string, key func(T) string) ([]T, []manifest.FieldSource) {
	baseSources, overlaySources := elements(other, field, len(base)), elements(own, field, len(overlay))
	var merged []T
	var sources []manifest.FieldSource
	overridden := map[int]bool{}
	for i, item := range base {
		if j := slices.IndexFunc(overlay, func(o T) bool { return key(o) == key(item) }); j >= 0 {
			merged, sources = append(merged, overlay[j]), append(sources, overlaySources[j])
			overridden[j] = true
			continue
		}
		merged, sources = append(merged, item), append(sources, baseSources[i])
	}
	for j, item := range overlay {
		if !overridden[j] {
			merged, sources = append(merged, item), append(sources, overlaySources[j])
		}
	}
	return merged, sources
}

func mergeResources(base, overlay corev1.ResourceList) corev1.ResourceList {
	if base == nil && overlay == nil {
		return nil
	}
	merged := corev1.ResourceList{}
	for name, quantity := range base {
		merged[name] = quantity
	}
	for name, quantity := range overlay {
		merged[name] = quantity
	}
	return merged
}

// placement says which object wrote each field of a composition: the items
// of merged lists by their sources, any other field in the object that
// wrote more of its path, the manifest's (own) on a tie, so a missing
// field is reported where a user adds it.
type placement struct {
	own, other manifest.FieldSource
	// lists are the sources of the items of merged lists, by the list's
	// key ("" for a composition that is itself a list).
	lists map[string][]manifest.FieldSource
}

func (p *placement) place(rest string) (manifest.FieldSource, bool) {
	key, after := splitFirstKey(rest)
	if sources, ok := p.lists[key]; ok {
		if index, tail, ok := leadingIndex(after); ok && index < len(sources) {
			source := sources[index]
			return manifest.FieldSource{Object: source.Object, Path: source.Path + tail}, true
		}
	}
	ownWritten := len(p.own.Object.Written(p.own.Path+rest)) - len(p.own.Path)
	otherWritten := len(p.other.Object.Written(p.other.Path+rest)) - len(p.other.Path)
	if otherWritten > ownWritten {
		return manifest.FieldSource{Object: p.other.Object, Path: p.other.Path + rest}, true
	}
	return manifest.FieldSource{Object: p.own.Object, Path: p.own.Path + rest}, true
}

// splitFirstKey splits ".env[2].value" into "env" and "[2].value", and
// "[2].name" into "" and "[2].name".
func splitFirstKey(rest string) (string, string) {
	if !strings.HasPrefix(rest, ".") {
		return "", rest
	}
	rest = rest[1:]
	if i := strings.IndexAny(rest, ".["); i >= 0 {
		return rest[:i], rest[i:]
	}
	return rest, ""
}

// leadingIndex splits "[2].value" into 2 and ".value".
func leadingIndex(rest string) (int, string, bool) {
	if !strings.HasPrefix(rest, "[") {
		return 0, "", false
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return 0, "", false
	}
	index := 0
	for _, digit := range rest[1:end] {
		if digit < '0' || digit > '9' || index > 1<<20 {
			return 0, "", false
		}
		index = index*10 + int(digit-'0')
	}
	return index, rest[end+1:], end > 1
}
