package manifest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/lint/gpu"
	"github.com/modellint/modellint/lint/server"
)

// KAITO builds the pods of a Workspace that names a preset model
// (inference.preset.name) itself, as a StatefulSet of one container
// (GeneratePresetInference in pkg/workspace/inference/preset_inferences.go
// of kaito-project/kaito): KAITO's base image, the command of the
// preset's runtime (PresetParam.GetInferenceCommand in
// pkg/model/interface.go), the GPUs of one node of resource.instanceType,
// /dev/shm, the volume the weights are downloaded to, KAITO's probes and
// ports. modellint builds the same pod, each field placed at the
// Workspace field that made KAITO write it, so that findings land on what
// a user edits. An InferenceSet makes such Workspaces of its template
// (NewWorkspaceForInferenceSet in pkg/utils/inferenceset/inferenceset.go).
//
// What is built follows KAITO v0.12 (the base image's tag, the flags its
// commands pass). Another release may build otherwise, so the errors found
// in the pod KAITO builds are warnings; those about the user's own fields
// (resource.count) are not.

// Preset is the preset model of a KAITO Workspace.
type Preset struct {
	Name     string
	NamePath string // field path of the preset's name
	// WeightBytes is the size of the preset's weights in KAITO's model
	// catalog, 0 for a preset the table does not know.
	WeightBytes int64
	// Runtime is the server KAITO runs: "vllm", or "transformers" when the
	// kaito.sh/runtime annotation says so.
	Runtime string
	// Count is resource.count, 0 when not written; CountPath is its path.
	Count     int
	CountPath string
	// InstanceTypePath is the field path of the instance type.
	InstanceTypePath string
}

// kaitoPresetGiB are the weights of KAITO's presets, in GiB: modelFileSize
// in presets/workspace/models/model_catalog.yaml (v0.11 and newer; the
// Falcon presets, removed in v0.11, from their v0.10 model.go).
var kaitoPresetGiB = map[string]float64{
	"falcon-7b": 13.44, "falcon-7b-instruct": 13.44, "falcon-40b": 77.9, "falcon-40b-instruct": 77.9,
	"mistral-7b": 13.50, "mistral-7b-instruct": 13.50,
	"phi-3-mini-4k-instruct": 7.12, "phi-3-mini-128k-instruct": 7.12, "phi-3.5-mini-instruct": 7.12,
	"phi-3-medium-4k-instruct": 26.00, "phi-3-medium-128k-instruct": 26.00,
	"phi-4": 27.31, "phi-4-mini-instruct": 7.15,
	"llama-3.1-8b-instruct": 14.96, "llama-3.3-70b-instruct": 131.42,
	"qwen2.5-coder-7b-instruct": 14.19, "qwen2.5-coder-32b-instruct": 61.03,
	"deepseek-r1-distill-llama-8b": 14.96, "deepseek-r1-distill-qwen-14b": 27.51,
	"deepseek-r1-0528": 641.30, "deepseek-v3-0324": 641.30,
	"gpt-oss-20b": 25.63, "gpt-oss-120b": 121.54,
	"ministral-3-3b-instruct": 4.35, "ministral-3-8b-instruct": 9.70, "ministral-3-14b-instruct": 14.65,
	"mistral-large-3-675b-instruct": 634.70,
	// presets/workspace/models/gemma3/model.go names them; the catalog
	// lists them as google/gemma-3-4b-it and google/gemma-3-27b-it.
	"gemma-3-4b-instruct": 8.01, "gemma-3-27b-instruct": 51.10,
}

