package rules

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/gpu"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/triton"
	"github.com/modellint/modellint/lint/server"
)

var memoryLimitMissing = &lint.Rule{
	ID: "MDL205", Name: "memory-limit-missing", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest}, Fixes: lint.FixSafe,
	Doc: lint.Doc{
		Summary: "A model-server container sets no memory limit.",
		Why: "A model server's memory is the model (often several GiB) plus per-request buffers that grow with load. " +
			"Without a limit the scheduler cannot know what the pod will take: the node runs out of memory, the kernel " +
			"OOM-kills whatever is largest (the model server, exit 137) and the kubelet evicts neighbours under memory " +
			"pressure. A LimitRange in the namespace may add a default limit that fits a web app, not a model, with the same " +
			"OOMKilled result. Not reported when a LimitRange in the linted files sets a default, nor for InferenceServices " +
			"and ServingRuntimes, whose defaults KServe fills in.",
		Bad: `containers:
  - name: triton
    image: nvcr.io/nvidia/tritonserver:24.08-py3
    resources:
      requests:
        cpu: "2"`,
		Good: `containers:
  - name: triton
    image: nvcr.io/nvidia/tritonserver:24.08-py3
    resources:
      requests:
        cpu: "2"
        memory: 12Gi
      limits:
        memory: 12Gi`,
		Fix: "Set resources.limits.memory to what the loaded model needs plus headroom (MDL401 checks it against the " +
			"model when the model directory is linted), and the memory request to the same value.",
		References: []string{
			"https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/",
			"https://kubernetes.io/docs/tasks/configure-pod-container/assign-memory-resource/#exceed-a-containers-memory-limit",
			"https://kubernetes.io/docs/concepts/policy/limit-range/",
		},
	},
	Check: checkMemoryLimit,
}

func checkMemoryLimit(pass *lint.Pass) {
	w := pass.Workload()
	serving := servingContainers(pass)
	if len(serving) == 0 {
		return
	}
	if platformFillsPod(w) {
		pass.Skip(skipKServeResources)
		return
	}
	if _, ok := limitRangeDefault(pass, "default", corev1.ResourceMemory); ok {
		pass.Skip("a LimitRange in the linted files sets a default memory limit")
		return
	}
	if builtByKAITO(pass, serving) {
		return
	}
	for _, c := range serving {
		if _, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
			continue
		}
		reportFixed(pass, fixMissingMemoryLimit(pass, c), resourcePath(c, "limits", corev1.ResourceMemory),
			"%s sets no memory limit: the node can run out of memory and the kernel OOM-kills the model server (exit 137) "+
				"or the kubelet evicts pods; set resources.limits.memory to the model's need plus headroom%s",
			describe(c), requestHint(c))
	}
}

// fixMissingMemoryLimit sets the limit MDL401 would ask for the linked
// model; without a linked model there is no figure to write, and the fix
// stays a suggestion.
func fixMissingMemoryLimit(pass *lint.Pass, c *manifest.Container) *lint.Fix {
	need, ok := modelMemoryNeed(pass, c)
	if !ok {
		return nil
	}
	value := memoryToWrite(need)
	if request, ok := c.Resources.Requests[corev1.ResourceMemory]; ok && request.Value() > need {
		value = request.String() // the limit may not be below the request
	}
	var edits []manifest.Edit
	var suggestion string
	if fixable(c) {
		edits, suggestion = setField(pass.Workload().Object, c.Path+".resources.limits.memory", value, nil)
	}
	return lint.EditFix("set the memory limit to "+value+", the linked model's estimate rounded up", suggestion, edits...)
}

// requestHint suggests the memory request as a starting point when there is one.
func requestHint(c *manifest.Container) string {
	if request, ok := c.Resources.Requests[corev1.ResourceMemory]; ok {
		return " (at least the request, " + request.String() + ")"
	}
	return ""
}

