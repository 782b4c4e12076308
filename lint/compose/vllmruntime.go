package compose

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/lint/manifest"
)

// productionStackGroup is the API group of the vLLM production-stack
// operator's kinds.
const productionStackGroup = "production-stack.vllm.ai"

// vllmRuntimePodPath is where a VLLMRuntime's pod is built: the pod
// template of the Deployment the operator creates.
const vllmRuntimePodPath = "deployment.spec.template.spec"

// vllmRuntimeSpec is what a VLLMRuntime says of its pod
// (operator/api/v1alpha1/vllmruntime_types.go and common.go of
// github.com/vllm-project/production-stack), with the CRD's defaults
// (port 8000, runtimeClass nvidia) applied where the file leaves them out.
type vllmRuntimeSpec struct {
	Model struct {
		ModelURL      string `json:"modelURL"`
		HFTokenSecret struct {
			Name string `json:"hfTokenSecretName"`
			Key  string `json:"hfTokenKeyName"`
		} `json:"hfTokenSecret"`
		EnableLoRA     bool   `json:"enableLoRA"`
		EnableTool     bool   `json:"enableTool"`
		ToolCallParser string `json:"toolCallParser"`
		MaxModelLen    int32  `json:"maxModelLen"`
		DType          string `json:"dtype"`
		MaxNumSeqs     int32  `json:"maxNumSeqs"`
		ChatTemplate   string `json:"chatTemplate"`
	} `json:"model"`
	VLLMConfig struct {
		EnableChunkedPrefill bool            `json:"enableChunkedPrefill"`
		EnablePrefixCaching  bool            `json:"enablePrefixCaching"`
		TensorParallelSize   int32           `json:"tensorParallelSize"`
		GpuMemoryUtilization string          `json:"gpuMemoryUtilization"`
		MaxLoras             int32           `json:"maxLoras"`
		ExtraArgs            []string        `json:"extraArgs"`
		V1                   bool            `json:"v1"`
		Port                 *int32          `json:"port"`
		Env                  []corev1.EnvVar `json:"env"`
	} `json:"vllmConfig"`
	LMCacheConfig struct {
		Enabled                  bool   `json:"enabled"`
		CPUOffloadingBufferSize  string `json:"cpuOffloadingBufferSize"`
		DiskOffloadingBufferSize string `json:"diskOffloadingBufferSize"`
		RemoteURL                string `json:"remoteUrl"`
		RemoteSerde              string `json:"remoteSerde"`
	} `json:"lmCacheConfig"`
	StorageConfig struct {
		Enabled    bool   `json:"enabled"`
		MountPath  string `json:"mountPath"`
		VolumeName string `json:"volumeName"`
	} `json:"storageConfig"`
	DeploymentConfig struct {
		NodeSelectorTerms []corev1.NodeSelectorTerm `json:"nodeSelectorTerms"`
		Toleration        []corev1.Toleration       `json:"toleration"`
		RuntimeClass      *string                   `json:"runtimeClass"`
		ShmSize           string                    `json:"shmSize"`
		Resources         productionStackResources  `json:"resources"`
		Image             productionStackImage      `json:"image"`
		PodAnnotations    map[string]string         `json:"podAnnotations"`
		SidecarConfig     struct {
			Enabled   bool                     `json:"enabled"`
			Name      *string                  `json:"name"`
			Image     productionStackImage     `json:"image"`
			Command   []string                 `json:"command"`
			Args      []string                 `json:"args"`
			Env       []corev1.EnvVar          `json:"env"`
			Resources productionStackResources `json:"resources"`
			MountPath string                   `json:"mountPath"`
		} `json:"sidecarConfig"`
	} `json:"deploymentConfig"`
}

type productionStackResources struct {
	CPU     string `json:"cpu"`
	Memory  string `json:"memory"`
	GPU     string `json:"gpu"`
	GPUType string `json:"gpuType"`
}

type productionStackImage struct {
	Registry       string `json:"registry"`
	Name           string `json:"name"`
	PullPolicy     string `json:"pullPolicy"`
	PullSecretName string `json:"pullSecretName"`
}

func (i productionStackImage) reference() string { return i.Registry + "/" + i.Name }