// kaitoPresetRepos are the Hugging Face repositories KAITO serves its
// presets from, as it spells them: LegacyBuiltinToCatalog in
// pkg/utils/plugin/plugin.go, which redirects a preset's name to its
// catalog entry, downloaded at run time (the Falcon presets are gone).
var kaitoPresetRepos = map[string]string{
	"phi-4":                         "microsoft/phi-4",
	"phi-4-mini-instruct":           "microsoft/phi-4-mini-instruct",
	"llama-3.1-8b-instruct":         "meta-llama/llama-3.1-8b-instruct",
	"llama-3.3-70b-instruct":        "meta-llama/llama-3.3-70b-instruct",
	"deepseek-r1-distill-llama-8b":  "deepseek-ai/deepseek-r1-distill-llama-8b",
	"deepseek-r1-distill-qwen-14b":  "deepseek-ai/deepseek-r1-distill-qwen-14b",
	"deepseek-r1-0528":              "deepseek-ai/deepseek-r1-0528",
	"deepseek-v3-0324":              "deepseek-ai/deepseek-v3-0324",
	"phi-3-mini-4k-instruct":        "microsoft/phi-3-mini-4k-instruct",
	"phi-3-mini-128k-instruct":      "microsoft/phi-3-mini-128k-instruct",
	"phi-3-medium-4k-instruct":      "microsoft/phi-3-medium-4k-instruct",
	"phi-3-medium-128k-instruct":    "microsoft/phi-3-medium-128k-instruct",
	"phi-3.5-mini-instruct":         "microsoft/phi-3.5-mini-instruct",
	"qwen2.5-coder-7b-instruct":     "qwen/qwen2.5-coder-7b-instruct",
	"qwen2.5-coder-32b-instruct":    "qwen/qwen2.5-coder-32b-instruct",
	"gpt-oss-20b":                   "openai/gpt-oss-20b",
	"gpt-oss-120b":                  "openai/gpt-oss-120b",
	"gemma-3-4b-instruct":           "google/gemma-3-4b-it",
	"gemma-3-27b-instruct":          "google/gemma-3-27b-it",
	"mistral-7b":                    "mistralai/mistral-7b-v0.3",
	"mistral-7b-instruct":           "mistralai/mistral-7b-instruct-v0.3",
	"ministral-3-3b-instruct":       "mistralai/ministral-3-3b-instruct-2512",
	"ministral-3-8b-instruct":       "mistralai/ministral-3-8b-instruct-2512",
	"ministral-3-14b-instruct":      "mistralai/ministral-3-14b-instruct-2512",
	"mistral-large-3-675b-instruct": "mistralai/mistral-large-3-675b-instruct-2512",
}

// kaitoTransformersParams are the ModelRunParams KAITO gives the
// transformers server of the presets that run on it, by the model's short
// name (TransformerInferenceParameters in presets/workspace/models/
// transformer_runtime_inference_parameters.go); a preset not listed does
// not run on transformers.
var kaitoTransformersParams = func() map[string]map[string]string {
	phi := map[string]string{"torch_dtype": "auto", "pipeline": "text-generation", "trust_remote_code": ""}
	mistral := map[string]string{"torch_dtype": "bfloat16", "pipeline": "text-generation",
		"chat_template": "/workspace/chat_templates/mistral-instruct.jinja", "allow_remote_files": ""}
	gemma3 := map[string]string{"torch_dtype": "auto", "pipeline": "text-generation", "allow_remote_files": ""}
	qwen := map[string]string{"torch_dtype": "bfloat16", "pipeline": "text-generation"}
	llama := map[string]string{"torch_dtype": "bfloat16", "pipeline": "text-generation",
		"chat_template": "/workspace/chat_templates/llama-3-instruct.jinja", "allow_remote_files": ""}
	gpt := map[string]string{"torch_dtype": "auto", "pipeline": "text-generation", "allow_remote_files": ""}
	deepseekDistill := map[string]string{"torch_dtype": "bfloat16", "pipeline": "text-generation"}
	deepseekLarge := map[string]string{"torch_dtype": "bfloat16", "pipeline": "text-generation", "allow_remote_files": ""}
	return map[string]map[string]string{
		"phi-4": phi, "phi-3-mini-4k-instruct": phi, "phi-3-mini-128k-instruct": phi, "phi-3-medium-4k-instruct": phi,
		"phi-3-medium-128k-instruct": phi, "phi-3.5-mini-instruct": phi,
		"mistral-7b-v0.3": mistral, "mistral-7b-instruct-v0.3": mistral, "mistral-large-3-675b-instruct": mistral,
		"gemma-3-4b-it": gemma3, "gemma-3-27b-it": gemma3,
		"qwen2.5-coder-7b-instruct": qwen, "qwen2.5-coder-32b-instruct": qwen,
		"llama-3.1-8b-instruct": llama, "llama-3.3-70b-instruct": llama,
		"gpt-oss-20b": gpt, "gpt-oss-120b": gpt,
		"deepseek-r1-distill-llama-8b": deepseekDistill, "deepseek-r1-distill-qwen-14b": deepseekDistill,
		"deepseek-r1-0528": deepseekLarge, "deepseek-v3-0324": deepseekLarge,
	}
}()