var requestsMissing = &lint.Rule{
	ID: "MDL206", Name: "requests-missing", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A model-server container has no cpu or memory request, or requests more than its limit.",
		Why: "Requests are what the scheduler reserves. A model server without them is scheduled onto nodes that cannot " +
			"hold the model and, with no requests at all, is BestEffort: the first pod the kubelet evicts under node " +
			"pressure, taking the model (and its load time) with it. A request above its limit is rejected by the API " +
			"server, so the Deployment never creates a pod. A limit alone is fine: Kubernetes then uses it as the request. " +
			"Missing requests are not reported for InferenceServices and ServingRuntimes (KServe fills in defaults) or " +
			"when a LimitRange in the linted files sets a default.",
		Bad: `resources:
  limits:
    cpu: "1"
  requests:
    cpu: "2"`,
		Good: `resources:
  requests:
    cpu: "2"
    memory: 8Gi
  limits:
    memory: 8Gi`,
		Fix: "Set requests.cpu and requests.memory to what the server needs when serving, and keep every request at or below its limit.",
		References: []string{
			"https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#requests-and-limits",
			"https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/",
			"https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/",
		},
	},
	Check: checkRequests,
}

// builtByKAITO skips the pass when KAITO builds the serving containers
// (a preset Workspace's): KAITO gives them GPUs only, on nodes it
// provisions for the Workspace, and the Workspace has no field for their
// memory or CPU.
func builtByKAITO(pass *lint.Pass, serving []*manifest.Container) bool {
	if !slices.ContainsFunc(serving, func(c *manifest.Container) bool { return !c.Built }) {
		pass.Skip(skipBuiltByKAITO)
		return true
	}
	return false
}

const skipBuiltByKAITO = "KAITO builds the container of the preset, with GPU resources only, and a Workspace has no field for its CPU or memory"

// comparedResources are checked for request > limit; GPUs are MDL212's.
var comparedResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage}

func checkRequests(pass *lint.Pass) {
	w := pass.Workload()
	serving := servingContainers(pass)
	for _, c := range serving {
		for _, name := range comparedResources {
			request, hasRequest := c.Resources.Requests[name]
			limit, hasLimit := c.Resources.Limits[name]
			if hasRequest && hasLimit && request.Cmp(limit) > 0 {
				pass.Report(lint.Diagnostic{Severity: lint.Error, Path: resourcePath(c, "requests", name), Message: fmt.Sprintf(
					"%s requests %s %s but its limit is %s: the API server rejects a request above its limit, so no pod is created; "+
						"lower the request to at most %s or raise the limit", describe(c), name, request.String(), limit.String(), limit.String())})
			}
		}
		if platformFillsPod(w) || c.Built {
			continue
		}
		var missing []string
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if hasEffectiveRequest(pass, c, name) {
				continue
			}
			missing = append(missing, string(name))
		}
		switch len(missing) {
		case 0:
		case 1:
			effect := "the scheduler reserves no memory for it, so it lands on nodes that cannot hold the model and is among " +
				"the first evicted under node pressure"
			if missing[0] == string(corev1.ResourceCPU) {
				effect = "the scheduler reserves no CPU for it, so busy neighbours starve it (slow inference, probe timeouts)"
			}
			pass.Reportf(resourcePath(c, "requests", corev1.ResourceName(missing[0])),
				"%s sets no %s request (and no %s limit to default it from): %s; set resources.requests.%s",
				describe(c), missing[0], missing[0], effect, missing[0])
		default:
			pass.Reportf(c.Path+".resources.requests",
				"%s sets no cpu or memory request or limit, so it is BestEffort: the first pod evicted under node pressure, "+
					"scheduled with nothing reserved for the model; set resources.requests.cpu and resources.requests.memory",
				describe(c))
		}
	}
}

// hasEffectiveRequest reports whether the container ends up with a request:
// written, defaulted from its limit, or from a LimitRange.
func hasEffectiveRequest(pass *lint.Pass, c *manifest.Container, name corev1.ResourceName) bool {
	if _, ok := c.Resources.Requests[name]; ok {
		return true
	}
	if _, ok := c.Resources.Limits[name]; ok {
		return true
	}
	if _, ok := limitRangeDefault(pass, "defaultRequest", name); ok {
		return true
	}
	_, ok := limitRangeDefault(pass, "default", name)
	return ok
}

