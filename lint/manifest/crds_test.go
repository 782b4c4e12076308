package manifest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// loadWorkloads loads one object and extracts its workloads.
func loadWorkloads(t *testing.T, source string) (*Object, []*Workload) {
	t.Helper()
	file, err := Load("crd.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Objects) != 1 {
		t.Fatalf("got %d objects, want 1", len(file.Objects))
	}
	workloads, err := Workloads(file.Objects[0])
	if err != nil {
		t.Fatal(err)
	}
	return file.Objects[0], workloads
}

// wantContainer checks a workload's container: its path, the line its path
// is written on, and env vars the controller injects.
func wantContainer(t *testing.T, w *Workload, index int, path string, line int, injected ...string) {
	t.Helper()
	if index >= len(w.Containers) {
		t.Fatalf("%s: %d containers, want index %d", w.Name(), len(w.Containers), index)
	}
	c := w.Containers[index]
	if c.Path != path {
		t.Errorf("%s: container %d at %q, want %q", w.Name(), index, c.Path, path)
	}
	if got := w.Object.Locate(c.Path).Line; got != line {
		t.Errorf("%s: %s on line %d, want %d", w.Name(), c.Path, got, line)
	}
	for _, name := range injected {
		if !slices.Contains(c.InjectedEnv, name) {
			t.Errorf("%s: %s lacks injected env %s (has %v)", w.Name(), c.Path, name, c.InjectedEnv)
		}
	}
}

func names(workloads []*Workload) []string {
	var names []string
	for _, w := range workloads {
		names = append(names, w.Name())
	}
	return names
}

const leaderWorkerSet = `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: vllm}
spec:
  replicas: 2
  rolloutStrategy:
    type: RollingUpdate
    rollingUpdateConfiguration:
      maxSurge: 1
  leaderWorkerTemplate:
    size: 4
    leaderTemplate:
      metadata:
        labels: {role: leader}
      spec:
        containers:
          - name: leader
            image: vllm/vllm-openai:v0.10.1
            command: ["sh", "-c", "ray start --head --port=6379; vllm serve m --pipeline-parallel-size $(LWS_GROUP_SIZE)"]
    workerTemplate:
      spec:
        initContainers:
          - name: wait
            image: busybox:1.36
        containers:
          - name: worker
            image: vllm/vllm-openai:v0.10.1
            command: ["sh", "-c", "ray start --address=$(LWS_LEADER_ADDRESS):6379 --block"]
            resources:
              limits: {google.com/tpu: 4}
`

func TestWorkloadsOfLeaderWorkerSet(t *testing.T) {
	_, workloads := loadWorkloads(t, leaderWorkerSet)
	if got := names(workloads); !slices.Equal(got, []string{"LeaderWorkerSet/vllm (leader)", "LeaderWorkerSet/vllm (worker)"}) {
		t.Fatalf("workloads %v", got)
	}
	leader, worker := workloads[0], workloads[1]
	wantContainer(t, leader, 0, "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0]", 17, lwsEnv...)
	wantContainer(t, worker, 0, "spec.leaderWorkerTemplate.workerTemplate.spec.initContainers[0]", 23, lwsEnv...)
	wantContainer(t, worker, 1, "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0]", 26, append(lwsEnv, lwsTPUEnv...)...)
	if slices.Contains(leader.Containers[0].InjectedEnv, "TPU_WORKER_ID") {
		t.Errorf("leader requests no TPU but gets %v", leader.Containers[0].InjectedEnv)
	}
	if leader.TemplateMetaPath != "spec.leaderWorkerTemplate.leaderTemplate.metadata" {
		t.Errorf("leader metadata at %q", leader.TemplateMetaPath)
	}
	for _, w := range workloads {
		if w.Lifecycle != KeptRunning || w.Group == nil || w.Group.Size != 4 || w.Group.SizePath != "spec.leaderWorkerTemplate.size" {
			t.Errorf("%s: lifecycle %q, group %+v", w.Name(), w.Lifecycle, w.Group)
		}
	}
	rolling := leader.RollingUpdate
	if rolling == nil || worker.RollingUpdate != nil {
		t.Fatalf("rolling update on the leader only: leader %+v, worker %+v", rolling, worker.RollingUpdate)
	}
	if *rolling.Replicas != 2 || rolling.MaxUnavailable != nil || rolling.MaxSurge.IntValue() != 1 ||
		rolling.DefaultMaxUnavailable.IntValue() != 1 || rolling.Path != "spec.rolloutStrategy.rollingUpdateConfiguration" {
		t.Errorf("rolling update %+v", rolling)
	}
}

