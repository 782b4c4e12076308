package manifest

import (
	"fmt"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/lint/server"
)

// The pod templates of the CRDs LLM serving and batch work run under:
// LeaderWorkerSet, KubeRay's RayService, RayCluster and RayJob, KServe's
// LLMInferenceService and JobSet (KAITO's Workspace has a single template:
// see podTemplates). Each controller adds env vars to the pods it creates,
// recorded as the containers' InjectedEnv so $(NAME) of them is not taken
// for a typo.

// lwsEnv are added by the LeaderWorkerSet webhook to every container, init
// containers included.
var lwsEnv = []string{"LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE", "LWS_WORKER_INDEX"}

// lwsTPUEnv are added besides to the containers that request TPUs.
var lwsTPUEnv = []string{"TPU_WORKER_HOSTNAMES", "TPU_WORKER_ID", "TPU_NAME", "TPU_PROCESS_ADDRESSES", "TPU_PROCESS_PORT"}

// KubeRay adds rayContainerEnv to the Ray container (the first container)
// of every head and worker pod, rayHeadEnv to the head's, rayAddressEnv to
// the workers' and to every init container, and rayServiceEnv to the Ray
// containers of a RayService's clusters.
var (
	rayContainerEnv = []string{"RAY_CLUSTER_NAME", "RAY_CLUSTER_NAMESPACE", "RAY_CLOUD_INSTANCE_ID", "RAY_NODE_TYPE_NAME",
		"KUBERAY_GEN_RAY_START_CMD", "RAY_PORT", "RAY_ADDRESS", "RAY_USAGE_STATS_KUBERAY_IN_USE", "RAY_DASHBOARD_ENABLE_K8S_DISK_USAGE"}
	rayHeadEnv    = []string{"RAY_USAGE_STATS_EXTRA_TAGS"}
	rayAddressEnv = []string{"FQ_RAY_IP", "RAY_IP"}
	rayServiceEnv = []string{"RAY_timeout_ms_task_wait_for_death_info", "RAY_gcs_server_request_timeout_seconds",
		"RAY_SERVE_KV_TIMEOUT_S"}
	// raySubmitterEnv is what KubeRay adds to a RayJob's submitter container
	// (ray-operator/controllers/ray/rayjob_controller.go).
	raySubmitterEnv = []string{"RAY_DASHBOARD_ADDRESS", "RAY_JOB_SUBMISSION_ID"}
)

// indexedJobEnv is added by the Job controller to every container of an
// Indexed Job.
var indexedJobEnv = []string{"JOB_COMPLETION_INDEX"}

// tpuResource is the resource name of Google Cloud TPUs.
const tpuResource corev1.ResourceName = "google.com/tpu"

// leaderWorkerSetWorkloads yields the leader template and the worker
// template. Without a leaderTemplate the leader runs the worker template,
// which is then the one workload, named without a component.
func leaderWorkerSetWorkloads(o *Object) ([]*Workload, error) {
	var spec struct {
		Replicas             *int32 `json:"replicas"`
		LeaderWorkerTemplate struct {
			Size                 *int32 `json:"size"`
			VolumeClaimTemplates []struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			} `json:"volumeClaimTemplates"`
		} `json:"leaderWorkerTemplate"`
		RolloutStrategy struct {
			RollingUpdateConfiguration struct {
				MaxUnavailable *intstr.IntOrString `json:"maxUnavailable"`
				MaxSurge       *intstr.IntOrString `json:"maxSurge"`
			} `json:"rollingUpdateConfiguration"`
		} `json:"rolloutStrategy"`
	}
	if err := o.Decode(&spec, "spec"); err != nil {
		return nil, err
	}
	group := &PodGroup{Size: 1}
	if size := spec.LeaderWorkerTemplate.Size; size != nil {
		group.Size, group.SizePath = *size, "spec.leaderWorkerTemplate.size"
	}
	leader, err := templateWorkload(o, "leader", "spec.leaderWorkerTemplate.leaderTemplate")
	if err != nil {
		return nil, err
	}
	worker, err := templateWorkload(o, "worker", "spec.leaderWorkerTemplate.workerTemplate")
	if err != nil {
		return nil, err
	}
	switch {
	case leader == nil && worker != nil:
		leader, worker = worker, nil
		leader.Component = ""
	case group.Size == 1:
		worker = nil // a group of one is its leader: no worker pod runs the template
	}
	if leader == nil {
		return nil, nil
	}
	rolling := spec.RolloutStrategy.RollingUpdateConfiguration
	leader.RollingUpdate = &RollingUpdate{Replicas: spec.Replicas, Path: "spec.rolloutStrategy.rollingUpdateConfiguration",
		MaxUnavailable: rolling.MaxUnavailable, MaxSurge: rolling.MaxSurge,
		DefaultMaxUnavailable: intstr.FromInt32(1), DefaultMaxSurge: intstr.FromInt32(0)}
	workloads := []*Workload{leader}
	if worker != nil {
		workloads = append(workloads, worker)
	}
	// Each pod of the group gets a claim of every template, as a
	// StatefulSet's pods do (LeaderWorkerTemplate.VolumeClaimTemplates).
	var claims []string
	for _, template := range spec.LeaderWorkerTemplate.VolumeClaimTemplates {
		claims = append(claims, template.Metadata.Name)
	}
	group.Pods = map[string][]corev1.ResourceRequirements{}
	for _, w := range workloads {
		w.Lifecycle, w.Group, w.ClaimTemplates = KeptRunning, group, claims
		w.injectLWSEnv()
		for _, c := range w.Containers {
			group.Pods[w.Component] = append(group.Pods[w.Component], *c.Resources.DeepCopy())
		}
	}
	return workloads, nil
}