const (
	// KAITOBaseImage is the image KAITO runs every preset in: the base
	// entry of presets/workspace/models/supported_models.yaml (tag 0.5.0 in
	// v0.12) in the chart's presetRegistryName (charts/kaito/workspace/
	// values.yaml), named by GetPresetImageName in
	// pkg/utils/common_preset.go.
	KAITOBaseImage = "mcr.microsoft.com/aks/kaito/kaito-base:0.5.0"

	// The ports and paths of pkg/utils/consts/consts.go and
	// pkg/utils/common_preset.go.
	kaitoServerPort   = 5000
	kaitoDecodePort   = 5001
	kaitoKVEventsPort = 5557
	kaitoRayPort      = 6379
	kaitoWeightsPath  = "/workspace/weights"
	kaitoConfigPath   = "/mnt/config"

	// kaitoRoutingSidecarImage is llm-d's routing sidecar, which KAITO puts
	// before a decode pod's vLLM (RoutingSidecarImage and RoutingSidecarTag
	// in pkg/utils/consts/consts.go).
	kaitoRoutingSidecarImage = "mcr.microsoft.com/oss/v2/llm-d/llm-d-routing-sidecar:v0.8.0"
)

// KAITO's sizing of a preset over the GPUs of its instance type
// (EstimateNodeCount in pkg/workspace/estimator/nodesestimator): vLLM gets
// KAITOGPUShare of each GPU (--gpu-memory-utilization), less 2.3 GiB for
// the runtime, and the weights, 2% over their files, 5% headroom.
const (
	KAITOGPUShare       = 0.84
	kaitoRuntimeReserve = 2.3 * (1 << 30)
	kaitoWeightsOver    = 1.02
	kaitoHeadroom       = 1.05
)

// KAITONodes is how many nodes of perNode GPUs of device KAITO's
// estimate gives weights of weightBytes: +Inf when a GPU holds nothing
// beside the runtime.
func KAITONodes(weightBytes int64, device gpu.GPU, perNode int) float64 {
	perGPU := (float64(device.MemoryBytes)*KAITOGPUShare - kaitoRuntimeReserve) / kaitoHeadroom
	if perGPU <= 0 || perNode <= 0 {
		return math.Inf(1)
	}
	return math.Ceil(float64(int(float64(weightBytes)*kaitoWeightsOver/perGPU)+1) / float64(perNode))
}

// kaitoSpec is a Workspace, or the Workspace an InferenceSet makes of its
// template, with the paths its fields were written at.
type kaitoSpec struct {
	name      string // the Workspace's, which names its container
	namespace string
	// inferenceSet is the name of the InferenceSet that made the
	// Workspace, "" for a Workspace of the user's; role is the
	// MultiRoleInference role it serves ("prefill", "decode"), and
	// rolePath the path of the role's type.
	inferenceSet, role, rolePath string
	annotations                  map[string]string

	instanceType, instanceTypePath string
	count                          *int
	countPath                      string
	matchLabels                    map[string]string
	labelSelectorPath              string

	preset, presetPath    string
	accessSecret          string
	accessSecretPath      string
	config, configPath    string
	adapters, adapterPath string
}

// kaitoPresetWorkload is the workload of a Workspace whose pods KAITO
// builds from a preset, nil when it names none.
func kaitoPresetWorkload(o *Object) (*Workload, error) {
	var workspace struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Resource  kaitoResource  `json:"resource"`
		Inference kaitoInference `json:"inference"`
	}
	if err := o.Decode(&workspace); err != nil {
		return nil, err
	}
	preset := workspace.Inference.Preset
	if preset == nil || preset.Name == "" {
		return nil, nil
	}
	spec := &kaitoSpec{name: o.Name, namespace: o.Namespace, annotations: workspace.Metadata.Annotations,
		instanceType: workspace.Resource.InstanceType, instanceTypePath: "resource.instanceType",
		count: workspace.Resource.Count, countPath: "resource.count",
		labelSelectorPath: "resource.labelSelector"}
	if selector := workspace.Resource.LabelSelector; selector != nil {
		spec.matchLabels = selector.MatchLabels
	}
	spec.inference(&workspace.Inference, "inference")
	return spec.workload(o, "", "inference.preset")
}