func TestWorkloadsOfLeaderWorkerSetWithOneTemplate(t *testing.T) {
	// Without a leaderTemplate the leader runs the worker template.
	source := strings.Replace(leaderWorkerSet, "    leaderTemplate:", "    unusedLeaderTemplate:", 1)
	_, workloads := loadWorkloads(t, source)
	if got := names(workloads); !slices.Equal(got, []string{"LeaderWorkerSet/vllm"}) {
		t.Fatalf("workloads %v", got)
	}
	if workloads[0].RollingUpdate == nil {
		t.Error("the one template carries no rolling update")
	}
	// A group of one has no worker pods: the worker template never runs.
	source = strings.Replace(leaderWorkerSet, "size: 4", "size: 1", 1)
	if _, workloads = loadWorkloads(t, source); len(workloads) != 1 || workloads[0].Component != "leader" {
		t.Errorf("size 1: workloads %v", names(workloads))
	}
}

const rayService = `apiVersion: ray.io/v1
kind: RayService
metadata: {name: llm, namespace: serving}
spec:
  serveConfigV2: |
    applications:
      - name: llm
        import_path: ray.serve.llm:build_openai_app
  rayClusterConfig:
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          initContainers:
            - name: fetch
              image: busybox:1.36
          containers:
            - name: ray-head
              image: rayproject/ray-llm:2.49.0-py311-cu128
    workerGroupSpecs:
      - groupName: gpu
        replicas: 2
        rayStartParams: {}
        template:
          metadata:
            labels: {tier: gpu}
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray-llm:2.49.0-py311-cu128
              - name: sidecar
                image: envoyproxy/envoy:v1.31.0
      - replicas: 1
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray-llm:2.49.0-py311-cu128
`

func TestWorkloadsOfRayService(t *testing.T) {
	object, workloads := loadWorkloads(t, rayService)
	want := []string{"RayService/serving/llm (head)", "RayService/serving/llm (worker group gpu)", "RayService/serving/llm (worker group 1)"}
	if got := names(workloads); !slices.Equal(got, want) {
		t.Fatalf("workloads %v, want %v", got, want)
	}
	head, gpu := workloads[0], workloads[1]
	wantContainer(t, head, 0, "spec.rayClusterConfig.headGroupSpec.template.spec.initContainers[0]", 15, "FQ_RAY_IP")
	wantContainer(t, head, 1, "spec.rayClusterConfig.headGroupSpec.template.spec.containers[0]", 18,
		"RAY_ADDRESS", "RAY_USAGE_STATS_EXTRA_TAGS", "RAY_SERVE_KV_TIMEOUT_S")
	wantContainer(t, gpu, 0, "spec.rayClusterConfig.workerGroupSpecs[0].template.spec.containers[0]", 29, "RAY_ADDRESS", "FQ_RAY_IP")
	wantContainer(t, gpu, 1, "spec.rayClusterConfig.workerGroupSpecs[0].template.spec.containers[1]", 31)
	if len(gpu.Containers[1].InjectedEnv) != 0 {
		t.Errorf("KubeRay injects env into the Ray container only, not %v", gpu.Containers[1].InjectedEnv)
	}
	if gpu.TemplateMetaPath != "spec.rayClusterConfig.workerGroupSpecs[0].template.metadata" {
		t.Errorf("worker metadata at %q", gpu.TemplateMetaPath)
	}
	// Indexed paths look up like any other.
	if labels, ok := object.Lookup(append(splitPath(gpu.TemplateMetaPath), "labels")...); !ok || labels.(map[string]any)["tier"] != "gpu" {
		t.Errorf("labels %v", labels)
	}
	for _, w := range workloads {
		if w.Platform != "kuberay" || w.Lifecycle != KeptRunning || w.ServeConfigPath != "spec.serveConfigV2" ||
			!strings.Contains(w.ServeConfig, "import_path: ray.serve.llm:build_openai_app") {
			t.Errorf("%s: platform %q, lifecycle %q, serve config %q at %q", w.Name(), w.Platform, w.Lifecycle, w.ServeConfig, w.ServeConfigPath)
		}
	}
}

