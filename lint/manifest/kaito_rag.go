package manifest

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/lint/gpu"
)

// KAITORAGImage is the image of KAITO's RAG service: the RAGEngine chart's
// presetRagRegistryName, presetRagImageName and presetRagImageTag
// (charts/kaito/ragengine/values.yaml of kaito-project/kaito v0.12), which
// the controller reads from PRESET_RAG_* (getImageConfig in
// pkg/ragengine/controllers/preset_rag.go); spec.embedding.local.image is
// not read.
const KAITORAGImage = "mcr.microsoft.com/aks/kaito/kaito-rag-service:0.12.0"

// ragEngineWorkloads yields the pod of the Deployment KAITO runs for a
// RAGEngine (CreatePresetRAG in pkg/ragengine/controllers/preset_rag.go and
// GenerateRAGDeploymentManifest in pkg/ragengine/manifests/manifests.go):
// the RAG service on port 5000 with /dev/shm, the vector store's volume,
// the GPUs of spec.compute.instanceType when the embedding model runs
// locally (else 500m CPU and 512Mi requested), and the env its spec sets.
// The guardrails policy volume is left out: KAITO copies its default
// ConfigMap where the one named is missing.
func ragEngineWorkloads(o *Object) ([]*Workload, error) {
	var rag struct {
		Spec struct {
			Compute *struct {
				InstanceType  string `json:"instanceType"`
				LabelSelector *struct {
					MatchLabels map[string]string `json:"matchLabels"`
				} `json:"labelSelector"`
			} `json:"compute"`
			Storage *struct {
				// v1beta1 (api/v1beta1/ragengine_types.go)…
				PersistentVolume *struct {
					PersistentVolumeClaim string `json:"persistentVolumeClaim"`
					MountPath             string `json:"mountPath"`
				} `json:"persistentVolume"`
				// …and v1alpha1, which writes them on storage.
				PersistentVolumeClaim string `json:"persistentVolumeClaim"`
				MountPath             string `json:"mountPath"`
				VectorDB              *struct {
					Engine       string `json:"engine"`
					URL          string `json:"url"`
					AccessSecret string `json:"accessSecret"`
				} `json:"vectorDB"`
			} `json:"storage"`
			Embedding struct {
				Local *struct {
					ModelID           string `json:"modelID"`
					ModelAccessSecret string `json:"modelAccessSecret"`
				} `json:"local"`
				Remote any `json:"remote"`
			} `json:"embedding"`
			InferenceService *struct {
				URL               string `json:"url"`
				AccessSecret      string `json:"accessSecret"`
				ContextWindowSize int    `json:"contextWindowSize"`
			} `json:"inferenceService"`
		} `json:"spec"`
	}
	if err := o.Decode(&rag); err != nil {
		return nil, err
	}
	spec := rag.Spec
	w := &Workload{Object: o, SpecPath: "spec.pod", Spec: &corev1.PodSpec{}, Platform: "kaito", Lifecycle: KeptRunning}
	w.Assumed = w.SpecPath
	fields := map[string]string{}
	c := corev1.Container{
		Name:    o.Name,
		Image:   KAITORAGImage,
		Command: kaitoShell("python3 main.py"),
		Ports:   []corev1.ContainerPort{{ContainerPort: kaitoServerPort}},
		LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health",
			Port: intstr.FromInt32(kaitoServerPort)}}, InitialDelaySeconds: 600, PeriodSeconds: 10},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health",
			Port: intstr.FromInt32(kaitoServerPort)}}, InitialDelaySeconds: 30, PeriodSeconds: 10},
		VolumeMounts: []corev1.VolumeMount{{Name: "dshm", MountPath: "/dev/shm"}},
	}
	w.Spec.Volumes = []corev1.Volume{{Name: "dshm", VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}}}
	if storage := spec.Storage; storage != nil {
		claim, mountPath, path := storage.PersistentVolumeClaim, storage.MountPath, "spec.storage"
		if pv := storage.PersistentVolume; pv != nil {
			claim, mountPath, path = pv.PersistentVolumeClaim, pv.MountPath, "spec.storage.persistentVolume"
		}
		if mountPath == "" {
			mountPath = "/mnt/data"
		}
		volume := corev1.Volume{Name: "vector-db-storage", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
		if claim != "" {
			volume.VolumeSource = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}
		}
		w.Spec.Volumes = append(w.Spec.Volumes, volume)
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "vector-db-storage", MountPath: mountPath})
		fields[".volumes[1]"], fields[".containers[0].volumeMounts[1]"] = path, path
		w.userCaused = append(w.userCaused, ".volumes[1]", ".containers[0].volumeMounts[1]")
	}
	// The GPUs of the instance type for a local embedding model, none on
	// an instance type with no GPU.
	if spec.Embedding.Local != nil && spec.Compute != nil && spec.Compute.InstanceType != "" {
		if _, perNode, ok := gpu.Instance(spec.Compute.InstanceType); ok {
			gpus := *resource.NewQuantity(int64(perNode), resource.DecimalSI)
			c.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{"nvidia.com/gpu": gpus},
				Limits: corev1.ResourceList{"nvidia.com/gpu": gpus.DeepCopy()}}
			fields[".containers[0].resources"] = "spec.compute.instanceType"
		}
	} else {
		c.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi")}}
	}
	c.Env = []corev1.EnvVar{fieldEnv("POD_NAME", "metadata.name"), fieldEnv("POD_UID", "metadata.uid")}
	env := func(variable corev1.EnvVar, path string) {
		c.Env = append(c.Env, variable)
		fields[IndexPath(".containers[0].env", len(c.Env)-1)] = path
		w.userCaused = append(w.userCaused, IndexPath(".containers[0].env", len(c.Env)-1))
	}
	if local := spec.Embedding.Local; local != nil {
		if local.ModelID != "" {
			env(corev1.EnvVar{Name: "MODEL_ID", Value: local.ModelID}, "spec.embedding.local.modelID")
		}
		if local.ModelAccessSecret != "" {
			env(corev1.EnvVar{Name: "ACCESS_SECRET", Value: local.ModelAccessSecret}, "spec.embedding.local.modelAccessSecret")
		}
	}
	embedding := ""
	switch {
	case spec.Embedding.Local != nil:
		embedding = "local"
	case spec.Embedding.Remote != nil:
		embedding = "remote"
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: "EMBEDDING_TYPE", Value: embedding})
	vectorDB := "faiss"
	if spec.Storage != nil && spec.Storage.VectorDB != nil && spec.Storage.VectorDB.Engine != "" {
		vectorDB = spec.Storage.VectorDB.Engine
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: "VECTOR_DB_TYPE", Value: vectorDB})
	if spec.Storage != nil && spec.Storage.VectorDB != nil {
		env(corev1.EnvVar{Name: "VECTOR_DB_URL", Value: spec.Storage.VectorDB.URL}, "spec.storage.vectorDB.url")
		if secret := spec.Storage.VectorDB.AccessSecret; secret != "" {
			env(secretEnv("VECTOR_DB_ACCESS_SECRET", secret), "spec.storage.vectorDB.accessSecret")
		}
	}
	persistDir := "storage"
	if spec.Storage != nil && (spec.Storage.PersistentVolume != nil || spec.Storage.PersistentVolumeClaim != "") {
		persistDir = c.VolumeMounts[1].MountPath + "/" + o.Name
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: "DEFAULT_VECTOR_DB_PERSIST_DIR", Value: persistDir})
	if service := spec.InferenceService; service != nil {
		env(corev1.EnvVar{Name: "LLM_CONTEXT_WINDOW", Value: strconv.Itoa(service.ContextWindowSize)},
			"spec.inferenceService.contextWindowSize")
		if service.URL != "" {
			env(corev1.EnvVar{Name: "LLM_INFERENCE_URL", Value: service.URL}, "spec.inferenceService.url")
			if service.AccessSecret != "" {
				env(secretEnv("LLM_ACCESS_SECRET", service.AccessSecret), "spec.inferenceService.accessSecret")
			}
		}
	}
	w.Spec.Containers = []corev1.Container{c}
	w.Spec.Tolerations = []corev1.Toleration{
		{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "sku", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
	}
	if spec.Compute != nil && spec.Compute.LabelSelector != nil && len(spec.Compute.LabelSelector.MatchLabels) > 0 {
		labels := spec.Compute.LabelSelector.MatchLabels
		var requirements []corev1.NodeSelectorRequirement
		for _, key := range sortedKeys(labels) {
			requirements = append(requirements, corev1.NodeSelectorRequirement{Key: key,
				Operator: corev1.NodeSelectorOpIn, Values: []string{labels[key]}})
		}
		w.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: requirements}}}}}
		fields[".affinity"] = "spec.compute.labelSelector"
	}
	container := w.addContainer(&w.Spec.Containers[0], IndexPath(JoinPath(w.SpecPath, "containers"), 0), false)
	container.Built = true
	w.placeBuilt(fields, "spec")
	return []*Workload{w}, nil
}

func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
}

func secretEnv(name, secret string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: name}}}
}