// inferenceSetWorkloads yields the pods of the Workspaces an InferenceSet
// makes of its template (NewWorkspaceForInferenceSet in
// pkg/utils/inferenceset/inferenceset.go): spec.template.resource and
// spec.template.inference, the nodes of spec.labelSelector, the
// template's annotations; the InferenceSet's name is the model's served
// name (buildVLLMInferenceCommand). Each Workspace is named by the API
// server (generateName); the pods are named here by the InferenceSet.
func inferenceSetWorkloads(o *Object) ([]*Workload, error) {
	var inferenceSet struct {
		Spec struct {
			Template struct {
				Metadata struct {
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
				Resource  kaitoResource  `json:"resource"`
				Inference kaitoInference `json:"inference"`
			} `json:"template"`
			LabelSelector *struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"labelSelector"`
		} `json:"spec"`
	}
	if err := o.Decode(&inferenceSet); err != nil {
		return nil, err
	}
	template := inferenceSet.Spec.Template
	if template.Inference.Preset == nil || template.Inference.Preset.Name == "" {
		// A template of its own runs as a Workspace's inference.template.
		w, err := newWorkload(o, "", "spec.template.inference.template.spec", "spec.template.inference.template.metadata")
		if err != nil || w == nil {
			return nil, err
		}
		w.Lifecycle, w.InstanceType = KeptRunning, template.Resource.InstanceType
		return []*Workload{w}, nil
	}
	spec := &kaitoSpec{name: o.Name, namespace: o.Namespace, inferenceSet: o.Name,
		annotations:  template.Metadata.Annotations,
		instanceType: template.Resource.InstanceType, instanceTypePath: "spec.template.resource.instanceType",
		labelSelectorPath: "spec.labelSelector"}
	if selector := inferenceSet.Spec.LabelSelector; selector != nil {
		spec.matchLabels = selector.MatchLabels
	}
	spec.inference(&template.Inference, "spec.template.inference")
	w, err := spec.workload(o, "", "spec.template.inference.preset")
	if err != nil {
		return nil, err
	}
	return []*Workload{w}, nil
}

// multiRoleInferenceWorkloads yields the pods of each role of a
// MultiRoleInference: KAITO makes an InferenceSet of each
// (reconcileInferenceSet in pkg/controllers/multiroleinference/
// controller.go), of the model spec.model names on the role's instance
// type, its runtimeConfig the inference config, the nodes of
// spec.labelSelector and of the role, the MultiRoleInference's
// annotations; the decode role's vLLM listens behind llm-d's routing
// sidecar.
func multiRoleInferenceWorkloads(o *Object) ([]*Workload, error) {
	var mri struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			LabelSelector *struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"labelSelector"`
			Model struct {
				Name              string `json:"name"`
				ModelAccessSecret string `json:"modelAccessSecret"`
			} `json:"model"`
			Roles []struct {
				Type          string `json:"type"`
				InstanceType  string `json:"instanceType"`
				RuntimeConfig string `json:"runtimeConfig"`
			} `json:"roles"`
		} `json:"spec"`
	}
	if err := o.Decode(&mri); err != nil {
		return nil, err
	}
	if mri.Spec.Model.Name == "" {
		return nil, nil
	}
	var workloads []*Workload
	for i, role := range mri.Spec.Roles {
		path := IndexPath("spec.roles", i)
		labels := map[string]string{"multiroleinference.kaito.sh/created-by": o.Name, "kaito.sh/inference-role": role.Type}
		if selector := mri.Spec.LabelSelector; selector != nil {
			for key, value := range selector.MatchLabels {
				labels[key] = value
			}
		}
		spec := &kaitoSpec{name: o.Name + "-" + role.Type, namespace: o.Namespace, role: role.Type, rolePath: path + ".type",
			annotations: mri.Metadata.Annotations, instanceType: role.InstanceType, instanceTypePath: path + ".instanceType",
			matchLabels: labels, labelSelectorPath: "spec.labelSelector",
			preset: mri.Spec.Model.Name, presetPath: "spec.model.name",
			accessSecret: mri.Spec.Model.ModelAccessSecret, accessSecretPath: "spec.model.modelAccessSecret",
			config: role.RuntimeConfig, configPath: path + ".runtimeConfig"}
		w, err := spec.workload(o, role.Type, path)
		if err != nil {
			return nil, err
		}
		workloads = append(workloads, w)
	}
	return workloads, nil
}

type kaitoResource struct {
	InstanceType  string `json:"instanceType"`
	Count         *int   `json:"count"`
	LabelSelector *struct {
		MatchLabels map[string]string `json:"matchLabels"`
	} `json:"labelSelector"`
}

type kaitoInference struct {
	Preset *struct {
		Name          string `json:"name"`
		PresetOptions struct {
			ModelAccessSecret string `json:"modelAccessSecret"`
		} `json:"presetOptions"`
	} `json:"preset"`
	Config   string `json:"config"`
	Adapters []any  `json:"adapters"`
}

// inference reads the inference spec written at path.
func (s *kaitoSpec) inference(inference *kaitoInference, path string) {
	s.preset, s.presetPath = inference.Preset.Name, path+".preset.name"
	s.accessSecret = inference.Preset.PresetOptions.ModelAccessSecret
	s.accessSecretPath = path + ".preset.presetOptions.modelAccessSecret"
	s.config, s.configPath = inference.Config, path+".config"
	if len(inference.Adapters) > 0 {
		s.adapters, s.adapterPath = strconv.Itoa(len(inference.Adapters)), path+".adapters"
	}
}

// runtime is the server KAITO runs: vLLM unless the kaito.sh/runtime
// annotation says transformers (GetWorkspaceRuntimeName in
// api/v1beta1/labels.go).
func (s *kaitoSpec) runtime() string {
	if s.annotations["kaito.sh/runtime"] == "transformers" {
		return "transformers"
	}
	return "vllm"
}

// repository is the Hugging Face repository of the preset, "" for a
// preset KAITO does not know: a name with a slash is a repository itself,
// whose preset KAITO generates (GetModelByName in
// presets/workspace/models/vllm_model.go).
func (s *kaitoSpec) repository() string {
	name := strings.ToLower(s.preset)
	if repo, ok := kaitoPresetRepos[name]; ok {
		return repo
	}
	if strings.Contains(name, "/") {
		return name
	}
	return ""
}

// weightBytes is the size of the preset's weights in the catalog, 0 when
// not known.
func (s *kaitoSpec) weightBytes() int64 {
	name := strings.ToLower(s.preset)
	for preset, repo := range kaitoPresetRepos {
		if repo == name {
			name = preset
		}
	}
	return int64(kaitoPresetGiB[name] * (1 << 30))
}

// workload builds the workload of the pods KAITO runs for the spec: the
// preset's weights alone (no containers) when the preset, or the GPUs of
// its instance type, are not known. The pod spec is placed at specPath,
// a path no field of the object is written at.
func (s *kaitoSpec) workload(o *Object, component, specPath string) (*Workload, error) {
	p := &Preset{Name: s.preset, NamePath: s.presetPath, Runtime: s.runtime(), WeightBytes: s.weightBytes(),
		CountPath: s.countPath, InstanceTypePath: s.instanceTypePath}
	if s.count != nil {
		p.Count = *s.count
	}
	w := &Workload{Object: o, Component: component, SpecPath: specPath + ".pod", Spec: &corev1.PodSpec{},
		Platform: "kaito", Lifecycle: KeptRunning, InstanceType: s.instanceType, Preset: p}
	device, perNode, known := gpu.Instance(s.instanceType)
	repo := s.repository()
	shortName := repo[strings.LastIndexByte(repo, '/')+1:]
	if !known || repo == "" || p.Runtime == "transformers" && kaitoTransformersParams[shortName] == nil {
		return w, nil
	}
	nodes := 1
	if p.Runtime == "vllm" {
		// The Workspace's status.targetNodeCount: KAITO's estimate for
		// vLLM (UpdateWorkspaceTargetNodeCount in pkg/workspace/
		// controllers/workspace_controller.go), resource.count otherwise.
		if p.WeightBytes > 0 {
			nodes = max(int(KAITONodes(p.WeightBytes, device, perNode)), 1)
		}
	} else if p.Count > 0 {
		nodes = p.Count
	}
	w.Assumed = w.SpecPath
	s.buildPod(w, repo, shortName, device, perNode, nodes)
	return w, nil
}

// buildPod writes the pod spec KAITO's GenerateInferencePodSpec writes
// and places its fields.
func (s *kaitoSpec) buildPod(w *Workload, repo, shortName string, device gpu.GPU, perNode, nodes int) {
	spec := w.Spec
	vllm := s.runtime() == "vllm"
	// The weights are downloaded at run time into /workspace/weights, on
	// an emptyDir (SetDefaultModelWeightsVolume; a claim of the local
	// NVMe storage class where the SKU has NVMe and the class exists).
	mounts := []corev1.VolumeMount{{Name: "model-weights-volume", MountPath: kaitoWeightsPath}}
	spec.Volumes = []corev1.Volume{}
	configVolume := -1
	if s.config != "" {
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "config-volume", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: s.config}}}})
		mounts = append([]corev1.VolumeMount{{Name: "config-volume", MountPath: kaitoConfigPath}}, mounts...)
		configVolume = 0
	}
	spec.Volumes = append(spec.Volumes,
		corev1.Volume{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}},
		corev1.Volume{Name: "model-weights-volume", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	mounts = append(mounts, corev1.VolumeMount{Name: "dshm", MountPath: "/dev/shm"})

	// A decode pod's vLLM listens on 5001, behind the routing sidecar on
	// 5000 (needsRoutingSidecar, injectRoutingSidecar).
	port := int32(kaitoServerPort)
	sidecar := vllm && s.role == "decode"
	if sidecar {
		port = kaitoDecodePort
	}
	gpus := *resource.NewQuantity(int64(perNode), resource.DecimalSI)
	c := corev1.Container{
		Name:  s.name,
		Image: KAITOBaseImage,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{"nvidia.com/gpu": gpus},
			Limits:   corev1.ResourceList{"nvidia.com/gpu": gpus.DeepCopy()},
		},
		Ports:        []corev1.ContainerPort{{Name: "http", ContainerPort: port}},
		VolumeMounts: mounts,
	}
	timeout := kaitoReadinessTimeout(w.Preset.WeightBytes)
	health := func() *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: "/health", Port: intstr.FromInt32(port)}}, PeriodSeconds: 10}
	}
	c.StartupProbe, c.LivenessProbe, c.ReadinessProbe = health(), health(), health()
	c.StartupProbe.FailureThreshold = int32(math.Ceil(timeout / 10))
	c.LivenessProbe.FailureThreshold = 3
	c.ReadinessProbe.InitialDelaySeconds = 30
	distributed := vllm && nodes > 1
	if vllm {
		c.Ports = append(c.Ports, corev1.ContainerPort{Name: "kv-events", ContainerPort: kaitoKVEventsPort})
		// buildMainContainerEnv: KAITO ships no nvcc for FlashInfer's or
		// DeepGEMM's kernels.
		c.Env = []corev1.EnvVar{{Name: "VLLM_USE_FLASHINFER_SAMPLER", Value: "0"}, {Name: "VLLM_USE_DEEP_GEMM", Value: "0"}}
		c.Command = kaitoShell(s.vllmCommand(repo, shortName, device, perNode, nodes, w.Preset.WeightBytes, port))
		if distributed {
			s.distributedProbes(&c, timeout, port)
		}
		if s.annotations["kaito.sh/disable-benchmark"] != "true" {
			// SetBenchmarkConfig: the startup probe runs KAITO's benchmark
			// once vLLM answers, on the leader only when distributed.
			command := []string{"python3", "/workspace/vllm/benchmark_entrypoint.py"}
			if distributed {
				command = kaitoShell(`if [ "$POD_INDEX" = "0" ]; then python3 /workspace/vllm/benchmark_entrypoint.py; else true; fi`)
			}
			c.StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: command}},
				PeriodSeconds: 10, TimeoutSeconds: 600, FailureThreshold: int32(math.Ceil(timeout / 10))}
		}
	} else {
		c.Command = kaitoShell(s.transformersCommand(repo, shortName))
	}
	hfToken := -1
	if s.accessSecret != "" {
		// SetHFToken.
		c.Env = append(c.Env, corev1.EnvVar{Name: "HF_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: s.accessSecret}, Key: "HF_TOKEN", Optional: new(bool)}}})
		*c.Env[len(c.Env)-1].ValueFrom.SecretKeyRef.Optional = true
		hfToken = len(c.Env) - 1
	}
	if s.role == "prefill" || s.role == "decode" {
		// applyInferenceRoleEnv.
		c.Env = append(c.Env, corev1.EnvVar{Name: "KAITO_INFERENCE_ROLE", Value: s.role},
			fieldEnv("VLLM_NIXL_SIDE_CHANNEL_HOST", "status.podIP"))
	}
	spec.Containers = []corev1.Container{c}
	if sidecar {
		spec.Containers = append(spec.Containers, corev1.Container{
			Name:  "llm-d-routing-sidecar",
			Image: kaitoRoutingSidecarImage,
			Args:  []string{"--port=5000", "--vllm-port=5001", "--secure-proxy=false"},
			Ports: []corev1.ContainerPort{{ContainerPort: kaitoServerPort, Name: "sidecar", Protocol: corev1.ProtocolTCP}},
			Env:   []corev1.EnvVar{fieldEnv("POD_IP", "status.podIP"), fieldEnv("VLLM_NIXL_SIDE_CHANNEL_HOST", "status.podIP")},
		})
	}
	// defaultTolerations; the spot one only on Azure.
	spec.Tolerations = []corev1.Toleration{
		{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "sku", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
	}
	if len(s.matchLabels) > 0 {
		var requirements []corev1.NodeSelectorRequirement
		for _, key := range sortedKeys(s.matchLabels) {
			requirements = append(requirements, corev1.NodeSelectorRequirement{Key: key,
				Operator: corev1.NodeSelectorOpIn, Values: []string{s.matchLabels[key]}})
		}
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: requirements}}}}}
	}

	container := w.addContainer(&spec.Containers[0], IndexPath(JoinPath(w.SpecPath, "containers"), 0), false)
	container.Built = true
	container.Runtime = server.Named("kaito-vllm")
	if !vllm {
		container.Runtime = server.Named("kaito-transformers")
	}
	if distributed {
		container.inject("POD_INDEX")
	}
	if sidecar {
		w.addContainer(&spec.Containers[1], IndexPath(JoinPath(w.SpecPath, "containers"), 1), false).Built = true
	}
	w.place(s, configVolume, hfToken)
}