func TestWorkloadsOfRayClusterAndRayJob(t *testing.T) {
	cluster := `apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: train}
spec:
  headGroupSpec:
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.49.0
  workerGroupSpecs:
    - groupName: gpu
      template:
        spec:
          containers:
            - name: ray-worker
              image: rayproject/ray:2.49.0
`
	_, workloads := loadWorkloads(t, cluster)
	if got := names(workloads); !slices.Equal(got, []string{"RayCluster/train (head)", "RayCluster/train (worker group gpu)"}) {
		t.Fatalf("RayCluster workloads %v", got)
	}
	wantContainer(t, workloads[1], 0, "spec.workerGroupSpecs[0].template.spec.containers[0]", 16, "RAY_ADDRESS", "FQ_RAY_IP")
	if slices.Contains(workloads[1].Containers[0].InjectedEnv, "RAY_SERVE_KV_TIMEOUT_S") || workloads[0].ServeConfig != "" {
		t.Errorf("a RayCluster is no RayService: %v", workloads[1].Containers[0].InjectedEnv)
	}

	job := `apiVersion: ray.io/v1
kind: RayJob
metadata: {name: eval}
spec:
  entrypoint: python eval.py
  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.49.0
`
	_, workloads = loadWorkloads(t, job)
	if len(workloads) != 1 || workloads[0].Lifecycle != RunToCompletion || workloads[0].Platform != "kuberay" {
		t.Fatalf("RayJob workloads %v", workloads)
	}
	wantContainer(t, workloads[0], 0, "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0]", 11, "RAY_ADDRESS")

	submitted := job + `  submitterPodTemplate:
    spec:
      restartPolicy: Never
      containers:
        - name: submitter
          image: rayproject/ray:2.49.0
`
	_, workloads = loadWorkloads(t, submitted)
	if got := names(workloads); !slices.Equal(got, []string{"RayJob/eval (head)", "RayJob/eval (submitter)"}) {
		t.Fatalf("RayJob workloads %v", got)
	}
	submitter := workloads[1]
	if submitter.Lifecycle != RunToCompletion || submitter.Platform != "kuberay" {
		t.Errorf("submitter: %s, %q", submitter.Lifecycle, submitter.Platform)
	}
	wantContainer(t, submitter, 0, "spec.submitterPodTemplate.spec.containers[0]", 17, "RAY_DASHBOARD_ADDRESS", "RAY_JOB_SUBMISSION_ID")
}

func TestLLMInferenceServiceScheduler(t *testing.T) {
	withScheduler := llmInferenceService + `  router:
    scheduler:
      template:
        containers:
          - name: main
            image: ghcr.io/llm-d/llm-d-inference-scheduler:v0.2.1
`
	_, workloads := loadWorkloads(t, withScheduler)
	scheduler := workloads[len(workloads)-1]
	if scheduler.Name() != "LLMInferenceService/llama (router scheduler)" || scheduler.Lifecycle != KeptRunning ||
		scheduler.ModelURI != "" {
		t.Fatalf("scheduler workload %s: %s, model %q", scheduler.Name(), scheduler.Lifecycle, scheduler.ModelURI)
	}
	wantContainer(t, scheduler, 0, "spec.router.scheduler.template.containers[0]", 27)
}

