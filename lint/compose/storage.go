package compose

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/modellint/modellint/lint/manifest"
)

// kserveVersion is the KServe release whose storage initializer is
// composed: its Helm chart's appVersion, the tag of the image.
const kserveVersion = "v0.19.0"

// What KServe calls the storage initializer (pkg/constants/constants.go).
const (
	storageInitializerName = "storage-initializer"
	// storageURIEnv is the env var of a custom container (a transformer's,
	// a custom predictor's kserve-container) that names its storage URI
	// (CustomSpecStorageUriEnvVarKey).
	storageURIEnv = "STORAGE_URI"
)

// mountStorage gives the serving container the volume KServe puts the
// model of a storage URI in, at /mnt/models
// (pkg/webhook/admission/pod/storage_initializer_injector.go): a pvc://NAME/PATH
// claim mounted in place with PATH as its subPath, for other schemes the
// emptyDir the storage-initializer init container (the modelcar for
// oci://) downloads into; with initializer set, that init container too
// (addStorageInitializer). The mount, the volume and the init container
// are placed at field, where the URI is written. A container that mounts
// something at /mnt/models itself keeps it.
func mountStorage(w *manifest.Workload, c *manifest.Container, uri, field string, initializer bool) error {
	if uri == "" {
		return nil
	}
	if err := keep(w); err != nil {
		return err
	}
	if slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
		return strings.TrimRight(m.MountPath, "/") == modelMountPath
	}) {
		return nil
	}
	volume := corev1.Volume{Name: downloadVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	mount := corev1.VolumeMount{Name: downloadVolume, MountPath: modelMountPath}
	if claim, ok := strings.CutPrefix(uri, "pvc://"); ok {
		name, subPath, _ := strings.Cut(claim, "/")
		volume = corev1.Volume{Name: pvcVolume, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}
		mount = corev1.VolumeMount{Name: pvcVolume, MountPath: modelMountPath, SubPath: strings.Trim(subPath, "/")}
	}
	at := manifest.FieldSource{Object: w.Object, Path: field}
	if initializer && volume.EmptyDir != nil && !isOCI(uri) {
		addStorageInitializer(w, uri, at)
	}
	container := *c.Container
	container.VolumeMounts = append(slices.Clone(container.VolumeMounts), mount)
	c.Container = &container
	w.Object.Borrow(manifest.IndexPath(c.Path+".volumeMounts", len(container.VolumeMounts)-1), writtenAt(at))
	if !slices.ContainsFunc(w.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == volume.Name }) {
		spec := *w.Spec
		spec.Volumes = append(slices.Clone(spec.Volumes), volume)
		w.Spec = &spec
		w.Object.Borrow(manifest.IndexPath(manifest.JoinPath(w.SpecPath, "volumes"), len(spec.Volumes)-1), writtenAt(at))
	}
	return nil
}

// customStorage gives a component's custom container the model its
// STORAGE_URI env var names, as KServe does for a transformer, an explainer
// and a predictor without a model spec (GetStorageUri in
// pkg/apis/serving/v1beta1/*_custom.go): the component's reconciler hands
// the URI to the storage initializer's webhook, which mounts it at
// /mnt/models in the container and sets the env var to /mnt/models
// (CommonStorageInitialization). The container is the one KServe names
// kserve-container (storageURIContainer).
func customStorage(w *manifest.Workload) error {
	if !namesStorageURI(w) {
		return nil
	}
	if err := keep(w); err != nil {
		return err
	}
	c := storageURIContainer(w)
	if c == nil {
		return nil
	}
	index := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == storageURIEnv })
	if index < 0 || c.Env[index].Value == "" {
		return nil
	}
	uri := c.Env[index].Value
	field := manifest.IndexPath(c.Path+".env", index)
	if err := mountStorage(w, c, uri, field, true); err != nil {
		return err
	}
	container := *c.Container
	container.Env = slices.Clone(container.Env)
	container.Env[index].Value = modelMountPath
	c.Container = &container
	return nil
}

// namesStorageURI reports whether a container of the component sets
// STORAGE_URI, read from the object: the typed containers are only there
// while the workload is held.
func namesStorageURI(w *manifest.Workload) bool {
	value, _ := w.Object.Lookup(append(strings.Split(w.SpecPath, "."), "containers")...)
	containers, _ := value.([]any)
	for _, item := range containers {
		container, _ := item.(map[string]any)
		env, _ := container["env"].([]any)
		for _, variable := range env {
			if fields, _ := variable.(map[string]any); fields["name"] == storageURIEnv {
				return true
			}
		}
	}
	return false
}

