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

// nimGroup is the API group of the NIM operator's kinds. Their pods are
// built as release v3.1.2 of the operator builds them.
const nimGroup = "apps.nvidia.com"

// nimPodPath is where a NIMService's pod is built: the pod template of the
// Deployment the NIM operator creates.
const nimPodPath = "deployment.spec.template.spec"

// What the NIM operator calls things (api/apps/v1alpha1/common_types.go
// and internal/utils/utils.go of github.com/NVIDIA/k8s-nim-operator).
const (
	nimModelStore   = "/model-store"
	nimDefaultPort  = 8000
	nimPortAPI      = "api"
	nimNGCAPIKey    = "NGC_API_KEY"
	nimHFToken      = "HF_TOKEN"
	nimModelProfile = "NIM_MODEL_PROFILE"
)

// nimImage is a NIM operator Image (api/apps/v1alpha1/common_types.go).
type nimImage struct {
	Repository  string   `json:"repository"`
	PullPolicy  string   `json:"pullPolicy"`
	Tag         string   `json:"tag"`
	PullSecrets []string `json:"pullSecrets"`
}

func (i nimImage) reference() string { return i.Repository + ":" + i.Tag }

// nimPVC is a NIM operator PersistentVolumeClaim.
type nimPVC struct {
	Create  *bool  `json:"create"`
	Name    string `json:"name"`
	SubPath string `json:"subPath"`
}

// nimServiceSpec is what a NIMService says of its pod
// (api/apps/v1alpha1/nimservice_types.go).
type nimServiceSpec struct {
	Image       nimImage          `json:"image"`
	Command     []string          `json:"command"`
	Args        []string          `json:"args"`
	Env         []corev1.EnvVar   `json:"env"`
	AuthSecret  string            `json:"authSecret"`
	Annotations map[string]string `json:"annotations"`
	Storage     struct {
		NIMCache struct {
			Name    string `json:"name"`
			Profile string `json:"profile"`
		} `json:"nimCache"`
		SharedMemorySizeLimit *resource.Quantity `json:"sharedMemorySizeLimit"`
		PVC                   nimPVC             `json:"pvc"`
		HostPath              *string            `json:"hostPath"`
		ReadOnly              *bool              `json:"readOnly"`
		EmptyDir              *struct {
			SizeLimit *resource.Quantity `json:"sizeLimit"`
		} `json:"emptyDir"`
	} `json:"storage"`
	NodeSelector map[string]string            `json:"nodeSelector"`
	Tolerations  []corev1.Toleration          `json:"tolerations"`
	Affinity     *corev1.Affinity             `json:"affinity"`
	Resources    *corev1.ResourceRequirements `json:"resources"`
	DRAResources []any                        `json:"draResources"`
	Expose       struct {
		Service struct {
			Port        *int32 `json:"port"`
			GRPCPort    *int32 `json:"grpcPort"`
			MetricsPort *int32 `json:"metricsPort"`
		} `json:"service"`
	} `json:"expose"`
	LivenessProbe     nimProbe       `json:"livenessProbe"`
	ReadinessProbe    nimProbe       `json:"readinessProbe"`
	StartupProbe      nimProbe       `json:"startupProbe"`
	SchedulerName     string         `json:"schedulerName"`
	UserID            *int64         `json:"userID"`
	GroupID           *int64         `json:"groupID"`
	RuntimeClassName  string         `json:"runtimeClassName"`
	PriorityClassName string         `json:"priorityClassName"`
	Proxy             any            `json:"proxy"`
	MultiNode         any            `json:"multiNode"`
	InferencePlatform string         `json:"inferencePlatform"`
	InitContainers    []nimContainer `json:"initContainers"`
	SidecarContainers []nimContainer `json:"sidecarContainers"`
}

type nimProbe struct {
	Enabled *bool         `json:"enabled"`
	Probe   *corev1.Probe `json:"probe"`
}

// nimContainer is a NIMContainerSpec, an init or sidecar container.
type nimContainer struct {
	Name       string          `json:"name"`
	Image      nimImage        `json:"image"`
	Command    []string        `json:"command"`
	Args       []string        `json:"args"`
	Env        []corev1.EnvVar `json:"env"`
	WorkingDir string          `json:"workingDir"`
}