const llmInferenceService = `apiVersion: serving.kserve.io/v1alpha2
kind: LLMInferenceService
metadata: {name: llama}
spec:
  model:
    uri: hf://meta-llama/Llama-3.1-8B-Instruct
  replicas: 2
  annotations:
    modellint.dev/ignore: "MDL212 -- shared GPUs"
  template:
    containers:
      - name: main
        resources:
          limits: {nvidia.com/gpu: "1"}
  prefill:
    template:
      containers:
        - name: main
    worker:
      containers:
        - name: main
          image: vllm/vllm-openai:v0.10.1
`

func TestWorkloadsOfLLMInferenceService(t *testing.T) {
	_, workloads := loadWorkloads(t, llmInferenceService)
	want := []string{"LLMInferenceService/llama (decode)", "LLMInferenceService/llama (prefill)", "LLMInferenceService/llama (prefill worker)"}
	if got := names(workloads); !slices.Equal(got, want) {
		t.Fatalf("workloads %v, want %v", got, want)
	}
	decode, prefill, prefillWorker := workloads[0], workloads[1], workloads[2]
	wantContainer(t, decode, 0, "spec.template.containers[0]", 12)
	wantContainer(t, prefill, 0, "spec.prefill.template.containers[0]", 18, lwsEnv...)
	wantContainer(t, prefillWorker, 0, "spec.prefill.worker.containers[0]", 21, lwsEnv...)
	if len(decode.Containers[0].InjectedEnv) != 0 {
		t.Errorf("a single-node decode Deployment gets no LWS env: %v", decode.Containers[0].InjectedEnv)
	}
	for _, w := range workloads {
		c := w.Containers[0]
		if w.Platform != "kserve" || !c.FromServingRuntime || c.Runtime == nil || c.Runtime.Name != "vllm" {
			t.Errorf("%s: platform %q, main container from presets %v, runtime %v", w.Name(), w.Platform, c.FromServingRuntime, c.Runtime)
		}
		if w.ModelURI != "hf://meta-llama/Llama-3.1-8B-Instruct" || w.ModelURIPath != "spec.model.uri" {
			t.Errorf("%s: model %q at %q", w.Name(), w.ModelURI, w.ModelURIPath)
		}
	}
	if decode.TemplateAnnotations["modellint.dev/ignore"] == "" || decode.TemplateMetaPath != "spec" {
		t.Errorf("the spec's annotations go on the pods: %v at %q", decode.TemplateAnnotations, decode.TemplateMetaPath)
	}
	if r := decode.RollingUpdate; r == nil || *r.Replicas != 2 || r.DefaultMaxUnavailable.String() != "25%" || r.Path != "spec.rolloutStrategy" {
		t.Errorf("decode rolling update %+v", r)
	}
	if r := prefill.RollingUpdate; r == nil || r.Replicas != nil || r.DefaultMaxUnavailable.IntValue() != 1 || prefillWorker.RollingUpdate != nil {
		t.Errorf("prefill (a LeaderWorkerSet) rolling update %+v", r)
	}
}