// injectLWSEnv records what the LeaderWorkerSet webhook adds to the pods.
func (w *Workload) injectLWSEnv() {
	for _, c := range w.Containers {
		c.inject(lwsEnv...)
		if requestsResource(c, tpuResource) {
			c.inject(lwsTPUEnv...)
		}
	}
}

func requestsResource(c *Container, name corev1.ResourceName) bool {
	limit, request := c.Resources.Limits[name], c.Resources.Requests[name]
	return !limit.IsZero() || !request.IsZero()
}

// rayServiceWorkloads yields the head and worker groups of the RayService's
// cluster, each carrying the Ray Serve applications.
func rayServiceWorkloads(o *Object) ([]*Workload, error) {
	workloads, err := rayClusterSpecWorkloads(o, "spec.rayClusterConfig", KeptRunning, true)
	if err != nil {
		return nil, err
	}
	var serveConfig *string
	if err := o.Decode(&serveConfig, "spec", "serveConfigV2"); err != nil {
		return nil, err
	}
	if serveConfig != nil {
		for _, w := range workloads {
			w.ServeConfig, w.ServeConfigPath = *serveConfig, "spec.serveConfigV2"
		}
	}
	return workloads, nil
}

func rayClusterWorkloads(o *Object) ([]*Workload, error) {
	return rayClusterSpecWorkloads(o, "spec", KeptRunning, false)
}

// aibrixRayClusters yields the head and worker groups of the RayCluster an
// AIBrix RayClusterFleet or RayClusterReplicaSet makes of each replica.
func aibrixRayClusters(o *Object) ([]*Workload, error) {
	return rayClusterSpecWorkloads(o, "spec.template.spec", KeptRunning, false)
}

// rayJobWorkloads yields the pods of the cluster a RayJob brings up for
// itself; one that names an existing cluster (clusterSelector) has none.
// The submitter pod (spec.submitterPodTemplate, the Job that runs ray job
// submit in the default K8sJobMode) is one more.
func rayJobWorkloads(o *Object) ([]*Workload, error) {
	workloads, err := rayClusterSpecWorkloads(o, "spec.rayClusterSpec", RunToCompletion, false)
	if err != nil {
		return nil, err
	}
	submitter, err := templateWorkload(o, "submitter", "spec.submitterPodTemplate")
	if err != nil || submitter == nil {
		return workloads, err
	}
	submitter.Platform, submitter.Lifecycle = "kuberay", RunToCompletion
	for _, c := range submitter.Containers {
		if !c.Init {
			c.inject(raySubmitterEnv...)
		}
	}
	var job struct {
		SubmissionMode string `json:"submissionMode"`
		Entrypoint     string `json:"entrypoint"`
	}
	if err := o.Decode(&job, "spec"); err != nil {
		return nil, err
	}
	if c := submitter.rayContainer(); c != nil && (job.SubmissionMode == "" || job.SubmissionMode == "K8sJobMode") {
		c.kubeRaySubmit(job.Entrypoint)
	}
	return append(workloads, submitter), nil
}