// nimCacheSpec is what the NIMService's pod takes of a NIMCache
// (api/apps/v1alpha1/nimcache_types.go).
type nimCacheSpec struct {
	Source struct {
		NGC *struct {
			ModelEndpoint *string `json:"modelEndpoint"`
		} `json:"ngc"`
		DataStore any `json:"dataStore"`
		HF        any `json:"hf"`
	} `json:"source"`
	Storage struct {
		PVC nimPVC `json:"pvc"`
	} `json:"storage"`
}

// NIMServices builds the pod of each NIMService as the NIM operator's
// standalone platform does (NIMServiceReconciler.reconcileNIMService in
// internal/controller/platform/standalone/nimservice.go, from
// NIMService.GetDeploymentParams in api/apps/v1alpha1/nimservice_types.go,
// rendered by manifests/deployment.yaml): one container named
// <name>-ctr of spec.image (repository:tag), spec.command, spec.args,
// spec.resources, the user's env and then the operator's (NIM_CACHE_PATH
// /model-store, the server and API ports, NGC_API_KEY from the key of the
// spec.authSecret Secret), the port api (spec.expose.service.port, 8000),
// the probes of spec.*Probe.probe or the operator's defaults on
// /v1/health/live and /v1/health/ready (unless enabled: false), the
// model store at /model-store (the claim of the spec.storage.nimCache's
// NIMCache, of spec.storage.pvc, an emptyDir or a hostPath) and an
// in-memory /dev/shm, run as user 1000 and group 2000 unless
// spec.userID and spec.groupID say otherwise; init and sidecar containers
// with their own images and the main container's env. It returns notes
// for the run's -v output.
func NIMServices(set *manifest.Set) ([]string, error) {
	return eachSpec(set, nimGroup, "NIMService", nimService), nil
}

