package compose

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/lint/manifest"
)

// kubeAIGroup is the API group of KubeAI's Model.
const kubeAIGroup = "kubeai.org"

// kubeAIPodPath is where a Model's pod is built: KubeAI's controller
// creates the server's Pods itself.
const kubeAIPodPath = "pod.spec"

// kubeAIVersion is the KubeAI release whose default system configuration
// (charts/kubeai/values.yaml) gives the images and resource profiles.
const kubeAIVersion = "v0.22.1"

// kubeAIImages are the server images of the default configuration's
// modelServers, by engine and then by the imageName of a resource profile
// ("default" when it names none or one the engine has not).
var kubeAIImages = map[string]map[string]string{
	"VLLM": {"default": "vllm/vllm-openai:v0.10.2", "nvidia-gpu": "vllm/vllm-openai:v0.10.2",
		"cpu": "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.10.2", "google-tpu": "vllm/vllm-tpu:23194d83e8f2a6783b0d8c275f5f8a22faab9aec",
		"gh200": "vllm/vllm-openai:v0.10.2", "amd-gpu": "rocm/vllm/rocm6.4.1_vllm_0.10.1_20250909"},
	"OLlama":        {"default": "ollama/ollama:0.11.11", "nvidia-gpu": "ollama/ollama:0.11.11", "amd-gpu": "ollama/ollama:0.11.11-rocm"},
	"FasterWhisper": {"default": "fedirz/faster-whisper-server:latest-cpu", "nvidia-gpu": "fedirz/faster-whisper-server:latest-cuda"},
	"Infinity": {"default": "michaelf34/infinity:0.0.77", "cpu": "michaelf34/infinity:0.0.77-cpu",
		"amd-gpu": "michaelf34/infinity:0.0.77-rocm", "nvidia-gpu": "michaelf34/infinity:0.0.77"},
}

// kubeAIProfile is a resource profile of KubeAI's system configuration
// (ResourceProfile in internal/config/system.go).
type kubeAIProfile struct {
	imageName        string
	requests, limits corev1.ResourceList
	tolerations      []corev1.Toleration
}

// kubeAIProfiles are the default configuration's resourceProfiles.
var kubeAIProfiles = func() map[string]kubeAIProfile {
	gpu := func(name, imageName string, requests bool, extra corev1.ResourceList) kubeAIProfile {
		resourceName := corev1.ResourceName(strings.SplitN(name, "-", 2)[0] + ".com/gpu")
		one := corev1.ResourceList{resourceName: resource.MustParse("1")}
		profile := kubeAIProfile{imageName: imageName, limits: one, tolerations: []corev1.Toleration{{Key: string(resourceName),
			Operator: corev1.TolerationOpEqual, Value: "present", Effect: corev1.TaintEffectNoSchedule}}}
		if requests {
			profile.requests = corev1.ResourceList{resourceName: resource.MustParse("1")}
			for key, value := range extra {
				profile.requests[key] = value
			}
		}
		return profile
	}
	l4 := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("6"), corev1.ResourceMemory: resource.MustParse("24Gi")}
	profiles := map[string]kubeAIProfile{
		"cpu": {imageName: "cpu", requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"),
			corev1.ResourceMemory: resource.MustParse("2Gi")}},
		"nvidia-gpu-t4":    gpu("nvidia-gpu-t4", "nvidia-gpu", true, nil),
		"nvidia-gpu-l4":    gpu("nvidia-gpu-l4", "nvidia-gpu", true, l4),
		"nvidia-gpu-l40s":  gpu("nvidia-gpu-l40s", "nvidia-gpu", true, l4),
		"nvidia-gpu-gh200": gpu("nvidia-gpu-gh200", "gh200", true, nil),
		"amd-gpu-mi300x":   gpu("amd-gpu-mi300x", "amd-gpu", false, nil),
	}
	for _, name := range []string{"nvidia-gpu-h100", "nvidia-gpu-a100-80gb", "nvidia-gpu-a100-40gb", "nvidia-gpu-a16",
		"nvidia-gpu-rtx4070-8gb"} {
		profiles[name] = gpu(name, "nvidia-gpu", false, nil)
	}
	// The T4 profile has no toleration.
	t4 := profiles["nvidia-gpu-t4"]
	t4.tolerations = nil
	profiles["nvidia-gpu-t4"] = t4
	return profiles
}()

