package compose

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint/manifest"
)

// The API groups of llmaz's kinds.
const (
	llmazInferenceGroup = "inference.llmaz.io"
	llmazCoreGroup      = "llmaz.io"
)

// llmazPodPath is where a Playground's pod is built: the worker template
// of the LeaderWorkerSet of the inference Service llmaz makes of it.
const llmazPodPath = "service.spec.workloadTemplate.workerTemplate.spec"

// llmazVersion is the llmaz release whose chart's BackendRuntime and
// global configuration are used when the files hold none.
const llmazVersion = "v0.1.4"

// What llmaz calls things (pkg/controller_helper/modelsource/modelsource.go
// of github.com/InftyAI/llmaz).
const (
	llmazModelPath      = "/workspace/models/"
	llmazModelVolume    = "model-volume"
	llmazBackendPort    = 8080
	llmazModelHubSecret = "modelhub-secret"
	// llmazModelLoader is the model loader's image the chart's global
	// configuration names (init-container-image).
	llmazModelLoader = "inftyai/model-loader:v0.0.10"
)

// llmazBackendRuntime is a BackendRuntime's spec
// (api/inference/v1alpha1/backendruntime_types.go).
type llmazBackendRuntime struct {
	Command            []string                 `json:"command"`
	Image              string                   `json:"image"`
	Version            string                   `json:"version"`
	Envs               []corev1.EnvVar          `json:"envs"`
	Lifecycle          *corev1.Lifecycle        `json:"lifecycle"`
	LivenessProbe      *corev1.Probe            `json:"livenessProbe"`
	ReadinessProbe     *corev1.Probe            `json:"readinessProbe"`
	StartupProbe       *corev1.Probe            `json:"startupProbe"`
	RecommendedConfigs []llmazRecommendedConfig `json:"recommendedConfigs"`
}

type llmazRecommendedConfig struct {
	Name             string             `json:"name"`
	Args             []string           `json:"args"`
	Resources        *llmazResources    `json:"resources"`
	SharedMemorySize *resource.Quantity `json:"sharedMemorySize"`
}

type llmazResources struct {
	Limits   corev1.ResourceList `json:"limits"`
	Requests corev1.ResourceList `json:"requests"`
}

// llmazDefaultVLLM is the BackendRuntime vllm llmaz's chart installs
// (chart/templates/backends/vllm.yaml at the values of
// chart/values.global.yaml): its default and speculative-decoding configs.
func llmazDefaultVLLM() *llmazBackendRuntime {
	health := func(delay, period, failure int32) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health",
			Port: intstr.FromInt32(8080)}}, InitialDelaySeconds: delay, PeriodSeconds: period, FailureThreshold: failure}
	}
	four, eight := resource.MustParse("4"), resource.MustParse("8Gi")
	shm := resource.MustParse("2Gi")
	runtime := &llmazBackendRuntime{Command: []string{"python3", "-m", "vllm.entrypoints.openai.api_server"},
		Image: "vllm/vllm-openai", Version: "v0.7.3", StartupProbe: health(0, 10, 30), LivenessProbe: health(15, 10, 3),
		ReadinessProbe: health(5, 5, 3)}
	eight16 := resource.MustParse("16Gi")
	runtime.RecommendedConfigs = []llmazRecommendedConfig{{
		Name: "default",
		Args: []string{"--model", "{{ .ModelPath }}", "--served-model-name", "{{ .ModelName }}", "--host", "0.0.0.0",
			"--port", "8080"},
		SharedMemorySize: &shm,
		Resources: &llmazResources{Limits: corev1.ResourceList{corev1.ResourceCPU: four, corev1.ResourceMemory: eight},
			Requests: corev1.ResourceList{corev1.ResourceCPU: four, corev1.ResourceMemory: eight}},
	}, {
		Name: "speculative-decoding",
		Args: []string{"--model", "{{ .ModelPath }}", "--served-model-name", "{{ .ModelName }}", "--speculative_model",
			"{{ .DraftModelPath }}", "--host", "0.0.0.0", "--port", "8080", "--num_speculative_tokens", "5", "-tp", "1"},
		SharedMemorySize: &shm,
		Resources: &llmazResources{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"),
			corev1.ResourceMemory: eight16}, Requests: corev1.ResourceList{corev1.ResourceCPU: four, corev1.ResourceMemory: eight}},
	}}
	return runtime
}

