package compose

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint/manifest"
)

// mountStorage gives the serving container the volume KServe puts the
// model of a storage URI in, at /mnt/models
// (pkg/webhook/admission/pod/storage_initializer_injector.go): a pvc://NAME/PATH
// claim mounted in place with PATH as its subPath, for other schemes the
// emptyDir the storage-initializer init container (the modelcar for
// oci://) downloads into. The mount and the volume are placed at field,
// where the URI is written. A container that mounts something at
// /mnt/models itself keeps it.
func mountStorage(w *manifest.Workload, c *manifest.Container, uri, field string) error {
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

// llmModel mounts an LLMInferenceService's spec.model.uri in its main
// containers, into which the presets merge the server, as KServe's
// attachModelArtifacts does (pkg/controller/v1alpha2/llmisvc).
func (k *kserve) llmModel(w *manifest.Workload) error {
	for _, c := range w.Containers {
		if c.FromServingRuntime && !c.Init {
			if err := mountStorage(w, c, w.ModelURI, w.ModelURIPath); err != nil {
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