// rayClusterSpecWorkloads yields the head group and each worker group of
// the RayClusterSpec at path.
func rayClusterSpecWorkloads(o *Object, path string, lifecycle Lifecycle, rayService bool) ([]*Workload, error) {
	var cluster struct {
		HeadGroupSpec struct {
			RayStartParams map[string]string `json:"rayStartParams"`
		} `json:"headGroupSpec"`
		WorkerGroupSpecs []struct {
			GroupName      string            `json:"groupName"`
			RayStartParams map[string]string `json:"rayStartParams"`
		} `json:"workerGroupSpecs"`
	}
	if err := o.Decode(&cluster, splitPath(path)...); err != nil {
		return nil, err
	}
	var meta struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := o.Decode(&meta, "metadata"); err != nil {
		return nil, err
	}
	type group struct {
		component, path string
		head            bool
		rayStartParams  map[string]string
	}
	groups := []group{{"head", path + ".headGroupSpec.template", true, cluster.HeadGroupSpec.RayStartParams}}
	for i, worker := range cluster.WorkerGroupSpecs {
		name := worker.GroupName
		if name == "" {
			name = strconv.Itoa(i)
		}
		groups = append(groups, group{"worker group " + name, IndexPath(path+".workerGroupSpecs", i) + ".template", false, worker.RayStartParams})
	}
	var workloads []*Workload
	for _, g := range groups {
		w, err := templateWorkload(o, g.component, g.path)
		if err != nil {
			return nil, err
		}
		if w == nil {
			continue
		}
		w.Platform, w.Lifecycle = "kuberay", lifecycle
		w.injectRayEnv(g.head, rayService)
		if ray := w.rayContainer(); ray != nil {
			w.kubeRayStart(ray, g.head, g.rayStartParams, meta.Annotations)
		}
		workloads = append(workloads, w)
	}
	return workloads, nil
}

// injectRayEnv records what KubeRay adds to a head (head true) or worker pod.
func (w *Workload) injectRayEnv(head, rayService bool) {
	rayContainerSeen := false
	for _, c := range w.Containers {
		switch {
		case c.Init:
			c.inject(rayAddressEnv...)
		case !rayContainerSeen:
			rayContainerSeen = true
			c.inject(rayContainerEnv...)
			if head {
				c.inject(rayHeadEnv...)
			} else {
				c.inject(rayAddressEnv...)
			}
			if rayService {
				c.inject(rayServiceEnv...)
			}
		}
	}
}

// llmInferenceServiceWorkloads yields the pod specs of an
// LLMInferenceService: spec.template (the decode pods when spec.prefill
// is written), spec.worker for multi-node serving, the same two under
// spec.prefill, and the router's scheduler (spec.router.scheduler.template).
func llmInferenceServiceWorkloads(o *Object) ([]*Workload, error) {
	var spec struct {
		Model struct {
			URI string `json:"uri"`
		} `json:"model"`
		Prefill any `json:"prefill"`
	}
	if err := o.Decode(&spec, "spec"); err != nil {
		return nil, err
	}
	// With prefill pods beside them, the pods of spec.template only decode.
	decode := ""
	if spec.Prefill != nil {
		decode = "decode"
	}
	var workloads []*Workload
	for _, part := range []struct{ path, component string }{{"spec", decode}, {"spec.prefill", "prefill"}} {
		if _, ok := o.Lookup(splitPath(part.path)...); !ok {
			continue
		}
		partWorkloads, err := llmWorkloadSpecWorkloads(o, part.path, part.component)
		if err != nil {
			return nil, err
		}
		workloads = append(workloads, partWorkloads...)
	}
	if spec.Model.URI != "" {
		for _, w := range workloads {
			w.ModelURI, w.ModelURIPath = spec.Model.URI, "spec.model.uri"
		}
	}
	// The router's scheduler (the endpoint picker of the inference pool)
	// runs as a Deployment of its own when its pod spec is written.
	scheduler, err := newWorkload(o, "router scheduler", "spec.router.scheduler.template", "")
	if err != nil {
		return nil, err
	}
	if scheduler != nil {
		scheduler.Platform, scheduler.Lifecycle = "kserve", KeptRunning
		workloads = append(workloads, scheduler)
	}
	return workloads, nil
}