func TestWorkloadsOfWorkspaceAndJobSet(t *testing.T) {
	workspace := `apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata: {name: phi}
resource:
  instanceType: Standard_NC24ads_A100_v4
inference:
  template:
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.10.1
`
	_, workloads := loadWorkloads(t, workspace)
	if len(workloads) != 1 || workloads[0].Lifecycle != KeptRunning {
		t.Fatalf("Workspace workloads %v", workloads)
	}
	wantContainer(t, workloads[0], 0, "inference.template.spec.containers[0]", 10)

	jobSet := `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: finetune}
spec:
  replicatedJobs:
    - name: workers
      replicas: 2
      template:
        spec:
          parallelism: 2
          template:
            spec:
              containers:
                - name: trainer
                  image: pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime
    - name: shard
      template:
        spec:
          completionMode: NonIndexed
          template:
            spec:
              containers:
                - name: shard
                  image: busybox:1.36
`
	_, workloads = loadWorkloads(t, jobSet)
	if got := names(workloads); !slices.Equal(got, []string{"JobSet/finetune (workers)", "JobSet/finetune (shard)"}) {
		t.Fatalf("JobSet workloads %v", got)
	}
	wantContainer(t, workloads[0], 0, "spec.replicatedJobs[0].template.spec.template.spec.containers[0]", 14, "JOB_COMPLETION_INDEX")
	wantContainer(t, workloads[1], 0, "spec.replicatedJobs[1].template.spec.template.spec.containers[0]", 23)
	if len(workloads[1].Containers[0].InjectedEnv) != 0 || workloads[0].Lifecycle != RunToCompletion || workloads[0].Job != nil {
		t.Errorf("shard env %v, lifecycle %q", workloads[1].Containers[0].InjectedEnv, workloads[0].Lifecycle)
	}
}

func TestWorkloadWrongTypeInIndexedTemplate(t *testing.T) {
	source := "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: r}\nspec:\n  headGroupSpec:\n    template:\n" +
		"      spec: {containers: [{name: head}]}\n  workerGroupSpecs:\n    - template:\n        spec:\n" +
		"          containers:\n            - name: worker\n              ports: [{containerPort: \"<PORT>\"}]\n"
	file, err := Load("bad.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Workloads(file.Objects[0])
	invalid, ok := err.(*InvalidError)
	if !ok {
		t.Fatalf("error %v, want an InvalidError", err)
	}
	if invalid.Path != "spec.workerGroupSpecs[0].template.spec.containers[0].ports[0].containerPort" ||
		invalid.Object.Locate(invalid.Path).Line != 13 {
		t.Errorf("invalid at %q, line %d", invalid.Path, invalid.Object.Locate(invalid.Path).Line)
	}
}

func TestWorkloadNotLintedReasons(t *testing.T) {
	cases := []struct{ source, want string }{
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "no pod template, only used for references"},
		{"apiVersion: apps.nvidia.com/v1alpha1\nkind: NIMService\nmetadata: {name: n}\nspec:\n  image: {repository: nvcr.io/nim/meta/llama-3.1-8b-instruct, tag: \"1.8\"}\n",
			"the NIM operator builds the Deployment's pod from spec.image"},
		{"apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata: {name: w}\ninference:\n  preset: {name: phi-4-mini-instruct}\n",
			"KAITO builds the pods of preset phi-4-mini-instruct from its model catalog"},
		{"apiVersion: serving.kserve.io/v1alpha2\nkind: LLMInferenceService\nmetadata: {name: l}\nspec:\n  model: {uri: \"hf://m\"}\n",
			"not linted: no spec.template or spec.worker"},
		{"apiVersion: serving.kserve.io/v1alpha2\nkind: LLMInferenceServiceConfig\nmetadata: {name: c}\nspec:\n  template: {containers: [{name: main}]}\n",
			"not linted: a preset"},
		{"apiVersion: machinelearning.seldon.io/v1\nkind: SeldonDeployment\nmetadata: {name: s}\nspec:\n  predictors:\n" +
			"    - name: p\n      graph:\n        name: combiner\n        implementation: SKLEARN_SERVER\n" +
			"        children: [{name: t, implementation: TRITON_SERVER}]\n",
			"the prepackaged SKLEARN_SERVER, TRITON_SERVER containers are built from Seldon Core 1.18.2's defaults"},
		{"apiVersion: kubeai.org/v1\nkind: Model\nmetadata: {name: m}\nspec: {engine: VLLM, url: \"hf://m\"}\n",
			"KubeAI's model controller builds the server's pods"},
		{"apiVersion: inference.llmaz.io/v1alpha1\nkind: Playground\nmetadata: {name: p}\nspec: {replicas: 1}\n",
			"llmaz builds the inference Service's pod from the BackendRuntime"},
		{"apiVersion: inference.llmaz.io/v1alpha1\nkind: BackendRuntime\nmetadata: {name: vllm}\nspec: {image: vllm/vllm-openai}\n",
			"llmaz builds the pods of the Playgrounds"},
		{"apiVersion: production-stack.vllm.ai/v1alpha1\nkind: VLLMRuntime\nmetadata: {name: v}\nspec: {model: {modelURL: m}}\n",
			"the vLLM production-stack operator builds the vLLM Deployment's pod"},
		{"apiVersion: apps.nvidia.com/v1alpha1\nkind: NIMCache\nmetadata: {name: c}\nspec: {storage: {pvc: {create: true}}}\n",
			"not linted: the NIM operator builds the pod of the Job"},
		{"apiVersion: apps.nvidia.com/v1alpha1\nkind: NIMPipeline\nmetadata: {name: p}\nspec: {services: [{name: s}]}\n",
			"not linted: the NIM operator makes a NIMService of each"},
		{leaderWorkerSet, ""},
		{llmInferenceService, ""},
	}
	for _, c := range cases {
		file, err := Load("o.yaml", []byte(c.source))
		if err != nil {
			t.Fatal(err)
		}
		got := NotLinted(file.Objects[0])
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: NotLinted = %q, want %q", file.Objects[0].Kind, got, c.want)
		}
	}
}