// place places the pod's fields at the fields of the spec that made KAITO
// write them: the GPUs and the parallelism at the instance type, the node
// affinity at the label selector, the config volume at inference.config,
// HF_TOKEN at the access secret, and the rest at the preset's name.
func (w *Workload) place(s *kaitoSpec, configVolume, hfToken int) {
	container := ".containers[0]"
	fields := map[string]string{
		container + ".resources": s.instanceTypePath,
		".affinity":              s.labelSelectorPath,
	}
	if configVolume >= 0 {
		fields[IndexPath(".volumes", configVolume)] = s.configPath
		fields[container+".volumeMounts[0]"] = s.configPath
		w.userCaused = append(w.userCaused, IndexPath(".volumes", configVolume), container+".volumeMounts[0]")
	}
	if s.rolePath != "" {
		fields[".containers[1]"] = s.rolePath // the decode role's routing sidecar
	}
	if hfToken >= 0 {
		fields[IndexPath(container+".env", hfToken)] = s.accessSecretPath
		w.userCaused = append(w.userCaused, IndexPath(container+".env", hfToken))
	}
	w.placeBuilt(fields, s.presetPath)
}

// placeBuilt places the fields of a pod the controller builds, under the
// workload's SpecPath: those under a prefix of fields (".affinity") at the
// object's field it names, the rest at rest; each at the part of its path
// the object has.
func (w *Workload) placeBuilt(fields map[string]string, rest string) {
	o := w.Object
	at := func(path string) FieldSource { return FieldSource{Object: o, Path: o.Written(path)} }
	o.borrowOnce(w.SpecPath, func(field string) (FieldSource, bool) {
		for prefix, path := range fields {
			if _, ok := pathUnder(field, prefix); ok {
				return at(path), true
			}
		}
		return at(rest), true
	})
}