// nimService builds the NIMService's pod; the notes say what was assumed
// or why there is none.
func nimService(set *manifest.Set, o *manifest.Object, spec *nimServiceSpec) []string {
	switch {
	case spec.InferencePlatform == "kserve":
		return []string{fmt.Sprintf("%s: spec.inferencePlatform kserve: the NIM operator makes a KServe "+
			"InferenceService of it, whose pod modellint does not build", o.ID())}
	case spec.MultiNode != nil:
		return []string{fmt.Sprintf("%s: spec.multiNode: the NIM operator runs it as a LeaderWorkerSet, whose pods "+
			"modellint does not build", o.ID())}
	case spec.Image.Repository == "":
		return nil // the CRD requires it: MDL002 with the CRD's schema
	}
	var notes []string
	pod := newBuiltPod(o, "spec")
	main := corev1.Container{
		Name:            o.Name + "-ctr",
		Image:           spec.Image.reference(),
		ImagePullPolicy: corev1.PullPolicy(spec.Image.PullPolicy),
		Command:         spec.Command,
		Args:            spec.Args,
	}
	mainPath := container(0)
	pod.at(mainPath+".image", "spec.image.repository")
	pod.at(mainPath+".imagePullPolicy", "spec.image.pullPolicy")
	pod.at(mainPath+".name", "metadata.name")
	pod.mirror(mainPath+".command", "spec.command")
	pod.mirror(mainPath+".args", "spec.args")

	port := int32(nimDefaultPort)
	if spec.Expose.Service.Port != nil {
		port = *spec.Expose.Service.Port
	}
	main.Ports = []corev1.ContainerPort{{Name: nimPortAPI, Protocol: corev1.ProtocolTCP, ContainerPort: port}}
	pod.at(mainPath+".ports", "spec.expose.service.port")
	for _, extra := range []struct {
		name  string
		port  *int32
		field string
	}{{"grpc", spec.Expose.Service.GRPCPort, "grpcPort"}, {"metrics", spec.Expose.Service.MetricsPort, "metricsPort"}} {
		if extra.port != nil {
			pod.at(manifest.IndexPath(mainPath+".ports", len(main.Ports)), "spec.expose.service."+extra.field)
			main.Ports = append(main.Ports, corev1.ContainerPort{Name: extra.name, Protocol: corev1.ProtocolTCP, ContainerPort: *extra.port})
		}
	}

	// The operator's env (GetStandardEnv), each placed on the field that
	// sets it.
	own := []corev1.EnvVar{
		{Name: "NIM_CACHE_PATH", Value: nimModelStore},
		{Name: "OUTLINES_CACHE_DIR", Value: "/tmp/outlines"},
		{Name: "NIM_SERVER_PORT", Value: strconv.Itoa(int(port))},
		{Name: "NIM_HTTP_API_PORT", Value: strconv.Itoa(int(port))},
		{Name: "NIM_JSONL_LOGGING", Value: "1"},
		{Name: "NIM_LOG_LEVEL", Value: "INFO"},
	}
	if spec.AuthSecret != "" {
		own = append(own, secretEnv(nimNGCAPIKey, spec.AuthSecret, nimNGCAPIKey, false))
	}
	if p := spec.Expose.Service.GRPCPort; p != nil {
		own = append(own, corev1.EnvVar{Name: "NIM_GRPC_API_PORT", Value: strconv.Itoa(int(*p))},
			corev1.EnvVar{Name: "NIM_TRITON_GRPC_PORT", Value: strconv.Itoa(int(*p))})
	}
	if p := spec.Expose.Service.MetricsPort; p != nil {
		own = append(own, corev1.EnvVar{Name: "NIM_TRITON_METRICS_PORT", Value: strconv.Itoa(int(*p))})
	}
	env := mergeEnv(own, spec.Env)

	// The model store (the switch on the storage in reconcileNIMService).
	var modelVolume *corev1.Volume
	modelField, subPath := "", ""
	var cache *nimCacheSpec
	switch storage := spec.Storage; {
	case storage.NIMCache.Name != "":
		modelField = "spec.storage.nimCache.name"
		claim := storage.NIMCache.Name + "-pvc" // NIMCache.GetPVCName, the status.pvc of its claim
		if cacheObject := set.Find("NIMCache", o.Namespace, storage.NIMCache.Name); cacheObject != nil && cacheObject.Group() == nimGroup {
			cache = &nimCacheSpec{}
			if err := cacheObject.Decode(cache, "spec"); err != nil {
				cache = nil
			} else {
				// getNIMCachePVC: the cache's spec.storage.pvc, its name
				// the claim the cache made when it names none.
				subPath = cache.Storage.PVC.SubPath
				if cache.Storage.PVC.Name != "" {
					claim = cache.Storage.PVC.Name
				}
			}
		} else {
			notes = append(notes, fmt.Sprintf("%s: NIMCache %q is not in the linted files: the NIM operator fails the "+
				"NIMService until it exists, and its claim is taken to be %q", o.ID(), storage.NIMCache.Name, claim))
		}
		modelVolume = claimVolume(claim, storage.ReadOnly)
	case storage.PVC.Create != nil && *storage.PVC.Create:
		modelField, subPath = "spec.storage.pvc", storage.PVC.SubPath
		claim := storage.PVC.Name
		if claim == "" {
			claim = o.Name + "-pvc" // NIMService.GetPVCName
		}
		modelVolume = claimVolume(claim, storage.ReadOnly)
	case storage.PVC.Name != "":
		modelField, subPath = "spec.storage.pvc.name", storage.PVC.SubPath
		modelVolume = claimVolume(storage.PVC.Name, storage.ReadOnly)
	case storage.EmptyDir != nil:
		modelField = "spec.storage.emptyDir"
		modelVolume = &corev1.Volume{VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
			SizeLimit: storage.EmptyDir.SizeLimit}}}
	case storage.HostPath != nil && *storage.HostPath != "":
		modelField = "spec.storage.hostPath"
		directoryOrCreate := corev1.HostPathDirectoryOrCreate
		modelVolume = &corev1.Volume{VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
			Path: *storage.HostPath, Type: &directoryOrCreate}}}
	default:
		return append(notes, fmt.Sprintf("%s: no spec.storage names a NIMCache, a PVC, an emptyDir or a hostPath, so "+
			"the NIM operator refuses to build its pod (\"neither external PVC name, NIMCache volume, empty dir or "+
			"local host path should be provided\")", o.ID()))
	}
	modelVolume.Name = "model-store"

	// What the NIMCache (or a Hugging Face model) changes.
	placedEnv := map[string]string{"NIM_SERVER_PORT": "spec.expose.service.port", "NIM_HTTP_API_PORT": "spec.expose.service.port",
		"NIM_GRPC_API_PORT": "spec.expose.service.grpcPort", "NIM_TRITON_GRPC_PORT": "spec.expose.service.grpcPort",
		"NIM_TRITON_METRICS_PORT": "spec.expose.service.metricsPort", nimNGCAPIKey: "spec.authSecret",
		nimHFToken: "spec.authSecret", "NIM_CACHE_PATH": modelField}
	hfModel := slicesContainsEnv(env, "NIM_MODEL_NAME", func(value string) bool { return strings.HasPrefix(value, "hf://") })
	if cache != nil {
		universal := cache.Source.HF != nil || cache.Source.NGC != nil && cache.Source.NGC.ModelEndpoint != nil
		if universal {
			// A universal NIM reads the model the cache downloaded.
			env = mergeEnv([]corev1.EnvVar{{Name: "NIM_MODEL_NAME", Value: nimModelStore},
				{Name: "HF_HOME", Value: nimModelStore + "/huggingface/hub"}}, env)
			placedEnv["NIM_MODEL_NAME"], placedEnv["HF_HOME"] = modelField, modelField
		}
		hfModel = hfModel || cache.Source.HF != nil || cache.Source.DataStore != nil
	}
	if hfModel {
		// NGC_API_KEY becomes optional, HF_TOKEN is read from the same Secret.
		env = removeEnv(env, nimNGCAPIKey)
		if spec.AuthSecret != "" {
			env = mergeEnv([]corev1.EnvVar{secretEnv(nimNGCAPIKey, spec.AuthSecret, nimNGCAPIKey, true),
				secretEnv(nimHFToken, spec.AuthSecret, nimHFToken, false)}, env)
		}
	}
	incomplete := false
	if profile := spec.Storage.NIMCache.Profile; profile != "" && spec.Storage.NIMCache.Name != "" {
		env = mergeEnv([]corev1.EnvVar{{Name: nimModelProfile, Value: profile}}, env)
		placedEnv[nimModelProfile] = "spec.storage.nimCache.profile"
		optimized := cache == nil || cache.Source.NGC != nil && cache.Source.NGC.ModelEndpoint == nil
		if optimized && len(spec.DRAResources) == 0 && !requestsGPU(spec.Resources) {
			// addGPUResources gives the pod the tensor parallelism of the
			// cached profile in GPUs, which the cache's status holds.
			incomplete = true
			notes = append(notes, fmt.Sprintf("%s: the NIM operator gives its container as many nvidia.com/gpu as "+
				"profile %q of the NIMCache's status has tensor-parallel ranks, which the files do not say: the pod is "+
				"built without them", o.ID(), profile))
		}
	}
	main.Env = env
	// Each item of the env the user did not write first is placed on the
	// user's item of its name, else on the field that made the operator
	// add it.
	envField := func(name string) (string, bool) {
		for j := len(spec.Env) - 1; j >= 0; j-- {
			if spec.Env[j].Name == name {
				return manifest.IndexPath("spec.env", j), true
			}
		}
		if field, ok := placedEnv[name]; ok {
			return field, false
		}
		return "spec", false
	}
	pod.envSources(mainPath, env, "spec.env", 0, envField)

	if spec.Resources != nil {
		main.Resources = corev1.ResourceRequirements{Requests: spec.Resources.Requests, Limits: spec.Resources.Limits}
	}
	pod.mirror(mainPath+".resources", "spec.resources")

	for _, probe := range []struct {
		into     **corev1.Probe
		spec     nimProbe
		field    string
		fallback *corev1.Probe
	}{
		{&main.LivenessProbe, spec.LivenessProbe, "livenessProbe", nimProbeDefault("/v1/health/live", 15, 3)},
		{&main.ReadinessProbe, spec.ReadinessProbe, "readinessProbe", nimProbeDefault("/v1/health/ready", 15, 3)},
		{&main.StartupProbe, spec.StartupProbe, "startupProbe", nimProbeDefault("/v1/health/ready", 30, 120)},
	} {
		if probe.spec.Enabled != nil && !*probe.spec.Enabled {
			continue // IsProbeEnabled
		}
		*probe.into = probe.spec.Probe
		if *probe.into == nil {
			*probe.into = probe.fallback
		}
		pod.mirror(mainPath+"."+probe.field, "spec."+probe.field+".probe")
	}

	// Volumes and mounts (GetVolumes, GetVolumeMounts): the scratch
	// emptyDir when the user adds init or sidecar containers.
	shm := corev1.Volume{Name: "dshm", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
		Medium: corev1.StorageMediumMemory, SizeLimit: spec.Storage.SharedMemorySizeLimit}}}
	pod.spec.Volumes = []corev1.Volume{shm}
	pod.at(".volumes[0]", "spec.storage.sharedMemorySizeLimit")
	scratch := len(spec.InitContainers) > 0 || len(spec.SidecarContainers) > 0
	if scratch {
		pod.spec.Volumes = append(pod.spec.Volumes, corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{}}})
		pod.at(".volumes[1]", "spec.initContainers")
		if len(spec.InitContainers) == 0 {
			pod.at(".volumes[1]", "spec.sidecarContainers")
		}
	}
	pod.at(manifest.IndexPath(".volumes", len(pod.spec.Volumes)), modelField)
	pod.spec.Volumes = append(pod.spec.Volumes, *modelVolume)
	main.VolumeMounts = []corev1.VolumeMount{{Name: "model-store", MountPath: nimModelStore, SubPath: subPath},
		{Name: "dshm", MountPath: "/dev/shm"}}
	pod.at(mainPath+".volumeMounts[0]", modelField)
	pod.at(mainPath+".volumeMounts[1]", "spec.storage.sharedMemorySizeLimit")
	initMounts := []corev1.VolumeMount{main.VolumeMounts[0]}
	if scratch {
		scratchMount := corev1.VolumeMount{Name: "scratch", MountPath: "/scratch"}
		main.VolumeMounts = append(main.VolumeMounts, scratchMount)
		initMounts = append(initMounts, scratchMount)
		pod.at(mainPath+".volumeMounts[2]", "spec.initContainers")
	}
	pod.spec.Containers = []corev1.Container{main}

	// Init and sidecar containers (GetInitContainers, GetSidecarContainers):
	// their env, then the main container's.
	for i, extra := range spec.InitContainers {
		c := nimExtraContainer(extra, spec.Image, env)
		c.VolumeMounts = initMounts
		path := manifest.IndexPath("spec.initContainers", i)
		pod.mirror(initContainer(i), path)
		pod.at(initContainer(i)+".image", path+".image.repository")
		pod.at(initContainer(i)+".volumeMounts", path)
		pod.envSources(initContainer(i), c.Env, path+".env", len(extra.Env), envField)
		pod.spec.InitContainers = append(pod.spec.InitContainers, c)
	}
	for i, extra := range spec.SidecarContainers {
		c := nimExtraContainer(extra, spec.Image, env)
		c.VolumeMounts = main.VolumeMounts
		path := manifest.IndexPath("spec.sidecarContainers", i)
		under := container(len(pod.spec.Containers))
		pod.mirror(under, path)
		pod.at(under+".image", path+".image.repository")
		pod.at(under+".volumeMounts", path)
		pod.envSources(under, c.Env, path+".env", len(extra.Env), envField)
		pod.spec.Containers = append(pod.spec.Containers, c)
	}

	// The pod's own fields.
	for _, secret := range spec.Image.PullSecrets {
		pod.spec.ImagePullSecrets = append(pod.spec.ImagePullSecrets, corev1.LocalObjectReference{Name: secret})
	}
	pod.mirror(".imagePullSecrets", "spec.image.pullSecrets")
	pod.spec.NodeSelector, pod.spec.Tolerations, pod.spec.Affinity = spec.NodeSelector, spec.Tolerations, spec.Affinity
	pod.mirror(".nodeSelector", "spec.nodeSelector")
	pod.mirror(".tolerations", "spec.tolerations")
	pod.mirror(".affinity", "spec.affinity")
	pod.spec.RuntimeClassName = nonEmpty(spec.RuntimeClassName)
	pod.at(".runtimeClassName", "spec.runtimeClassName")
	pod.spec.SchedulerName, pod.spec.PriorityClassName = spec.SchedulerName, spec.PriorityClassName
	pod.at(".schedulerName", "spec.schedulerName")
	pod.at(".priorityClassName", "spec.priorityClassName")
	pod.spec.ServiceAccountName = o.Name // the operator creates it
	pod.at(".serviceAccountName", "metadata.name")
	user1000, group2000 := int64(1000), int64(2000)
	if spec.UserID != nil {
		user1000 = *spec.UserID
	}
	if spec.GroupID != nil {
		group2000 = *spec.GroupID
	}
	pod.spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: &user1000, RunAsGroup: &group2000, FSGroup: &group2000}
	pod.at(".securityContext.runAsUser", "spec.userID")
	pod.at(".securityContext.runAsGroup", "spec.groupID")
	pod.at(".securityContext.fsGroup", "spec.groupID")

	w := pod.workload(set, "", nimPodPath, incomplete)
	w.TemplateAnnotations, w.TemplateMetaPath = spec.Annotations, "spec"
	return notes
}