func (i productionStackImage) pullPolicy() corev1.PullPolicy {
	if i.PullPolicy == "" {
		return corev1.PullIfNotPresent
	}
	return corev1.PullPolicy(i.PullPolicy)
}

// VLLMRuntimes builds the pod of each VLLMRuntime as the production-stack
// operator does (deploymentForVLLMRuntime and buildSidecarContainer in
// operator/internal/controller/vllmruntime_controller.go): the container
// vllm of deploymentConfig.image (registry/name) running
// `/opt/venv/bin/vllm serve MODEL --host 0.0.0.0 --port PORT` with the
// flags of spec.model and spec.vllmConfig and its extraArgs, the env of
// V1, LoRA, LMCache and vllmConfig.env, HF_TOKEN from the
// hfTokenSecret, deploymentConfig.resources as equal requests and limits,
// probes on /health, the claim of storageConfig (named after the
// VLLMRuntime, which the operator makes), the chat template's ConfigMap,
// an in-memory /dev/shm of deploymentConfig.shmSize, node affinity of
// nodeSelectorTerms; and the sidecar of sidecarConfig. It returns notes
// for the run's -v output.
func VLLMRuntimes(set *manifest.Set) ([]string, error) {
	return eachSpec(set, productionStackGroup, "VLLMRuntime", func(set *manifest.Set, o *manifest.Object, spec *vllmRuntimeSpec) []string {
		return noteList(vllmRuntime(set, o, spec))
	}), nil
}