// kubeAIHuggingfaceSecret is the Secret of the Hugging Face token the
// chart makes for a release named kubeai (kubeai.huggingfaceSecretName).
const kubeAIHuggingfaceSecret = "kubeai-huggingface"

// kubeAIModelSpec is what a Model says of its pods (api/k8s/v1/model_types.go).
type kubeAIModelSpec struct {
	URL               string                 `json:"url"`
	Engine            string                 `json:"engine"`
	ResourceProfile   string                 `json:"resourceProfile"`
	CacheProfile      string                 `json:"cacheProfile"`
	Image             string                 `json:"image"`
	Args              []string               `json:"args"`
	Env               map[string]string      `json:"env"`
	EnvFrom           []corev1.EnvFromSource `json:"envFrom"`
	Adapters          []any                  `json:"adapters"`
	PriorityClassName string                 `json:"priorityClassName"`
}

// KubeAIModels builds the server pod of each KubeAI Model as KubeAI's
// model controller does (internal/modelcontroller: getModelConfig and
// lookupServerImage in model_controller.go, the engines' pods in
// engine_vllm.go, engine_ollama.go, engine_infinity.go and
// engine_fasterwhisper.go, the model source in model_source.go), on the
// system configuration of KubeAI's Helm chart at its default values, which
// no file of a repository holds: the image of spec.image, else the
// engine's image for the resource profile's imageName; the requests and
// limits of spec.resourceProfile (<profile>:<multiple>) times the
// multiple; the engine's command, args, env, port 8000, probes and
// in-memory /dev/shm; the model source's claim (pvc://) or credentials.
// As an install may configure other images and profiles, the pod is
// incomplete: what seems wrong with it is a warning. It returns notes for
// the run's -v output.
func KubeAIModels(set *manifest.Set) ([]string, error) {
	return eachSpec(set, kubeAIGroup, "Model", func(set *manifest.Set, o *manifest.Object, spec *kubeAIModelSpec) []string {
		return []string{kubeAIModel(set, o, spec)}
	}), nil
}