// nimProbeDefault is one of the NIM operator's default probes
// (GetDefaultLivenessProbe, GetDefaultReadinessProbe,
// GetDefaultStartupProbe).
func nimProbeDefault(path string, initialDelay, failureThreshold int32) *corev1.Probe {
	return &corev1.Probe{InitialDelaySeconds: initialDelay, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1,
		FailureThreshold: failureThreshold, ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path,
			Port: intstr.FromString(nimPortAPI)}}}
}

// nimExtraContainer is an init or sidecar container as the operator
// writes it: the pull policy of spec.image unless its own says one, its
// env and then the main container's (MergeEnvVars(params.Env, c.Env)).
func nimExtraContainer(extra nimContainer, image nimImage, env []corev1.EnvVar) corev1.Container {
	policy := extra.Image.PullPolicy
	if policy == "" {
		policy = image.PullPolicy
	}
	return corev1.Container{Name: extra.Name, Image: extra.Image.reference(), ImagePullPolicy: corev1.PullPolicy(policy),
		Command: extra.Command, Args: extra.Args, WorkingDir: extra.WorkingDir, Env: mergeEnv(env, extra.Env)}
}

func claimVolume(claim string, readOnly *bool) *corev1.Volume {
	return &corev1.Volume{VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{
		ClaimName: claim, ReadOnly: readOnly != nil && *readOnly}}}
}

func secretEnv(name, secret, key string, optional bool) corev1.EnvVar {
	ref := &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}
	if optional {
		ref.Optional = &optional
	}
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: ref}}
}

func removeEnv(env []corev1.EnvVar, name string) []corev1.EnvVar {
	var kept []corev1.EnvVar
	for _, variable := range env {
		if variable.Name != name {
			kept = append(kept, variable)
		}
	}
	return kept
}

func slicesContainsEnv(env []corev1.EnvVar, name string, value func(string) bool) bool {
	for _, variable := range env {
		if variable.Name == name && variable.ValueFrom == nil && value(variable.Value) {
			return true
		}
	}
	return false
}

func requestsGPU(resources *corev1.ResourceRequirements) bool {
	if resources == nil {
		return false
	}
	_, request := resources.Requests["nvidia.com/gpu"]
	_, limit := resources.Limits["nvidia.com/gpu"]
	return request || limit
}

func nonEmpty(value string) *string {
	if value == "" {
		return nil
	}
	return &value
}