// llmazPlayground is a Playground's spec (api/inference/v1alpha1/playground_types.go).
type llmazPlayground struct {
	ModelClaim *struct {
		ModelName        string   `json:"modelName"`
		InferenceFlavors []string `json:"inferenceFlavors"`
	} `json:"modelClaim"`
	ModelClaims *struct {
		Models []struct {
			Name string  `json:"name"`
			Role *string `json:"role"`
		} `json:"models"`
		InferenceFlavors []string `json:"inferenceFlavors"`
	} `json:"modelClaims"`
	BackendRuntimeConfig *struct {
		BackendName      *string            `json:"backendName"`
		Version          *string            `json:"version"`
		Envs             []corev1.EnvVar    `json:"envs"`
		ConfigName       *string            `json:"configName"`
		Args             []string           `json:"args"`
		Resources        *llmazResources    `json:"resources"`
		SharedMemorySize *resource.Quantity `json:"sharedMemorySize"`
	} `json:"backendRuntimeConfig"`
}

// llmazModel is an OpenModel's spec (api/core/v1alpha1/model_types.go).
type llmazModel struct {
	Source struct {
		ModelHub *struct {
			Name     *string `json:"name"`
			ModelID  string  `json:"modelID"`
			Filename *string `json:"filename"`
		} `json:"modelHub"`
		URI *string `json:"uri"`
	} `json:"source"`
	InferenceConfig *struct {
		Flavors []struct {
			Name   string              `json:"name"`
			Limits corev1.ResourceList `json:"limits"`
		} `json:"flavors"`
	} `json:"inferenceConfig"`
}

// llmazFlag is a {{ .Name }} of a BackendRuntime's args (renderFlags).
var llmazFlag = lazyregexp.New(`\{\{\s*\.(\w+)\s*\}\}`)

// Playgrounds builds the pod of each llmaz Playground as llmaz builds it
// (buildTemplate in pkg/controller/inference/playground_controller.go,
// BackendRuntimeParser in pkg/controller_helper/backendruntime, then
// injectModelProperties in service_controller.go and the model sources of
// pkg/controller_helper/modelsource): the model-runner container of the
// BackendRuntime spec.backendRuntimeConfig.backendName names (vllm by
// default; llmaz's chart installs it, which is used when the files hold
// none), its image and version, command, envs (the Playground's over
// them), the args of its recommended config (default, or
// speculative-decoding with a draft model) with {{ .ModelPath }} and
// {{ .ModelName }} filled in, then the Playground's; the config's resources
// under the Playground's, the limits of the model's inference flavor over
// both; its probes, lifecycle and /dev/shm; port 8080; and the model: the
// model-loader init container filling an emptyDir at /workspace/models/
// (read-only in the runner), or a hostPath at the model's path. The pod
// takes the loader's image from llmaz's global configuration (the chart's
// default) and, when the files hold no BackendRuntime vllm, the chart's:
// the pod is then incomplete, its errors warnings. It returns notes for
// -v.
func Playgrounds(set *manifest.Set) ([]string, error) {
	return eachSpec(set, llmazInferenceGroup, "Playground", func(set *manifest.Set, o *manifest.Object, spec *llmazPlayground) []string {
		return noteList(playground(set, o, spec))
	}), nil
}