func TestWorkloadIndexedJobEnv(t *testing.T) {
	source := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  completionMode: Indexed\n  completions: 4\n" +
		"  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: x:1}]\n"
	_, workloads := loadWorkloads(t, source)
	wantContainer(t, workloads[0], 0, "spec.template.spec.containers[0]", 10, "JOB_COMPLETION_INDEX")
	if workloads[0].Lifecycle != RunToCompletion {
		t.Errorf("lifecycle %q", workloads[0].Lifecycle)
	}
}

// TestKServeTransformerArgs: KServe's controller adds to a transformer's
// first container the args that point it at the predictor, each unless an
// arg already starts with its flag.
func TestKServeTransformerArgs(t *testing.T) {
	const isvc = `apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: cifar10, namespace: vision%s}
spec:
  predictor:%s
    model: {modelFormat: {name: triton}, storageUri: "gs://bucket/model"}
  transformer:
    containerConcurrency: 4
    containers:
      - name: kserve-container
        image: example.com/transformer:1
        args: [--model_name=cifar, --protocol=v2]
      - name: sidecar
        image: example.com/sidecar:1
`
	for _, c := range []struct{ annotations, predictor, want string }{
		{"", "", "--model_name=cifar --protocol=v2 --predictor_host cifar10-predictor.vision --http_port 8080 --workers 4"},
		{"", "\n    name: blue", "--model_name=cifar --protocol=v2 --predictor_host cifar10-blue-predictor.vision --http_port 8080 " +
			"--workers 4"},
		// The predictor's host comes from its status under ModelMesh.
		{", annotations: {serving.kserve.io/deploymentMode: ModelMesh}", "",
			"--model_name=cifar --protocol=v2 --http_port 8080 --workers 4"},
	} {
		_, workloads := loadWorkloads(t, fmt.Sprintf(isvc, c.annotations, c.predictor))
		transformer := workloads[1]
		if transformer.Component != "transformer" {
			t.Fatalf("workload %s", transformer.Name())
		}
		if got := strings.Join(transformer.Containers[0].Args, " "); got != c.want {
			t.Errorf("args %q, want %q", got, c.want)
		}
		if args := transformer.Containers[1].Args; args != nil {
			t.Errorf("the second container got args %q", args)
		}
	}
}