// llmWorkloadSpecWorkloads yields the template and the worker of the
// LLMInferenceService WorkloadSpec at path. With a worker, KServe runs them
// as a LeaderWorkerSet (the template is the leader), else the template as a
// Deployment. The spec's labels and annotations go on the pods, so path is
// also the pods' metadata.
func llmWorkloadSpecWorkloads(o *Object, path, component string) ([]*Workload, error) {
	var spec struct {
		Replicas        *int32 `json:"replicas"`
		RolloutStrategy struct {
			MaxUnavailable *intstr.IntOrString `json:"maxUnavailable"`
			MaxSurge       *intstr.IntOrString `json:"maxSurge"`
		} `json:"rolloutStrategy"`
	}
	if err := o.Decode(&spec, splitPath(path)...); err != nil {
		return nil, err
	}
	rolling := &RollingUpdate{Replicas: spec.Replicas, Path: path + ".rolloutStrategy",
		MaxUnavailable: spec.RolloutStrategy.MaxUnavailable, MaxSurge: spec.RolloutStrategy.MaxSurge,
		DefaultMaxUnavailable: intstr.FromString("25%"), DefaultMaxSurge: intstr.FromString("25%")}
	_, multiNode := o.Lookup(append(splitPath(path), "worker")...)
	if multiNode {
		rolling.DefaultMaxUnavailable, rolling.DefaultMaxSurge = intstr.FromInt32(1), intstr.FromInt32(0)
	}
	var workloads []*Workload
	for _, pod := range []struct{ field, component string }{
		{"template", component},
		{"worker", strings.TrimSpace(component + " worker")},
	} {
		w, err := newWorkload(o, pod.component, path+"."+pod.field, path)
		if err != nil {
			return nil, err
		}
		if w == nil {
			continue
		}
		w.Platform, w.Lifecycle = "kserve", KeptRunning
		w.markPresetContainer()
		if multiNode {
			w.injectLWSEnv()
		}
		workloads = append(workloads, w)
	}
	if len(workloads) > 0 {
		workloads[0].RollingUpdate = rolling
	}
	return workloads, nil
}

// markPresetContainer marks the container named "main", into which KServe
// merges the LLMInferenceServiceConfig presets: they give it its image, its
// command (vllm serve), probes and volumes.
func (w *Workload) markPresetContainer() {
	for _, c := range w.Containers {
		if c.Init || c.Name != "main" {
			continue
		}
		c.FromServingRuntime = true
		if c.Runtime == nil || c.Runtime == server.Generic {
			c.Runtime = server.ForKServeFormat("vllm")
		}
	}
}