var gpuRequestInvalid = &lint.Rule{
	ID: "MDL212", Name: "gpu-request-invalid", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A GPU request that Kubernetes rejects or cannot schedule.",
		Why: "GPUs (nvidia.com/gpu, or cluster.gpuResource in .modellint.yaml) are extended resources: they cannot be " +
			"shared or overcommitted, so the API server rejects a pod that requests them without a limit, with a request " +
			"different from the limit, or with a fraction (\"0.5\", \"500m\"). When GPU nodes are tainted " +
			"(cluster.gpuNodesTainted: true) a pod with neither a toleration nor a nodeSelector/affinity for them stays " +
			"Pending forever. Every container is checked, init containers included.",
		Bad: `resources:
  requests:
    nvidia.com/gpu: "1"`,
		Good: `resources:
  limits:
    nvidia.com/gpu: 1
tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule`,
		Fix: "Put a whole number of GPUs under resources.limits (a request, if written, must equal it), and tolerate the GPU nodes' taint.",
		References: []string{
			"https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/",
			"https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#extended-resources",
			"https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/",
		},
	},
	Check: checkGPURequest,
}

func checkGPURequest(pass *lint.Pass) {
	w := pass.Workload()
	gpu := corev1.ResourceName(pass.Config.GPUResourceName())
	requestsGPU := false
	for _, c := range w.Containers {
		request, hasRequest := c.Resources.Requests[gpu]
		limit, hasLimit := c.Resources.Limits[gpu]
		if !hasRequest && !hasLimit {
			continue
		}
		if (hasLimit && !limit.IsZero()) || (hasRequest && !request.IsZero()) {
			requestsGPU = true
		}
		if hasRequest && !isWhole(request) {
			pass.Reportf(resourcePath(c, "requests", gpu),
				"%s requests %s %s: GPUs cannot be shared, the API server accepts only whole numbers; request 1 (or more)",
				c.Label(), gpu, request.String())
		}
		if hasLimit && !isWhole(limit) {
			pass.Reportf(resourcePath(c, "limits", gpu),
				"%s sets the %s limit to %s: GPUs cannot be shared, the API server accepts only whole numbers; set 1 (or more)",
				c.Label(), gpu, limit.String())
		}
		switch {
		case hasRequest && !hasLimit:
			pass.Reportf(resourcePath(c, "limits", gpu),
				"%s requests %s %s but sets no limit: extended resources must be set in limits, so the API server rejects the pod; "+
					"move it to resources.limits", c.Label(), gpu, request.String())
		case hasRequest && hasLimit && request.Cmp(limit) != 0:
			target := "the same whole number"
			if isWhole(limit) {
				target = limit.String()
			}
			pass.Reportf(resourcePath(c, "requests", gpu),
				"%s requests %s %s but its limit is %s: GPUs cannot be overcommitted, the API server requires request = limit; "+
					"set both to %s (or drop the request)", c.Label(), gpu, request.String(), limit.String(), target)
		}
	}
	if !requestsGPU {
		pass.Skip("no GPU request")
		return
	}
	if !pass.Config.Cluster.GPUNodesTainted {
		return
	}
	if toleratesGPU(w.Spec.Tolerations, string(gpu)) || len(w.Spec.NodeSelector) > 0 ||
		(w.Spec.Affinity != nil && w.Spec.Affinity.NodeAffinity != nil) {
		return
	}
	pass.Reportf(w.SpecPath+".tolerations",
		"the pod requests %s but has no toleration for the GPU nodes' taint and no nodeSelector or node affinity: "+
			"with GPU nodes tainted (cluster.gpuNodesTainted) it stays Pending; add a toleration for %s (operator: Exists, effect: NoSchedule)",
		gpu, gpu)
}

// isWhole reports whether a quantity is an integer.
func isWhole(q resource.Quantity) bool { return q.MilliValue()%1000 == 0 }

// toleratesGPU reports whether a toleration matches a GPU taint: the GPU
// resource name, a key naming GPUs, or a wildcard.
func toleratesGPU(tolerations []corev1.Toleration, gpu string) bool {
	for _, toleration := range tolerations {
		key := strings.ToLower(toleration.Key)
		switch {
		case key == "" && toleration.Operator == corev1.TolerationOpExists:
			return true
		case key == strings.ToLower(gpu), strings.Contains(key, "gpu"), strings.Contains(key, "nvidia"), strings.Contains(key, "accelerator"):
			return true
		}
	}
	return false
}