func vllmRuntime(set *manifest.Set, o *manifest.Object, spec *vllmRuntimeSpec) string {
	deployment := spec.DeploymentConfig
	pod := newBuiltPod(o, "spec")
	port := int32(8000)
	if spec.VLLMConfig.Port != nil {
		port = *spec.VLLMConfig.Port
	}
	portText := strconv.Itoa(int(port))
	main := corev1.Container{Name: "vllm", Image: deployment.Image.reference(), ImagePullPolicy: deployment.Image.pullPolicy(),
		Command: []string{"/opt/venv/bin/vllm", "serve"}}
	mainPath := container(0)
	pod.at(mainPath+".image", "spec.deploymentConfig.image.name")
	pod.at(mainPath+".imagePullPolicy", "spec.deploymentConfig.image.pullPolicy")
	pod.at(mainPath+".command", "spec.deploymentConfig.image.name")

	// The args, each on the field that made the operator write it.
	arg := func(field string, words ...string) {
		for _, word := range words {
			pod.at(manifest.IndexPath(mainPath+".args", len(main.Args)), field)
			main.Args = append(main.Args, word)
		}
	}
	arg("spec.model.modelURL", spec.Model.ModelURL)
	arg("spec.vllmConfig", "--host", "0.0.0.0")
	arg("spec.vllmConfig.port", "--port", portText)
	if spec.Model.EnableLoRA {
		arg("spec.model.enableLoRA", "--enable-lora")
	}
	if spec.Model.EnableTool {
		arg("spec.model.enableTool", "--enable-auto-tool-choice")
	}
	if spec.Model.ToolCallParser != "" {
		arg("spec.model.toolCallParser", "--tool-call-parser", spec.Model.ToolCallParser)
	}
	if spec.VLLMConfig.EnableChunkedPrefill {
		arg("spec.vllmConfig.enableChunkedPrefill", "--enable-chunked-prefill")
	} else {
		arg("spec.vllmConfig.enableChunkedPrefill", "--no-enable-chunked-prefill")
	}
	if spec.VLLMConfig.EnablePrefixCaching {
		arg("spec.vllmConfig.enablePrefixCaching", "--enable-prefix-caching")
	} else {
		arg("spec.vllmConfig.enablePrefixCaching", "--no-enable-prefix-caching")
	}
	if n := spec.Model.MaxModelLen; n > 0 {
		arg("spec.model.maxModelLen", "--max-model-len", strconv.Itoa(int(n)))
	}
	if spec.Model.DType != "" {
		arg("spec.model.dtype", "--dtype", spec.Model.DType)
	}
	if n := spec.VLLMConfig.TensorParallelSize; n > 0 {
		arg("spec.vllmConfig.tensorParallelSize", "--tensor-parallel-size", strconv.Itoa(int(n)))
	}
	if n := spec.Model.MaxNumSeqs; n > 0 {
		arg("spec.model.maxNumSeqs", "--max-num-seqs", strconv.Itoa(int(n)))
	}
	if spec.VLLMConfig.GpuMemoryUtilization != "" {
		arg("spec.vllmConfig.gpuMemoryUtilization", "--gpu_memory_utilization", spec.VLLMConfig.GpuMemoryUtilization)
	}
	if n := spec.VLLMConfig.MaxLoras; n > 0 {
		arg("spec.vllmConfig.maxLoras", "--max_loras", strconv.Itoa(int(n)))
	}
	for i, extra := range spec.VLLMConfig.ExtraArgs {
		arg(manifest.IndexPath("spec.vllmConfig.extraArgs", i), extra)
	}
	if spec.Model.ChatTemplate != "" {
		arg("spec.model.chatTemplate", "--chat-template", "/etc/chat-template.json")
	}

	// The env: the operator's, then vllmConfig.env, then HF_TOKEN.
	env := func(field, name, value string) {
		pod.at(manifest.IndexPath(mainPath+".env", len(main.Env)), field)
		main.Env = append(main.Env, corev1.EnvVar{Name: name, Value: value})
	}
	if spec.VLLMConfig.V1 {
		env("spec.vllmConfig.v1", "VLLM_USE_V1", "1")
	} else {
		env("spec.vllmConfig.v1", "VLLM_USE_V1", "0")
	}
	if spec.Model.EnableLoRA {
		env("spec.model.enableLoRA", "VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True")
	}
	if cache := spec.LMCacheConfig; cache.Enabled {
		const field = "spec.lmCacheConfig"
		env(field+".enabled", "LMCACHE_LOG_LEVEL", "DEBUG")
		env(field+".enabled", "LMCACHE_USE_EXPERIMENTAL", "True")
		env(field+".enabled", "VLLM_RPC_TIMEOUT", "1000000")
		connector := `{"kv_connector":"LMCacheConnector","kv_role":"kv_both"}`
		if spec.VLLMConfig.V1 {
			connector = `{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}`
		}
		arg(field+".enabled", "--kv-transfer-config", connector)
		if cache.CPUOffloadingBufferSize != "" {
			env(field+".cpuOffloadingBufferSize", "LMCACHE_LOCAL_CPU", "True")
			env(field+".cpuOffloadingBufferSize", "LMCACHE_MAX_LOCAL_CPU_SIZE", cache.CPUOffloadingBufferSize)
		}
		if cache.DiskOffloadingBufferSize != "" {
			env(field+".diskOffloadingBufferSize", "LMCACHE_LOCAL_DISK", "True")
			env(field+".diskOffloadingBufferSize", "LMCACHE_MAX_LOCAL_DISK_SIZE", cache.DiskOffloadingBufferSize)
		}
		if cache.RemoteURL != "" {
			env(field+".remoteUrl", "LMCACHE_REMOTE_URL", cache.RemoteURL)
			env(field+".remoteSerde", "LMCACHE_REMOTE_SERDE", cache.RemoteSerde)
		}
	}
	for i, variable := range spec.VLLMConfig.Env {
		pod.mirror(manifest.IndexPath(mainPath+".env", len(main.Env)), manifest.IndexPath("spec.vllmConfig.env", i))
		main.Env = append(main.Env, corev1.EnvVar{Name: variable.Name, Value: variable.Value})
	}
	if secret := spec.Model.HFTokenSecret; secret.Name != "" {
		under := manifest.IndexPath(mainPath+".env", len(main.Env))
		pod.at(under, "spec.model.hfTokenSecret")
		pod.at(under+".valueFrom.secretKeyRef.name", "spec.model.hfTokenSecret.hfTokenSecretName")
		pod.at(under+".valueFrom.secretKeyRef.key", "spec.model.hfTokenSecret.hfTokenKeyName")
		main.Env = append(main.Env, secretEnv("HF_TOKEN", secret.Name, secret.Key, false))
	}

	var invalid []string
	main.Resources, invalid = productionStackResourceList(deployment.Resources, false)
	pod.at(mainPath+".resources", "spec.deploymentConfig.resources")
	for _, name := range []string{"cpu", "memory"} {
		pod.at(mainPath+".resources.requests."+name, "spec.deploymentConfig.resources."+name)
		pod.at(mainPath+".resources.limits."+name, "spec.deploymentConfig.resources."+name)
	}
	for _, field := range []string{"requests", "limits"} {
		for name := range main.Resources.Limits {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
				pod.at(mainPath+".resources."+field+manifestKey(string(name)), "spec.deploymentConfig.resources.gpu")
			}
		}
	}
	main.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: port}}
	pod.at(mainPath+".ports", "spec.vllmConfig.port")
	probe := func(failureThreshold, timeout, initialDelay int32) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health",
			Port: intstr.FromInt32(port), Scheme: corev1.URISchemeHTTP}}, InitialDelaySeconds: initialDelay,
			PeriodSeconds: 20, TimeoutSeconds: timeout, SuccessThreshold: 1, FailureThreshold: failureThreshold}
	}
	main.ReadinessProbe, main.LivenessProbe, main.StartupProbe = probe(10, 5, 10), probe(10, 3, 10), probe(100, 3, 120)
	for _, field := range []string{"readinessProbe", "livenessProbe", "startupProbe"} {
		pod.at(mainPath+"."+field, "spec.vllmConfig.port")
	}

	// Volumes: the storage claim, the chat template, /dev/shm; a missing
	// one is added at deploymentConfig.shmSize.
	volume := func(field string, v corev1.Volume, mount corev1.VolumeMount) {
		pod.at(manifest.IndexPath(".volumes", len(pod.spec.Volumes)), field)
		pod.at(manifest.IndexPath(mainPath+".volumeMounts", len(main.VolumeMounts)), field)
		pod.spec.Volumes = append(pod.spec.Volumes, v)
		main.VolumeMounts = append(main.VolumeMounts, mount)
	}
	pod.at(".volumes", "spec.deploymentConfig.shmSize")
	pod.at(mainPath+".volumeMounts", "spec.deploymentConfig.shmSize")
	storageVolume := "pvc-storage"
	if spec.StorageConfig.VolumeName != "" {
		storageVolume = spec.StorageConfig.VolumeName
	}
	if spec.StorageConfig.Enabled {
		mountPath := "/data"
		if spec.StorageConfig.MountPath != "" {
			mountPath = spec.StorageConfig.MountPath
		}
		volume("spec.storageConfig", *claimVolume(o.Name, nil), corev1.VolumeMount{MountPath: mountPath})
		pod.spec.Volumes[len(pod.spec.Volumes)-1].Name = storageVolume
		main.VolumeMounts[len(main.VolumeMounts)-1].Name = storageVolume
	}
	if spec.Model.ChatTemplate != "" {
		volume("spec.model.chatTemplate", corev1.Volume{Name: "chat-template", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: o.Name + "-chat-template"},
				Items: []corev1.KeyToPath{{Key: "chatTemplate", Path: "chat_template.json"}}}}},
			corev1.VolumeMount{Name: "chat-template", MountPath: "/etc/chat-template.json", SubPath: "chat_template.json"})
	}
	if deployment.ShmSize != "" {
		shm := &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}
		if size, err := resource.ParseQuantity(deployment.ShmSize); err == nil {
			shm.SizeLimit = &size
		}
		volume("spec.deploymentConfig.shmSize", corev1.Volume{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: shm}},
			corev1.VolumeMount{Name: "dshm", MountPath: "/dev/shm"})
	}
	pod.spec.Containers = []corev1.Container{main}

	if sidecar := deployment.SidecarConfig; sidecar.Enabled {
		const field = "spec.deploymentConfig.sidecarConfig"
		name := "sidecar"
		if sidecar.Name != nil {
			name = *sidecar.Name
		}
		c := corev1.Container{Name: name, Image: sidecar.Image.reference(), ImagePullPolicy: sidecar.Image.pullPolicy(),
			Command: sidecar.Command, Args: sidecar.Args}
		under := container(1)
		pod.mirror(under, field)
		pod.at(under+".image", field+".image.name")
		pod.at(under+".resources", field+".resources")
		mountPath := "/data"
		if spec.StorageConfig.Enabled {
			if sidecar.MountPath != "" {
				mountPath = sidecar.MountPath
			}
			c.VolumeMounts = []corev1.VolumeMount{{Name: storageVolume, MountPath: mountPath}}
			pod.at(under+".volumeMounts", field+".mountPath")
		}
		c.Env = []corev1.EnvVar{{Name: "PORT", Value: "30090"}, {Name: "LORA_DOWNLOAD_BASE_DIR", Value: mountPath + "/lora-adapters"}}
		pod.at(under+".env", field)
		for i, variable := range sidecar.Env {
			pod.mirror(manifest.IndexPath(under+".env", len(c.Env)), manifest.IndexPath(field+".env", i))
			c.Env = append(c.Env, corev1.EnvVar{Name: variable.Name, Value: variable.Value})
		}
		var sidecarInvalid []string
		c.Resources, sidecarInvalid = productionStackResourceList(sidecar.Resources, true)
		invalid = append(invalid, sidecarInvalid...)
		pod.spec.Containers = append(pod.spec.Containers, c)
	}
	if len(invalid) > 0 {
		// resource.MustParse panics on them: the operator crashes.
		return fmt.Sprintf("%s: resources %q are no quantities, so the production-stack operator cannot build its pod",
			o.ID(), invalid)
	}

	if secret := deployment.Image.PullSecretName; secret != "" {
		pod.spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: secret}}
		pod.at(".imagePullSecrets", "spec.deploymentConfig.image.pullSecretName")
	}
	runtimeClass := "nvidia" // the CRD's default
	if deployment.RuntimeClass != nil {
		runtimeClass = *deployment.RuntimeClass
	}
	pod.spec.RuntimeClassName = &runtimeClass
	pod.at(".runtimeClassName", "spec.deploymentConfig.runtimeClass")
	if deployment.NodeSelectorTerms != nil {
		pod.spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: deployment.NodeSelectorTerms}}}
		pod.mirror(".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
			"spec.deploymentConfig.nodeSelectorTerms")
	}
	pod.at(".affinity", "spec.deploymentConfig")
	pod.spec.Tolerations = deployment.Toleration
	pod.mirror(".tolerations", "spec.deploymentConfig.toleration")

	w := pod.workload(set, "", vllmRuntimePodPath, false)
	w.TemplateAnnotations, w.TemplateMetaPath = deployment.PodAnnotations, "spec.deploymentConfig"
	return ""
}