// jobSetWorkloads yields the pod template of each replicated job.
func jobSetWorkloads(o *Object) ([]*Workload, error) {
	var spec struct {
		ReplicatedJobs []struct {
			Name     string `json:"name"`
			Template struct {
				Spec struct {
					CompletionMode *batchv1.CompletionMode `json:"completionMode"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"replicatedJobs"`
	}
	if err := o.Decode(&spec, "spec"); err != nil {
		return nil, err
	}
	var workloads []*Workload
	for i, job := range spec.ReplicatedJobs {
		path := IndexPath("spec.replicatedJobs", i)
		name := job.Name
		if name == "" {
			name = fmt.Sprintf("replicatedJobs[%d]", i)
		}
		w, err := templateWorkload(o, name, path+".template.spec.template")
		if err != nil {
			return nil, err
		}
		if w == nil {
			continue
		}
		w.Lifecycle = RunToCompletion
		// The JobSet webhook makes the Jobs Indexed unless told otherwise.
		if mode := job.Template.Spec.CompletionMode; mode == nil || *mode == batchv1.IndexedCompletion {
			w.injectEnv(indexedJobEnv...)
		}
		workloads = append(workloads, w)
	}
	return workloads, nil
}

// injectEnv records env vars the controller adds to every container.
func (w *Workload) injectEnv(names ...string) {
	for _, c := range w.Containers {
		c.inject(names...)
	}
}

func (c *Container) inject(names ...string) {
	c.InjectedEnv = append(c.InjectedEnv, names...)
}

// notLintedKinds have no pod template although a controller builds pods
// from them.
var notLintedKinds = map[string]string{
	"apps.nvidia.com/NIMService": "the NIM operator builds the Deployment's pod from spec.image, spec.resources, " +
		"spec.env, spec.storage and spec.*Probe with its own env, ports, probes and volumes; modellint builds it the " +
		"same way (lint/compose), each field on the line that made the operator write it",
	"apps.nvidia.com/NIMCache": "not linted: the NIM operator builds the pod of the Job that downloads the " +
		"model into a PVC itself; modellint does not compose it",
	"apps.nvidia.com/NIMPipeline": "not linted: the NIM operator makes a NIMService of each spec.services entry " +
		"and builds their pods; modellint does not compose them",
	// https://github.com/substratusai/kubeai (api/k8s/v1/model_types.go)
	"kubeai.org/Model": "KubeAI's model controller builds the server's pods (vLLM, Ollama, Infinity, FasterWhisper) " +
		"from spec.engine, spec.url, spec.args and spec.resourceProfile with the images and resource profiles of its " +
		"system configuration; modellint builds them the same way on the default configuration (lint/compose)",
	// https://github.com/InftyAI/llmaz (api/inference/v1alpha1)
	"inference.llmaz.io/Playground": "llmaz builds the inference Service's pod from the BackendRuntime and the " +
		"OpenModel the Playground names; modellint builds it the same way (lint/compose), each field on the object " +
		"that wrote it",
	"inference.llmaz.io/BackendRuntime": "llmaz builds the pods of the Playgrounds that use this backend from its " +
		"image, command, args and probes; modellint builds them with each Playground (lint/compose)",
	// https://github.com/vllm-project/production-stack (operator/api/v1alpha1)
	"production-stack.vllm.ai/VLLMRuntime": "the vLLM production-stack operator builds the vLLM Deployment's pod " +
		"from spec.model, spec.vllmConfig, spec.storageConfig and spec.deploymentConfig; modellint builds it the same " +
		"way (lint/compose), each field on the line that made the operator write it",
	"serving.kserve.io/LLMInferenceServiceConfig": "not linted: a preset that KServe merges into the " +
		"LLMInferenceServices naming it, not a pod of its own",
	// Seldon v2 loads these onto the pods of a Server, linted with the Server.
	"mlops.seldon.io/Model": "Seldon schedules the model onto a Server's pods, which are linted with the Server: " +
		"only where it can be placed (MDL221) and its secretName (MDL209) are checked",
	"mlops.seldon.io/Pipeline": "not linted: Seldon runs the pipeline on its own dataflow engine, not in a pod of " +
		"its own",
	"mlops.seldon.io/Explainer": "not linted: Seldon schedules the explainer onto a Server's pods, which are " +
		"linted with the Server",
	"mlops.seldon.io/Experiment": "not linted: Seldon splits traffic between models; no pod of its own",
}

// NotLinted says why an object yields no pod template to lint, "" when it
// may yield one: most kinds only hold what pods refer to (a ConfigMap, a
// Service), and some controllers build their pods from fields that are no
// pod template.
func NotLinted(o *Object) string {
	key := o.Group() + "/" + o.Kind
	if reason, ok := notLintedKinds[key]; ok {
		return reason
	}
	switch key {
	case "kaito.sh/Workspace":
		if _, ok := o.Lookup("inference", "template"); ok {
			break
		}
		if name, _ := o.Lookup("inference", "preset", "name"); name != nil {
			if w, err := kaitoPresetWorkload(o); err == nil && w != nil && len(w.Containers) > 0 {
				return fmt.Sprintf("KAITO builds the pods of preset %v: they are linted as KAITO v0.12 builds them "+
					"(its base image and command, the GPUs of resource.instanceType), their errors as warnings", name)
			}
			return fmt.Sprintf("KAITO builds the pods of preset %v from its model catalog; the preset or the GPUs "+
				"of resource.instanceType are not known, so only the preset's weights are checked (MDL408)", name)
		}
		return "not linted: KAITO builds the pods of tuning itself; only inference.template is a pod template"
	case "machinelearning.seldon.io/SeldonDeployment":
		if servers := prepackagedServers(o); len(servers) > 0 {
			if config := o.seldonConfig; config != nil {
				return fmt.Sprintf("the prepackaged %s containers are built from the predictor_servers of %s (%s), "+
					"which replace Seldon Core's defaults", strings.Join(servers, ", "), config.Object.ID(),
					config.Object.File.Path)
			}
			return "the prepackaged " + strings.Join(servers, ", ") + " containers are built from Seldon Core " +
				seldonVersion + "'s defaults (seldon-config's predictor_servers); a seldon-config of your own may " +
				"name other images"
		}
	case "serving.kserve.io/LLMInferenceService":
		written := false
		for _, path := range [][]string{{"spec", "template"}, {"spec", "worker"}, {"spec", "prefill", "template"}, {"spec", "prefill", "worker"}} {
			_, ok := o.Lookup(path...)
			written = written || ok
		}
		if !written {
			return "not linted: no spec.template or spec.worker, so KServe builds the whole pod from the " +
				"LLMInferenceServiceConfig presets"
		}
	}
	if !IsWorkloadKind(o) {
		return "no pod template, only used for references"
	}
	return ""
}