var ephemeralStorageUnbounded = &lint.Rule{
	ID: "MDL213", Name: "ephemeral-storage-unbounded", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A model is downloaded into an emptyDir that has no sizeLimit, in a pod without an ephemeral-storage request.",
		Why: "An init container (a storage initializer, gsutil, aws s3 cp, huggingface-cli, ...) that fills an emptyDir " +
			"shared with the model server writes the whole model to the node's disk. With no ephemeral-storage request the " +
			"scheduler reserves no disk for it: the pod lands on a node without room, the download fails with \"no space " +
			"left on device\", or the node hits DiskPressure and the kubelet evicts pods, this one included, to start over " +
			"elsewhere. Reported when the init container looks like a download or the emptyDir is also mounted by a model " +
			"server. InferenceServices are not reported: KServe injects its own storage-initializer volume.",
		Bad: `initContainers:
  - name: fetch-model
    image: google/cloud-sdk:slim
    command: ["gsutil", "-m", "cp", "-r", "gs://models/resnet", "/models/"]
    volumeMounts: [{name: models, mountPath: /models}]
volumes:
  - name: models
    emptyDir: {}`,
		Good: `initContainers:
  - name: fetch-model
    image: google/cloud-sdk:slim
    command: ["gsutil", "-m", "cp", "-r", "gs://models/resnet", "/models/"]
    volumeMounts: [{name: models, mountPath: /models}]
    resources:
      requests:
        ephemeral-storage: 20Gi
volumes:
  - name: models
    emptyDir:
      sizeLimit: 20Gi`,
		Fix: "Set emptyDir.sizeLimit to the model size plus headroom and request that much ephemeral-storage, so the " +
			"scheduler places the pod on a node with room; or mount the model from a PersistentVolume.",
		References: []string{
			"https://kubernetes.io/docs/concepts/storage/volumes/#emptydir",
			"https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage",
			"https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/",
		},
	},
	Check: checkEphemeralStorage,
}

// downloadCommand recognises a model download in an init container's command line.
var downloadCommand = lazyregexp.New(`(?i)\b(gsutil|gcloud storage|aws s3|s5cmd|azcopy|az storage|rclone|huggingface-cli|hf download|snapshot_download|` +
	`wget|curl|git clone|git lfs|mc cp|mc mirror|storage[-_]initializer|oras pull|dvc pull)\b`)

func checkEphemeralStorage(pass *lint.Pass) {
	w := pass.Workload()
	if w.Object.Kind == "InferenceService" {
		pass.Skip("KServe manages the storage-initializer volume of an InferenceService")
		return
	}
	podRequestsStorage := false
	for _, c := range w.Containers {
		if _, ok := c.Resources.Requests[corev1.ResourceEphemeralStorage]; ok {
			podRequestsStorage = true
		}
		if _, ok := c.Resources.Limits[corev1.ResourceEphemeralStorage]; ok {
			podRequestsStorage = true
		}
	}
	var coverage lint.Coverage
	reported := map[int]bool{}
	for _, init := range w.Containers {
		if !init.Init {
			continue
		}
		for _, mount := range init.VolumeMounts {
			volume, index := findVolume(w, mount.Name)
			if volume == nil || volume.EmptyDir == nil || volume.EmptyDir.Medium == corev1.StorageMediumMemory {
				continue
			}
			consumer := sharingContainer(w, mount.Name)
			if (consumer == nil || !consumer.Serving()) && !looksLikeDownload(init) {
				continue
			}
			coverage.Checked()
			if volume.EmptyDir.SizeLimit != nil || podRequestsStorage || reported[index] {
				continue
			}
			reported[index] = true
			reader := ""
			if consumer != nil {
				reader = ", which " + describe(consumer) + " reads,"
			}
			pass.Reportf(volumePath(w, index)+".emptyDir.sizeLimit",
				"init container %s fills emptyDir volume %q%s with no sizeLimit and no ephemeral-storage request "+
					"in the pod: the scheduler reserves no disk for the model, so the download can fail with \"no space left on device\" "+
					"or the pod is evicted under DiskPressure; set emptyDir.sizeLimit and resources.requests.ephemeral-storage to the model size plus headroom",
				init.Name, mount.Name, reader)
		}
	}
	coverage.SkipIfNone(pass, "no init container downloads into an emptyDir")
}