// storageURIContainer is the container whose STORAGE_URI KServe reads: a
// transformer's or explainer's first container, which KServe names
// kserve-container; a custom predictor's kserve-container, the name KServe
// gives its first container when it is the only one or has no name
// (CustomPredictor.Default). nil when there is none.
func storageURIContainer(w *manifest.Workload) *manifest.Container {
	var regular []*manifest.Container
	for _, c := range w.Containers {
		if !c.Init && !c.FromServingRuntime {
			regular = append(regular, c)
		}
	}
	if len(regular) == 0 || len(regular) != len(w.Spec.Containers) {
		return nil // a shorthand's container, or one composed with a runtime
	}
	if w.Component != "predictor" {
		return regular[0]
	}
	for i, c := range regular {
		if c.Name == servingContainer || i == 0 && (len(regular) == 1 || c.Name == "") {
			return c
		}
	}
	return nil
}

// llmModel mounts an LLMInferenceService's spec.model.uri in its main
// containers, into which the presets merge the server, as KServe's
// attachModelArtifacts does (pkg/controller/v1alpha2/llmisvc).
func (k *kserve) llmModel(w *manifest.Workload) error {
	for _, c := range w.Containers {
		if c.FromServingRuntime && !c.Init {
			if err := mountStorage(w, c, w.ModelURI, w.ModelURIPath, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// writtenAt places every field of a composition at one source: what a
// controller adds is placed where the field that made it add it is.
func writtenAt(source manifest.FieldSource) func(string) (manifest.FieldSource, bool) {
	return func(string) (manifest.FieldSource, bool) { return source, true }
}

// isOCI reports whether a storage URI names an OCI image (oci://, and the
// oci+native:// and oci+fetch:// of newer releases), which KServe's modelcar
// serves instead of the storage initializer (utils.ParseOciScheme).
func isOCI(uri string) bool {
	scheme, _, ok := strings.Cut(uri, "://")
	return ok && (scheme == "oci" || strings.HasPrefix(scheme, "oci+"))
}

// addStorageInitializer adds the init container KServe's webhook injects
// into a pod whose storage URI is downloaded, once per pod
// (CommonStorageInitialization, utils.CreateInitContainerWithConfig): the
// image and resources of the storageInitializer defaults of KServe's
// inferenceservice-config ConfigMap as its release installs it, the URI
// and /mnt/models as its args, the download volume mounted at /mnt/models.
// Credentials it gets from the service account's Secrets are left out.
// Every field is placed at at, where the URI is written.
func addStorageInitializer(w *manifest.Workload, uri string, at manifest.FieldSource) {
	if slices.ContainsFunc(w.Spec.InitContainers, func(c corev1.Container) bool { return c.Name == storageInitializerName }) {
		return
	}
	init := corev1.Container{
		Name:                     storageInitializerName,
		Image:                    "kserve/storage-initializer:" + kserveVersion,
		Args:                     []string{uri, modelMountPath},
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"),
				corev1.ResourceMemory: resource.MustParse("1Gi")},
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"),
				corev1.ResourceMemory: resource.MustParse("100Mi")},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: downloadVolume, MountPath: modelMountPath}},
	}
	spec := *w.Spec
	spec.InitContainers = append(slices.Clone(spec.InitContainers), init)
	w.Spec = &spec
	index := len(spec.InitContainers) - 1
	path := manifest.IndexPath(manifest.JoinPath(w.SpecPath, "initContainers"), index)
	w.Object.Borrow(path, writtenAt(at))
	container := &manifest.Container{Container: &spec.InitContainers[index], Image: init.Image, Path: path, Init: true,
		Injected: "KServe's webhook, with the storageInitializer settings of its inferenceservice-config ConfigMap"}
	// After the pod's own init containers, as KServe appends it.
	last := slices.IndexFunc(w.Containers, func(c *manifest.Container) bool { return !c.Init })
	if last < 0 {
		last = len(w.Containers)
	}
	w.Containers = slices.Insert(w.Containers, last, container)
}