func kubeAIModel(set *manifest.Set, o *manifest.Object, spec *kubeAIModelSpec) string {
	profileName, multipleText, ok := strings.Cut(spec.ResourceProfile, ":")
	multiple, err := strconv.Atoi(multipleText)
	if !ok || err != nil {
		return fmt.Sprintf("%s: spec.resourceProfile %q is not <name>:<multiple>, so KubeAI's controller refuses to build "+
			"its pods", o.ID(), spec.ResourceProfile)
	}
	profile, ok := kubeAIProfiles[profileName]
	if !ok {
		return fmt.Sprintf("%s: resource profile %q is not one of KubeAI %s's default configuration, so its pods are not "+
			"built (an install may define it)", o.ID(), profileName, kubeAIVersion)
	}
	scheme, ref, _ := strings.Cut(spec.URL, "://")
	ref, _, _ = strings.Cut(ref, "?")
	engine := spec.Engine
	images, ok := kubeAIImages[engine]
	if !ok {
		engine, images = "VLLM", kubeAIImages["VLLM"] // the controller's default case
	}

	pod := newBuiltPod(o, "spec")
	const mainPath = ".containers[0]"
	main := corev1.Container{Name: "server", Image: spec.Image, Ports: []corev1.ContainerPort{{ContainerPort: 8000,
		Protocol: corev1.ProtocolTCP, Name: "http"}}}
	if main.Image == "" {
		image, ok := images[profile.imageName]
		if !ok {
			image = images["default"]
		}
		main.Image = image
		pod.at(mainPath+".image", "spec.resourceProfile")
	} else {
		pod.at(mainPath+".image", "spec.image")
	}
	pod.at(mainPath, "spec.engine")
	pod.at(mainPath+".ports", "spec.engine")

	// The resources: the profile's, times the multiple.
	times := func(list corev1.ResourceList) corev1.ResourceList {
		if list == nil {
			return corev1.ResourceList{}
		}
		multiplied := corev1.ResourceList{}
		for name, quantity := range list {
			q := quantity.DeepCopy()
			q.Mul(int64(multiple))
			multiplied[name] = q
		}
		return multiplied
	}
	main.Resources = corev1.ResourceRequirements{Requests: times(profile.requests), Limits: times(profile.limits)}
	pod.at(mainPath+".resources", "spec.resourceProfile")

	http := intstr.FromString("http")
	probe := func(path string, failure, period, timeout, delay int32) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: http}},
			FailureThreshold: failure, PeriodSeconds: period, TimeoutSeconds: timeout, SuccessThreshold: 1,
			InitialDelaySeconds: delay}
	}
	modelRef := ref
	if spec.CacheProfile != "" {
		modelRef = "/models/" + o.Name // modelCacheDir, roughly: the cache's directory of the Model
	}
	env := func(name, value string) { main.Env = append(main.Env, corev1.EnvVar{Name: name, Value: value}) }
	userArgs := 0
	switch engine {
	case "OLlama":
		env("OLLAMA_HOST", "0.0.0.0:8000")
		env("OLLAMA_KEEP_ALIVE", "999999h")
		if scheme == "pvc" {
			env("OLLAMA_MODELS", "/model")
		}
		main.Args = spec.Args
		// The startup probe pulls the model (ollamaStartupProbeScript).
		main.StartupProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{
			Command: []string{"bash", "-c", "ollama pull " + modelRef}}}, InitialDelaySeconds: 1, PeriodSeconds: 3,
			FailureThreshold: 10, TimeoutSeconds: 60 * 180}
		main.ReadinessProbe = probe("/", 3, 10, 2, 0)
		main.LivenessProbe = probe("/", 3, 30, 3, 900)
	case "Infinity":
		main.Args = append([]string{"v2"}, spec.Args...)
		userArgs = 1
		env("INFINITY_MODEL_ID", modelRef)
		env("INFINITY_SERVED_MODEL_NAME", o.Name)
		env("INFINITY_URL_PREFIX", "/v1")
		env("INFINITY_ENGINE", "torch")
		env("INFINITY_PORT", "8000")
		main.StartupProbe, main.ReadinessProbe, main.LivenessProbe = probe("/health", 600, 2, 2, 0),
			probe("/health", 3, 10, 2, 0), probe("/health", 3, 30, 3, 0)
	case "FasterWhisper":
		main.Args = spec.Args
		env("WHISPER__MODEL", modelRef)
		env("ENABLE_UI", "false")
		main.StartupProbe, main.ReadinessProbe, main.LivenessProbe = probe("/health", 900, 2, 2, 0),
			probe("/health", 3, 10, 2, 0), probe("/health", 3, 30, 3, 0)
	default:
		model := ref
		switch {
		case spec.CacheProfile != "":
			model = modelRef
		case scheme == "s3":
			model = spec.URL
		}
		if scheme == "pvc" {
			model = "/model"
		}
		main.Command = []string{"python3", "-m", "vllm.entrypoints.openai.api_server"}
		main.Args = []string{"--model=" + model, "--served-model-name=" + o.Name}
		pod.at(mainPath+".args[0]", "spec.url")
		pod.at(mainPath+".args[1]", "metadata.name")
		if scheme == "s3" && spec.CacheProfile == "" {
			main.Args = append(main.Args, "--load-format=runai_streamer")
			pod.at(mainPath+".args[2]", "spec.url")
		}
		userArgs = len(main.Args)
		main.Args = append(main.Args, spec.Args...)
		if spec.Adapters != nil {
			pod.at(manifest.IndexPath(mainPath+".args", len(main.Args)), "spec.adapters")
			main.Args = append(main.Args, "--enable-lora")
			pod.at(manifest.IndexPath(mainPath+".env", len(main.Env)), "spec.adapters")
			env("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True")
		}
		main.StartupProbe, main.ReadinessProbe, main.LivenessProbe = probe("/health", 5400, 2, 2, 0),
			probe("/health", 3, 10, 2, 0), probe("/health", 3, 30, 3, 0)
	}
	for i := range spec.Args {
		pod.at(manifest.IndexPath(mainPath+".args", userArgs+i), manifest.IndexPath("spec.args", i))
	}
	for _, field := range []string{".startupProbe", ".readinessProbe", ".livenessProbe"} {
		pod.at(mainPath+field, "spec.engine")
	}
	// spec.env, by name, after the engine's.
	for _, name := range slices.Sorted(maps.Keys(spec.Env)) {
		pod.at(manifest.IndexPath(mainPath+".env", len(main.Env)), manifest.JoinPath("spec.env", name))
		env(name, spec.Env[name])
	}
	main.VolumeMounts = []corev1.VolumeMount{{Name: "dshm", MountPath: "/dev/shm"}}
	pod.spec.Volumes = []corev1.Volume{{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
		Medium: corev1.StorageMediumMemory}}}}
	pod.at(".volumes[0]", "spec.engine")
	pod.at(mainPath+".volumeMounts[0]", "spec.engine")
	main.SecurityContext = &corev1.SecurityContext{ReadOnlyRootFilesystem: new(bool), AllowPrivilegeEscalation: new(bool),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}

	// The model source's additions (parseModelSource), then spec.envFrom.
	switch scheme {
	case "hf":
		pod.at(manifest.IndexPath(mainPath+".env", len(main.Env)), "spec.url")
		main.Env = append(main.Env, secretEnv("HF_TOKEN", kubeAIHuggingfaceSecret, "token", true))
	case "pvc":
		name, path, _ := strings.Cut(ref, "/")
		pod.at(manifest.IndexPath(".volumes", len(pod.spec.Volumes)), "spec.url")
		pod.at(manifest.IndexPath(mainPath+".volumeMounts", len(main.VolumeMounts)), "spec.url")
		volume := claimVolume(name, nil)
		volume.Name = "model"
		pod.spec.Volumes = append(pod.spec.Volumes, *volume)
		main.VolumeMounts = append(main.VolumeMounts, corev1.VolumeMount{Name: "model", MountPath: "/model",
			SubPath: strings.TrimLeft(path, "/")})
	}
	for i := range spec.EnvFrom {
		pod.mirror(manifest.IndexPath(mainPath+".envFrom", len(main.EnvFrom)), manifest.IndexPath("spec.envFrom", i))
		main.EnvFrom = append(main.EnvFrom, spec.EnvFrom[i])
	}
	pod.spec.Containers = []corev1.Container{main}
	pod.spec.Tolerations = profile.tolerations
	pod.at(".tolerations", "spec.resourceProfile")
	pod.spec.PriorityClassName = spec.PriorityClassName
	pod.at(".priorityClassName", "spec.priorityClassName")

	pod.workload(set, "", kubeAIPodPath, true)
	return fmt.Sprintf("%s: its server pod is built as KubeAI %s builds it on the default configuration of its Helm "+
		"chart (image %s, resource profile %s × %d): an install that configures other images or profiles gets another "+
		"pod, so what seems wrong with this one is a warning", o.ID(), kubeAIVersion, main.Image, profileName, multiple)
}