// sharingContainer returns the first regular container that mounts a volume.
func sharingContainer(w *manifest.Workload, volume string) *manifest.Container {
	var found *manifest.Container
	for _, c := range regularContainers(w) {
		for _, mount := range c.VolumeMounts {
			if mount.Name != volume {
				continue
			}
			if c.Serving() {
				return c
			}
			if found == nil {
				found = c
			}
		}
	}
	return found
}

func looksLikeDownload(c *manifest.Container) bool {
	return downloadCommand.MatchString(strings.Join(argv(c), " ")) || downloadCommand.MatchString(c.Image)
}

var shmMissing = &lint.Rule{
	ID: "MDL214", Name: "shm-missing", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A PyTorch, Triton, vLLM or TGI container has no memory-backed /dev/shm.",
		Why: "Container runtimes give a pod a 64 MiB /dev/shm. PyTorch data loaders, NCCL and tensor-parallel workers " +
			"(vLLM, TGI), TorchServe workers and Triton's Python backend pass tensors through shared memory and fail with " +
			"\"No space left on device\", \"unable to write to file </torch_...>\" or a bus error once that is full. " +
			"A server split over several GPUs runs one worker per GPU, and NCCL moves tensors between them through /dev/shm " +
			"when the GPUs have no peer-to-peer path: it fails at start or under load with \"NCCL WARN Error while creating " +
			"shared memory segment\". So a vLLM, SGLang or TGI container told to shard (--tensor-parallel-size, " +
			"--pipeline-parallel-size, --tp-size or --num-shard / NUM_SHARD above 1) is an error, one that requests more than " +
			"one GPU (TGI shards over every GPU it sees; amd.com/gpu, habana.ai/gaudi and google.com/tpu count as GPUs, " +
			"MIG slices as one, since a CUDA process sees one slice however many it gets) a warning, and so is a Triton " +
			"container with evidence that it runs its Python backend: a --backend-config=python,... flag, or a linked model repository holding a model on a " +
			"Python-based backend (backend: \"python\" or \"vllm\" in config.pbtxt, or a model.py Triton loads). Each instance " +
			"of such a model is a stub process with its own /dev/shm region of shm-default-byte-size (1 MiB) that grows in " +
			"shm-growth-byte-size steps (1 MiB) with the tensors of its requests; the finding counts the instances " +
			"(instance_group count, per GPU for KIND_GPU, times the versions loaded) and what their regions take at start. " +
			"Any other container is info. InferenceService shorthand containers are not " +
			"reported (their ServingRuntime decides), nor pods with hostIPC.",
		Bad: `containers:
  - name: vllm
    image: vllm/vllm-openai:v0.11.0
    args: [--model=/models/llama, --tensor-parallel-size=2]`,
		Good: `containers:
  - name: vllm
    image: vllm/vllm-openai:v0.11.0
    args: [--model=/models/llama, --tensor-parallel-size=2]
    volumeMounts:
      - name: dshm
        mountPath: /dev/shm
volumes:
  - name: dshm
    emptyDir:
      medium: Memory
      sizeLimit: 2Gi`,
		Fix: "Mount an emptyDir with medium: Memory at /dev/shm (the Kubernetes form of docker run --shm-size). Its " +
			"contents count against the container's memory limit, so give it a sizeLimit (1-2 GiB is usual for tensor " +
			"parallelism) and leave room for it in limits.memory.",
		References: []string{
			"https://kubernetes.io/docs/concepts/storage/volumes/#emptydir",
			"https://docs.vllm.ai/en/stable/deployment/docker.html",
			"https://docs.vllm.ai/en/stable/deployment/k8s.html",
			"https://github.com/huggingface/text-generation-inference#a-note-on-shared-memory-shm",
			"https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/python_backend/README.html",
			"https://github.com/triton-inference-server/python_backend/blob/main/README.md#managing-shared-memory",
			"https://github.com/triton-inference-server/python_backend/blob/main/src/stub_launcher.cc",
			"https://github.com/triton-inference-server/python_backend/blob/main/src/python_be.cc",
		},
	},
	Check: checkSharedMemory,
}