// AssumedAt reports whether a field path of the workload's object (""
// for the workload as a whole) is in the pod spec its controller is
// assumed to build (see Workload.Assumed), and not one that any release
// builds of a field the user wrote (the ConfigMap volume of
// inference.config, the secret of an access secret).
func (w *Workload) AssumedAt(path string) bool {
	if w.Assumed == "" {
		return false
	}
	rest, under := pathUnder(path, w.Assumed)
	for _, field := range w.userCaused {
		if _, ok := pathUnder(rest, field); ok && under {
			return false
		}
	}
	return path == "" || under
}

// kaitoReadinessTimeout is how long, in seconds, KAITO's startup probe
// waits for the preset: 15 minutes and 18 s per GiB of weights, within
// 30 minutes and 3 hours (readinessTimeoutForModelSize in
// presets/workspace/models/vllm_model.go).
func kaitoReadinessTimeout(weightBytes int64) float64 {
	seconds := 15*60 + float64(weightBytes)/(1<<30)*18
	return min(max(seconds, 30*60), 180*60)
}

// vllmCommand is the shell line of buildVLLMInferenceCommand: KAITO's vLLM
// server with the model downloaded from the hub, vLLM sizing the context
// (--max-model-len=auto), and the preset spread by data parallelism when
// each GPU holds it twice over, else by tensor parallelism over the node's
// GPUs and, over several nodes, pipeline parallelism on a Ray cluster.
// Flags the preset generator adds per model (its dtype, tool and reasoning
// parsers, chat template, load format) are left out. KAITO writes the flags
// from a map, in no order; they are sorted here.
func (s *kaitoSpec) vllmCommand(repo, shortName string, device gpu.GPU, perNode, nodes int, weightBytes int64, port int32) string {
	params := map[string]string{
		"model": repo, "download-dir": kaitoWeightsPath, "served-model-name": shortName,
		"max-model-len": "auto", "gpu-memory-utilization": "0.84", "trust-remote-code": "",
		"kv-events-config": `'{"enable_kv_cache_events":true}'`,
		"compilation-config.pass_config.fuse_allreduce_rms": "False",
	}
	if s.inferenceSet != "" {
		params["served-model-name"] = s.inferenceSet
	}
	if device.Name == "NVIDIA A10" { // gpuMemoryUtilizationByGPUModel
		params["gpu-memory-utilization"] = "0.82"
	}
	if s.config != "" {
		params["kaito-config-file"] = kaitoConfigPath + "/inference_config.yaml"
	}
	if s.adapters != "" {
		params["enable-lora"] = ""
	}
	if port != kaitoServerPort {
		params["port"] = strconv.Itoa(int(port))
	}
	switch {
	case nodes == 1 && perNode > 1 && weightBytes > 0 && weightBytes*2 < device.MemoryBytes:
		// modelFitsOnSingleGPU: the file size is under half of one GPU.
		params["data-parallel-size"] = strconv.Itoa(perNode)
		params["tensor-parallel-size"] = "1"
		params["kaito-kv-cache-cpu-memory-utilization"] = "0"
	case nodes > 1:
		params["tensor-parallel-size"] = strconv.Itoa(perNode)
		params["pipeline-parallel-size"] = strconv.Itoa(nodes)
		params["distributed-executor-backend"] = "ray"
		params["kaito-kv-cache-cpu-memory-utilization"] = "0"
	default:
		params["tensor-parallel-size"] = strconv.Itoa(perNode)
	}
	serve := kaitoCommandLine("python3 /workspace/vllm/inference_api.py", params)
	if nodes == 1 {
		return serve
	}
	// buildMultiNodeRayCommand: pod 0 leads the Ray cluster and serves,
	// the others join it.
	leader := kaitoCommandLine("/workspace/vllm/multi-node-serving.sh leader",
		map[string]string{"ray_cluster_size": strconv.Itoa(nodes), "ray_port": strconv.Itoa(kaitoRayPort)})
	worker := kaitoCommandLine("/workspace/vllm/multi-node-serving.sh worker",
		map[string]string{"ray_address": s.leaderHost(), "ray_port": strconv.Itoa(kaitoRayPort)})
	return fmt.Sprintf(`if [ "${POD_INDEX}" = "0" ]; then %s; %s; else %s; fi`, leader, serve, worker)
}