// productionStackResourceList is the operator's ResourceRequirements of
// cpu, memory and GPUs, each the request and the limit; a sidecar's get
// 0.5 CPU, 128Mi and no GPUs unless it says otherwise. invalid are the
// values that are no quantities.
func productionStackResourceList(r productionStackResources, sidecar bool) (corev1.ResourceRequirements, []string) {
	requirements := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	var invalid []string
	set := func(name corev1.ResourceName, value, fallback string) {
		if value == "" {
			value = fallback
		}
		if value == "" {
			return
		}
		quantity, err := resource.ParseQuantity(value)
		if err != nil {
			invalid = append(invalid, value)
			return
		}
		requirements.Requests[name], requirements.Limits[name] = quantity, quantity
	}
	gpuType := corev1.ResourceName("nvidia.com/gpu")
	if r.GPUType != "" {
		gpuType = corev1.ResourceName(r.GPUType)
	}
	if sidecar {
		set(corev1.ResourceCPU, r.CPU, "0.5")
		set(corev1.ResourceMemory, r.Memory, "128Mi")
		set(gpuType, r.GPU, "0")
	} else {
		set(corev1.ResourceCPU, r.CPU, "")
		set(corev1.ResourceMemory, r.Memory, "")
		set(gpuType, r.GPU, "")
	}
	return requirements, invalid
}

// manifestKey is the step of a field path to a key of a map.
func manifestKey(key string) string {
	if step := manifest.JoinPath("", key); strings.HasPrefix(step, "[") {
		return step
	}
	return "." + key
}