func checkSharedMemory(pass *lint.Pass) {
	w := pass.Workload()
	serving := servingContainers(pass)
	if len(serving) == 0 {
		return
	}
	if w.Platform == "kuberay" {
		pass.Skip("KubeRay mounts a memory-backed /dev/shm into the Ray container")
		return
	}
	// Severities are capped at the rule's, so that a severity set in the
	// config lowers every case.
	capped := func(severity lint.Severity) lint.Severity { return min(severity, pass.Rule.Severity) }
	var coverage lint.Coverage
	fromRuntime := false
	for _, c := range serving {
		if !c.Runtime.SharedMemory {
			continue
		}
		if c.FromServingRuntime {
			fromRuntime = true
			continue
		}
		coverage.Checked()
		if w.Spec.HostIPC {
			continue
		}
		mount := shmMount(c)
		if mount == nil {
			need := sharedMemoryNeed(pass, c)
			pass.Report(lint.Diagnostic{Severity: capped(need.severity), Path: c.Path + ".volumeMounts", Message: fmt.Sprintf("%s has no volume at /dev/shm%s, so it gets the runtime's 64 MiB: %s; mount an emptyDir with "+
				"medium: Memory (and a sizeLimit) at /dev/shm", describe(c), need.reason, need.effect)})
			continue
		}
		volume, volumeIndex := findVolume(w, mount.Name)
		if volume != nil && volume.EmptyDir != nil && volume.EmptyDir.Medium != corev1.StorageMediumMemory {
			// It has room, only slower: no worse than info whatever runs.
			pass.Report(lint.Diagnostic{Severity: capped(lint.Info), Path: volumePath(w, volumeIndex) + ".emptyDir.medium", Message: fmt.Sprintf("%s mounts volume %q at /dev/shm, but it is a disk-backed emptyDir: shared memory then goes through the node's disk; "+
				"set emptyDir.medium: Memory", describe(c), mount.Name)})
		}
	}
	switch {
	case coverage.Any():
	case fromRuntime:
		pass.Skip("the model shorthand gets /dev/shm from its ServingRuntime")
	default:
		pass.Skip("no PyTorch, Triton, vLLM or TGI container")
	}
}

// shmNeed is how surely a container outgrows the runtime's 64 MiB /dev/shm,
// and why.
type shmNeed struct {
	severity lint.Severity
	reason   string // " but runs 2 GPU workers (--tensor-parallel-size 2)", or ""
	effect   string
}

const (
	shmEffect  = "workers that pass tensors through shared memory fail with \"No space left on device\" or a bus error"
	ncclEffect = "its workers pass tensors and messages through shared memory (NCCL on NVIDIA GPUs, the server's " +
		"shared-memory message queue on any accelerator) and fail at start or under load " +
		"(\"NCCL WARN Error while creating shared memory segment\", \"No space left on device\")"
)

// sharedMemoryNeed reads a sharding server's degree: told to shard, NCCL
// needs /dev/shm; given several GPUs, it likely shards over them.
func sharedMemoryNeed(pass *lint.Pass, c *manifest.Container) shmNeed {
	if c.Runtime.Name == "triton" {
		if need, ok := tritonPythonNeed(pass, c); ok {
			return need
		}
	}
	srv := engineGPU(c)
	if srv == nil || !srv.Sharding {
		return shmNeed{severity: lint.Info, effect: shmEffect}
	}
	args := serverArgs(pass, c)
	for _, degree := range []server.Setting{srv.TensorParallel, srv.PipelineParallel} {
		value, ok := args.Value(degree)
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(value.Value, 10, 64); err == nil && n > 1 {
			return shmNeed{severity: lint.Error, effect: ncclEffect,
				reason: fmt.Sprintf(" but runs %d GPU workers (%s)", n, settingText(value))}
		}
	}
	if resource, devices := visibleDevices(pass, c); devices > 1 {
		return shmNeed{severity: lint.Warning, effect: ncclEffect,
			reason: fmt.Sprintf(" but requests %d %s (a model split over GPUs runs one worker on each)", devices, resource)}
	}
	return shmNeed{severity: lint.Info, effect: shmEffect}
}

// Triton's Python backend starts a stub process for each model instance,
// with a shared-memory region in /dev/shm of shm-default-byte-size (1 MiB
// by default, no less) that grows in shm-growth-byte-size steps (1 MiB)
// as requests' tensors pass through it (python_backend's python_be.cc
// and stub_launcher.cc).
const (
	pythonShmDefault = 1 << 20
	pythonShmGrowth  = 1 << 20
)