// transformersCommand is the shell line of
// buildHuggingfaceInferenceCommand: accelerate launch of KAITO's
// transformers server, one process on all GPUs.
func (s *kaitoSpec) transformersCommand(repo, shortName string) string {
	params := map[string]string{"served_model_name": shortName, "pretrained_model_name_or_path": repo,
		"allow_remote_files": ""}
	for key, value := range kaitoTransformersParams[shortName] {
		params[key] = value
	}
	accelerate := kaitoCommandLine("accelerate launch",
		map[string]string{"num_processes": "1", "num_machines": "1", "machine_rank": "0", "gpu_ids": "all"})
	return accelerate + " " + kaitoCommandLine("/workspace/tfs/inference_api.py", params)
}

// distributedProbes are the exec probes of a pod of several
// (SetDistributedInferenceProbe): only the leader answers HTTP.
func (s *kaitoSpec) distributedProbes(c *corev1.Container, timeout float64, vllmPort int32) {
	probe := func(kind string, args map[string]string, timeoutSeconds, failures int32) *corev1.Probe {
		args["leader-address"] = s.leaderHost()
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{
			Command: kaitoShell(kaitoCommandLine("python3 /workspace/vllm/multi-node-health-check.py "+kind, args))}},
			PeriodSeconds: 10, TimeoutSeconds: timeoutSeconds, FailureThreshold: failures}
	}
	port := strconv.Itoa(int(vllmPort))
	c.LivenessProbe = probe("liveness", map[string]string{"ray-port": strconv.Itoa(kaitoRayPort)}, 5, 1)
	c.LivenessProbe.InitialDelaySeconds = 60
	c.ReadinessProbe = probe("readiness", map[string]string{"vllm-port": port}, 1, 1)
	c.StartupProbe = probe("readiness", map[string]string{"vllm-port": port}, 1, int32(math.Ceil(timeout/10)))
	c.Env = append(c.Env, corev1.EnvVar{Name: "POD_INDEX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
		FieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"}}})
}

// leaderHost is the first pod's address (GetRayLeaderHost in
// pkg/utils/common.go).
func (s *kaitoSpec) leaderHost() string {
	namespace := s.namespace
	if namespace == "" {
		namespace = "default"
	}
	return fmt.Sprintf("%s-0.%s-headless.%s.svc.cluster.local", s.name, s.name, namespace)
}

// kaitoCommandLine writes a command and its flags as BuildCmdStr in
// pkg/utils/common.go does ("--key=value", "--key" for an empty value).
func kaitoCommandLine(command string, params map[string]string) string {
	line := command
	for _, key := range sortedKeys(params) {
		if value := params[key]; value != "" {
			line += " --" + key + "=" + value
		} else {
			line += " --" + key
		}
	}
	return line
}

// kaitoShell is ShellCmd of pkg/utils/common.go.
func kaitoShell(line string) []string { return []string{"/bin/sh", "-c", line} }

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}