func playground(set *manifest.Set, o *manifest.Object, spec *llmazPlayground) string {
	// The models: the main one, and a draft one (DetectArgFrom).
	var modelName, draftName string
	var flavors []string
	configName := "default"
	switch {
	case spec.ModelClaim != nil:
		modelName, flavors = spec.ModelClaim.ModelName, spec.ModelClaim.InferenceFlavors
	case spec.ModelClaims != nil && len(spec.ModelClaims.Models) > 0:
		flavors = spec.ModelClaims.InferenceFlavors
		for _, model := range spec.ModelClaims.Models {
			switch {
			case model.Role != nil && *model.Role == "draft":
				draftName, configName = model.Name, "speculative-decoding"
			case modelName == "":
				modelName = model.Name
			}
		}
	default:
		return ""
	}
	config := spec.BackendRuntimeConfig
	if config != nil && config.ConfigName != nil {
		configName = *config.ConfigName
	}
	modelObject := findAnyNamespace(set, llmazCoreGroup, "OpenModel", o.Namespace, modelName)
	if modelObject == nil {
		return fmt.Sprintf("%s: OpenModel %q is not in the linted files, so its pod, whose args name the model's path, "+
			"is not built", o.ID(), modelName)
	}
	var model llmazModel
	if err := modelObject.Decode(&model, "spec"); err != nil {
		return ""
	}

	backend := "vllm"
	if config != nil && config.BackendName != nil {
		backend = *config.BackendName
	}
	incomplete := false
	runtimeObject := findAnyNamespace(set, llmazInferenceGroup, "BackendRuntime", o.Namespace, backend)
	var runtime *llmazBackendRuntime
	var note string
	if runtimeObject != nil {
		runtime = &llmazBackendRuntime{}
		if err := runtimeObject.Decode(runtime, "spec"); err != nil {
			return ""
		}
	} else if backend == "vllm" {
		runtime, incomplete = llmazDefaultVLLM(), true
		note = fmt.Sprintf("%s: BackendRuntime vllm is not in the linted files, so its pod is built from the one llmaz "+
			"%s's chart installs (image vllm/vllm-openai:v0.7.3)", o.ID(), llmazVersion)
	} else {
		return fmt.Sprintf("%s: BackendRuntime %q is not in the linted files, so its pod is not built", o.ID(), backend)
	}
	configIndex := slices.IndexFunc(runtime.RecommendedConfigs, func(c llmazRecommendedConfig) bool {
		return c.Name == configName
	})
	if configIndex < 0 {
		return fmt.Sprintf("%s: BackendRuntime %q has no recommended config %q, so llmaz fails to build its pod",
			o.ID(), backend, configName)
	}
	recommended := runtime.RecommendedConfigs[configIndex]

	pod := newBuiltPod(o, "spec")
	const mainPath = ".containers[0]"
	// runtimeField places a field on the BackendRuntime when the files
	// hold it, else on the Playground's backendRuntimeConfig.
	runtimeField := func(under, path string) {
		if runtimeObject != nil {
			pod.mirrorIn(runtimeObject, under, path)
		} else {
			pod.at(under, "spec.backendRuntimeConfig")
		}
	}
	configPath := manifest.IndexPath("spec.recommendedConfigs", configIndex)

	version := runtime.Version
	runtimeField(mainPath+".image", "spec.image")
	if config != nil && config.Version != nil {
		version = *config.Version
		pod.at(mainPath+".image", "spec.backendRuntimeConfig.version")
	}
	main := corev1.Container{Name: "model-runner", Image: runtime.Image + ":" + version, Command: runtime.Command,
		Lifecycle: runtime.Lifecycle, StartupProbe: runtime.StartupProbe, LivenessProbe: runtime.LivenessProbe,
		ReadinessProbe: runtime.ReadinessProbe,
		Ports:          []corev1.ContainerPort{{Name: "http", Protocol: corev1.ProtocolTCP, ContainerPort: llmazBackendPort}}}
	runtimeField(mainPath+".command", "spec.command")
	runtimeField(mainPath+".lifecycle", "spec.lifecycle")
	for _, probe := range []string{"startupProbe", "livenessProbe", "readinessProbe"} {
		runtimeField(mainPath+"."+probe, "spec."+probe)
	}

	// The model: its path and where it comes from (ModelHubProvider,
	// URIProvider).
	skipLoader := false
	if value, _ := o.Lookup("metadata", "annotations", "llmaz.io/skip-model-loader"); value == "true" {
		skipLoader = true
	}
	modelPath, modelSource := llmazModelPathOf(&model, skipLoader)
	info := map[string]string{"ModelPath": modelPath, "ModelName": modelName}
	if draftName != "" {
		if draftObject := findAnyNamespace(set, llmazCoreGroup, "OpenModel", o.Namespace, draftName); draftObject != nil {
			var draft llmazModel
			if draftObject.Decode(&draft, "spec") == nil {
				info["DraftModelPath"], _ = llmazModelPathOf(&draft, skipLoader)
			}
		}
	}
	for i, flag := range recommended.Args {
		for _, match := range llmazFlag.FindAllStringSubmatch(flag, -1) {
			value, ok := info[match[1]]
			if !ok || value == "" {
				return fmt.Sprintf("%s: arg %q of BackendRuntime %q names no model field llmaz fills in, so llmaz fails "+
					"to build its pod", o.ID(), flag, backend)
			}
			flag = strings.ReplaceAll(flag, match[0], value)
		}
		runtimeField(manifest.IndexPath(mainPath+".args", i), manifest.IndexPath(configPath+".args", i))
		main.Args = append(main.Args, flag)
	}
	if config != nil {
		for i, arg := range config.Args {
			pod.at(manifest.IndexPath(mainPath+".args", len(main.Args)), manifest.IndexPath("spec.backendRuntimeConfig.args", i))
			main.Args = append(main.Args, arg)
		}
	}

	// The env: the BackendRuntime's, each replaced by the Playground's of
	// its name (MergeEnvs, whose order is a map's: here the runtime's first).
	for i, variable := range runtime.Envs {
		runtimeField(manifest.IndexPath(mainPath+".env", len(main.Env)), manifest.IndexPath("spec.envs", i))
		main.Env = append(main.Env, variable)
	}
	if config != nil {
		for i, variable := range config.Envs {
			index := slices.IndexFunc(main.Env, func(e corev1.EnvVar) bool { return e.Name == variable.Name })
			if index < 0 {
				index = len(main.Env)
				main.Env = append(main.Env, variable)
			} else {
				main.Env[index] = variable
			}
			pod.mirror(manifest.IndexPath(mainPath+".env", index), manifest.IndexPath("spec.backendRuntimeConfig.envs", i))
		}
	}

	// The resources: the Playground's over the config's, requests above
	// their limits raised, then the flavor's limits over both.
	resources := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
	if recommended.Resources != nil {
		resources.Requests, resources.Limits = recommended.Resources.Requests.DeepCopy(), recommended.Resources.Limits.DeepCopy()
	}
	runtimeField(mainPath+".resources", configPath+".resources")
	if config != nil && config.Resources != nil {
		for name, quantity := range config.Resources.Limits {
			resources.Limits = withQuantity(resources.Limits, name, quantity)
			pod.at(mainPath+".resources.limits"+manifestKey(string(name)), "spec.backendRuntimeConfig.resources.limits"+manifestKey(string(name)))
		}
		for name, quantity := range config.Resources.Requests {
			resources.Requests = withQuantity(resources.Requests, name, quantity)
			pod.at(mainPath+".resources.requests"+manifestKey(string(name)), "spec.backendRuntimeConfig.resources.requests"+manifestKey(string(name)))
		}
		// "Make sure the limits are always greater than requests."
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			request, ok := resources.Requests[name]
			if limit := resources.Limits[name]; ok && request.Cmp(limit) > 0 {
				resources.Limits = withQuantity(resources.Limits, name, request)
			}
		}
	}
	if model.InferenceConfig != nil && len(model.InferenceConfig.Flavors) > 0 {
		flavor := model.InferenceConfig.Flavors[0].Name
		if len(flavors) > 0 {
			flavor = flavors[0]
		}
		for i, f := range model.InferenceConfig.Flavors {
			if f.Name != flavor {
				continue
			}
			for name, quantity := range f.Limits {
				resources.Requests = withQuantity(resources.Requests, name, quantity)
				resources.Limits = withQuantity(resources.Limits, name, quantity)
				field := manifest.IndexPath("spec.inferenceConfig.flavors", i) + ".limits" + manifestKey(string(name))
				pod.mirrorIn(modelObject, mainPath+".resources.requests"+manifestKey(string(name)), field)
				pod.mirrorIn(modelObject, mainPath+".resources.limits"+manifestKey(string(name)), field)
			}
			break
		}
	}
	main.Resources = resources

	shm := recommended.SharedMemorySize
	shmField := func(under string) { runtimeField(under, configPath+".sharedMemorySize") }
	if config != nil && config.SharedMemorySize != nil {
		shm = config.SharedMemorySize
		shmField = func(under string) { pod.at(under, "spec.backendRuntimeConfig.sharedMemorySize") }
	}
	if shm != nil {
		shmField(manifest.IndexPath(".volumes", len(pod.spec.Volumes)))
		shmField(manifest.IndexPath(mainPath+".volumeMounts", len(main.VolumeMounts)))
		pod.spec.Volumes = append(pod.spec.Volumes, corev1.Volume{Name: "dshm", VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: shm}}})
		main.VolumeMounts = append(main.VolumeMounts, corev1.VolumeMount{Name: "dshm", MountPath: "/dev/shm"})
	}
	pod.at(".volumes", "spec.backendRuntimeConfig.sharedMemorySize")
	pod.at(mainPath+".volumeMounts", "spec.backendRuntimeConfig.sharedMemorySize")

	// The model's volume and loader (injectModelProperties).
	sourceField := "spec.source"
	switch {
	case modelSource == "hostpath":
		path := strings.TrimPrefix(*model.Source.URI, "host://")
		pod.atIn(modelObject, manifest.IndexPath(".volumes", len(pod.spec.Volumes)), sourceField)
		pod.atIn(modelObject, manifest.IndexPath(mainPath+".volumeMounts", len(main.VolumeMounts)), sourceField)
		pod.spec.Volumes = append(pod.spec.Volumes, corev1.Volume{Name: llmazModelVolume, VolumeSource: corev1.VolumeSource{
			HostPath: &corev1.HostPathVolumeSource{Path: path}}})
		main.VolumeMounts = append(main.VolumeMounts, corev1.VolumeMount{Name: llmazModelVolume, MountPath: path, ReadOnly: true})
	case modelSource == "ollama" || skipLoader:
	default:
		loader := corev1.Container{Name: "model-loader", Image: llmazModelLoader,
			VolumeMounts: []corev1.VolumeMount{{Name: llmazModelVolume, MountPath: llmazModelPath}}}
		loader.Env = append(loader.Env, main.Env...) // spreadEnvToInitContainer
		loader.Env = append(loader.Env, llmazLoaderEnv(&model)...)
		pod.atIn(modelObject, initContainer(0), sourceField)
		pod.spec.InitContainers = []corev1.Container{loader}
		pod.atIn(modelObject, manifest.IndexPath(mainPath+".volumeMounts", len(main.VolumeMounts)), sourceField)
		pod.atIn(modelObject, manifest.IndexPath(".volumes", len(pod.spec.Volumes)), sourceField)
		main.VolumeMounts = append(main.VolumeMounts, corev1.VolumeMount{Name: llmazModelVolume, MountPath: llmazModelPath,
			ReadOnly: true})
		pod.spec.Volumes = append(pod.spec.Volumes, corev1.Volume{Name: llmazModelVolume, VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	}
	pod.spec.Containers = []corev1.Container{main}
	grace := int64(130)
	pod.spec.TerminationGracePeriodSeconds = &grace

	pod.workload(set, "", llmazPodPath, incomplete)
	return note
}

// llmazModelPathOf is the path of the model in the runner (ModelPath) and
// the kind of its source: "modelhub", "hostpath", "ollama" or the URI's
// protocol.
func llmazModelPathOf(model *llmazModel, skipLoader bool) (string, string) {
	if hub := model.Source.ModelHub; hub != nil {
		switch {
		case skipLoader:
			return hub.ModelID, "modelhub"
		case hub.Filename != nil:
			return llmazModelPath + *hub.Filename, "modelhub"
		}
		return llmazModelPath + "models--" + strings.ReplaceAll(hub.ModelID, "/", "--"), "modelhub"
	}
	if model.Source.URI == nil {
		return "", ""
	}
	protocol, value, _ := strings.Cut(*model.Source.URI, "://")
	switch protocol {
	case "host":
		return value, "hostpath"
	case "ollama":
		if skipLoader {
			return *model.Source.URI, protocol
		}
	}
	if skipLoader {
		return *model.Source.URI, protocol
	}
	splits := strings.Split(value, "/")
	if strings.Contains(value, ".gguf") {
		return llmazModelPath + splits[len(splits)-1], protocol
	}
	return llmazModelPath + "models--" + splits[len(splits)-1], protocol
}

// llmazLoaderEnv is what the model loader is told of a model hub's model,
// and the optional token of modelhub-secret.
func llmazLoaderEnv(model *llmazModel) []corev1.EnvVar {
	var env []corev1.EnvVar
	if hub := model.Source.ModelHub; hub != nil {
		name := "Huggingface"
		if hub.Name != nil {
			name = *hub.Name
		}
		env = append(env, corev1.EnvVar{Name: "MODEL_SOURCE_TYPE", Value: "modelhub"}, corev1.EnvVar{Name: "MODEL_ID", Value: hub.ModelID},
			corev1.EnvVar{Name: "MODEL_HUB_NAME", Value: name})
		if hub.Filename != nil {
			env = append(env, corev1.EnvVar{Name: "MODEL_FILENAME", Value: *hub.Filename})
		}
		env = append(env, secretEnv("HUGGING_FACE_HUB_TOKEN", llmazModelHubSecret, "HF_TOKEN", true),
			secretEnv("HF_TOKEN", llmazModelHubSecret, "HF_TOKEN", true))
	}
	return env
}

func withQuantity(list corev1.ResourceList, name corev1.ResourceName, quantity resource.Quantity) corev1.ResourceList {
	if list == nil {
		list = corev1.ResourceList{}
	}
	list[name] = quantity
	return list
}

// findAnyNamespace is the object of the group, kind and name in the
// namespace, else of any namespace.
func findAnyNamespace(set *manifest.Set, group, kind, namespace, name string) *manifest.Object {
	if o := set.Find(kind, namespace, name); o != nil && o.Group() == group {
		return o
	}
	for _, o := range set.OfKinds(kind) {
		if o.Name == name && o.Group() == group {
			return o
		}
	}
	return nil
}