// tritonPythonNeed reads the evidence that a Triton container runs the
// Python backend: a --backend-config=python,... flag, or a linked model
// on a Python-based backend (config.pbtxt's backend, or a model.py Triton
// loads). With it, /dev/shm is needed: a warning, with the instances'
// regions counted.
func tritonPythonNeed(pass *lint.Pass, c *manifest.Container) (shmNeed, bool) {
	regionBytes, growthBytes := int64(pythonShmDefault), int64(pythonShmGrowth)
	var flags []string
	for _, value := range serverArgs(pass, c).Values("--backend-config") {
		backend, setting, _ := strings.Cut(value.Value, ",")
		if backend != "python" {
			continue
		}
		flags = append(flags, "--backend-config="+value.Value)
		name, number, _ := strings.Cut(setting, "=")
		n, err := strconv.ParseInt(number, 10, 64)
		switch {
		case err != nil:
		case name == "shm-default-byte-size" && n >= pythonShmDefault:
			regionBytes = n
		case name == "shm-growth-byte-size" && n > 0:
			growthBytes = n
		}
	}
	// Triton runs on CUDA: another vendor's accelerator is no GPU to it.
	resource, gpus := visibleDevices(pass, c)
	if !gpu.IsNVIDIA(resource) {
		gpus = 0
	}
	var models []string
	var instances int64
	seen := map[*model.Model]bool{}
	for _, link := range pass.Target.Links {
		m := link.Model
		if link.Container != c || m == nil || seen[m] || m.Layout != model.LayoutTriton || m.Triton == nil {
			continue
		}
		seen[m] = true
		backend := m.Triton.PythonBackend(m)
		if backend == "" {
			continue
		}
		config := m.Triton.Config
		if config == nil {
			config = &triton.Config{}
		}
		versions := int64(max(len(m.Resident()), 1))
		n := config.Instances(gpus) * versions
		instances += n
		what := plural(int(n), "instance")
		if versions > 1 {
			what += fmt.Sprintf(" (%d versions)", versions)
		}
		models = append(models, fmt.Sprintf("%s: backend %s, %s", m.Dir, backend, what))
	}
	if len(flags) == 0 && len(models) == 0 {
		return shmNeed{}, false
	}
	evidence := flags
	if len(models) > 0 {
		evidence = append([]string{joinSome(models, 3)}, flags...)
	}
	region := fmt.Sprintf("each Python model instance is a stub process with its own shared-memory region of %s at start "+
		"(shm-default-byte-size), grown in %s steps (shm-growth-byte-size) to hold the input and output tensors of its requests",
		humanBytes(regionBytes), humanBytes(growthBytes))
	total := ""
	if instances > 0 {
		assumption := "each instance_group's count (1 when unset)"
		if gpus > 0 {
			assumption += fmt.Sprintf(", on each of the container's %s for KIND_GPU and KIND_AUTO groups", plural(int(gpus), "GPU"))
		} else {
			assumption += ", on the CPU since the container requests no GPU"
		}
		take := "take"
		if instances == 1 {
			take = "takes"
		}
		total = fmt.Sprintf("; the %s %s %s before the first request (estimated from %s, times the versions loaded)",
			plural(int(instances), "instance"), take, humanBytes(instances*regionBytes), assumption)
	}
	return shmNeed{severity: lint.Warning,
		reason: " but runs Triton's Python backend (" + strings.Join(evidence, "; ") + ")",
		effect: region + total + ", and once the 64 MiB are taken the stub fails with \"No space left on device\" or a bus error; " +
			"size the volume for the instances' regions plus the largest tensors in flight (python_backend's README runs Triton with --shm-size=1g)",
	}, true
}

// settingText writes a setting as it was given: "--num-shard 2", "NUM_SHARD=2".
func settingText(value server.Value) string {
	if name, ok := strings.CutPrefix(value.From, "env "); ok {
		return name + "=" + value.Value
	}
	return value.From + " " + value.Value
}

// shmMount returns the container's mount at /dev/shm.
func shmMount(c *manifest.Container) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if path.Clean(c.VolumeMounts[i].MountPath) == "/dev/shm" {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}
