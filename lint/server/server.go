// Package server recognises model-serving runtimes (TF Serving, Triton,
// TorchServe, vLLM, TGI, KServe and Seldon runtimes, SGLang, NVIDIA NIM,
// llama.cpp, Ollama, JetStream, Ray Serve) from a container's image, command
// and args, and knows their ports and health endpoints. Adding a runtime is
// one entry in Runtimes.
package server

import (
	"strconv"
	"strings"
)

// Runtime describes one serving runtime.
type Runtime struct {
	Name  string // stable identifier, e.g. "tensorflow-serving"
	Title string // for messages, e.g. "TF Serving"
	// Images are substrings of the image repository (without tag) that identify it.
	Images []string
	// Commands are executable base names or module names (python -m X) that
	// identify it; a name with a slash ("/opt/nim/start_server.sh") is matched
	// as a whole path, because its base name alone is too common.
	Commands []string
	// Subcommands name programs that start the server only with one of the
	// listed subcommands ("vllm serve", "serve run"): their other subcommands
	// are benchmarks, clients or downloads.
	Subcommands map[string][]string
	// UniqueFlags are long flags that no other runtime has, so they identify
	// it when the program is unknown (args only, on a custom image).
	UniqueFlags []string
	// KServeFormats are the InferenceService modelFormat names served by it.
	KServeFormats []string
	// Ports are the ports the server listens on unless flags say otherwise,
	// keyed by the flag that changes them ("" when no flag does).
	Ports []Port
	// ModelReadyPaths are HTTP path prefixes that answer only once a model is
	// loaded: fine for readiness, fatal for liveness.
	ModelReadyPaths []string
	// SharedMemory is true for runtimes whose workers talk through /dev/shm
	// (PyTorch data loaders, Triton's Python backend, vLLM tensor parallelism).
	SharedMemory bool
	// Model says how the server is told which model to serve and from where.
	Model ModelSettings

	// Readiness and Liveness are the probes to suggest; a zero Readiness
	// has no suggestion of its own, a zero Liveness is a tcpSocket on the
	// serving port.
	Readiness, Liveness ProbeHint
	// ProcessHealthPath answers for the process, not the model (vLLM fails
	// /health only when its engine is dead): with a startupProbe covering
	// the load, liveness on it restarts only a server that is gone.
	ProcessHealthPath string
	// GRPC is the gRPC port of a runtime that serves HTTP on another.
	GRPC *GRPCPort
	// LinkedVariables are the env vars besides the Ports' that a Service
	// link can set.
	LinkedVariables []LinkedVariable
	// GPU says how the server uses GPU memory; nil for servers whose
	// weights stay in host memory.
	GPU *GPUMemory
	// Host says what the server holds in host memory besides its weights'
	// bytes when it serves from the CPU; nil when that is only the weights.
	Host *HostMemory
	// VersionSwap says the server loads a new model version beside the one
	// it serves before it unloads that one (TF Serving's default policy).
	VersionSwap bool
	// TagIsFramework says the image tag is the framework release the
	// server was built with (tensorflow/serving:2.14.1 runs TensorFlow 2.14).
	TagIsFramework bool
	// HubQuantizedFiles says a hub repository argument downloads one
	// quantized GGUF of the repo (llama.cpp -hf REPO[:QUANT], Q4_K_M unless
	// the tag names another), not every weight.
	HubQuantizedFiles bool
	// Backend says which engine a wrapping server starts, nil for a
	// server that is its own engine.
	Backend *Backend
	// Listen is the address the server binds, nil when not known.
	Listen *Listen
}

// Backend is the choice of engine of a server that wraps others.
type Backend struct {
	Flag string // "--backend"; "" for a server with one engine (KAITO's vLLM server)
	// Default is the engine's runtime Name when the flag is not given,
	// and Engines the runtime Name of each flag value ("" for the
	// server's own engine).
	Default string
	Engines map[string]string
}

// Named returns the runtime of a Name, nil when there is none.
func Named(name string) *Runtime {
	for _, r := range Runtimes {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Port is a listening port and the flags or env vars that set it.
type Port struct {
	Number int32
	Flags  []string // e.g. "--rest_api_port"
	Env    []string // e.g. "MLSERVER_HTTP_PORT"
}

// Runtimes is the table of known serving runtimes.
var Runtimes = []*Runtime{
	{
		Name: "tensorflow-serving", Title: "TF Serving",
		Images:        []string{"tensorflow/serving", "tensorflow-serving", "tfserving"},
		Commands:      []string{"tensorflow_model_server"},
		UniqueFlags:   []string{"--model_base_path", "--rest_api_port", "--model_config_file"},
		KServeFormats: []string{"tensorflow"},
		Ports: []Port{
			{Number: 8500, Flags: []string{"--port"}},
			{Number: 8501, Flags: []string{"--rest_api_port"}},
		},
		ModelReadyPaths: []string{"/v1/models/"},
		Model: ModelSettings{
			NameFlags: []string{"--model_name"}, PathFlags: []string{"--model_base_path"},
			ConfigFileFlags: []string{"--model_config_file"},
			// The image's entrypoint (tf_serving_entrypoint.sh) starts the server
			// with --model_name=${MODEL_NAME} --model_base_path=${MODEL_BASE_PATH}/${MODEL_NAME}.
			DefaultName: "$(MODEL_NAME)", DefaultPath: "$(MODEL_BASE_PATH)/$(MODEL_NAME)",
			Layout:   "tensorflow-serving",
			ImageEnv: map[string]string{"MODEL_NAME": "model", "MODEL_BASE_PATH": "/models"},
		},
		Readiness:      ProbeHint{Path: "/v1/models/" + ModelNamePlaceholder, PortFlag: "--rest_api_port", Port: 8501},
		Liveness:       ProbeHint{PortFlag: "--port", Port: 8500},
		GRPC:           &GRPCPort{Flag: "--port", Number: 8500, HTTPFlag: "--rest_api_port", HTTPNumber: 8501},
		VersionSwap:    true,
		TagIsFramework: true,
	},
	{
		Name: "triton", Title: "Triton Inference Server",
		Images:   []string{"tritonserver", "triton-inference-server"},
		Commands: []string{"tritonserver"},
		// Not --model-store: Triton accepts it too, but it is TorchServe's flag.
		UniqueFlags:   []string{"--model-repository", "--model-control-mode"},
		KServeFormats: []string{"triton", "tensorrt", "onnx"},
		Ports: []Port{
			{Number: 8000, Flags: []string{"--http-port"}},
			{Number: 8001, Flags: []string{"--grpc-port"}},
			{Number: 8002, Flags: []string{"--metrics-port"}},
		},
		ModelReadyPaths: []string{"/v2/health/ready", "/v2/models/"},
		SharedMemory:    true,
		Model: ModelSettings{
			// "--model-repository can be specified multiple times"
			// (Triton's server docs, model_repository.md).
			PathFlags: []string{"--model-repository", "--model-store"}, Repository: true, FlagsAdd: true,
			// "--load-model: Name of the model to be loaded on server startup.
			// It may be specified multiple times to add multiple models. To
			// load ALL models at startup, specify '*' ... Note that this option
			// will only take effect if --model-control-mode=explicit is true";
			// the mode is read in any case (src/command_line_parser.cc,
			// https://github.com/triton-inference-server/server).
			NameFlags: []string{"--load-model"}, NamesModeFlag: "--model-control-mode", NamesMode: "explicit", AllNames: "*",
		},
		Readiness: ProbeHint{Path: "/v2/health/ready", PortFlag: "--http-port", Port: 8000},
		Liveness:  ProbeHint{Path: "/v2/health/live"},
		GRPC:      &GRPCPort{Flag: "--grpc-port", Number: 8001, HTTPFlag: "--http-port", HTTPNumber: 8000},
		// "--http-address ... Default is 0.0.0.0" (tritonserver --help).
		Listen: &Listen{Host: Flags("--http-address"), Default: "0.0.0.0"},
		// Triton loads each model instance whole onto a GPU; a TensorRT-LLM
		// engine's own split is not in the weights' headers.
		GPU: &GPUMemory{DefaultFraction: 1},
	},
	{
		Name: "torchserve", Title: "TorchServe",
		Images:        []string{"pytorch/torchserve", "torchserve"},
		Commands:      []string{"torchserve"},
		UniqueFlags:   []string{"--ts-config"},
		KServeFormats: []string{"pytorch"},
		Ports: []Port{
			{Number: 8080, Env: []string{"TS_INFERENCE_ADDRESS"}},
			{Number: 8081, Env: []string{"TS_MANAGEMENT_ADDRESS"}},
			{Number: 8082, Env: []string{"TS_METRICS_ADDRESS"}},
			{Number: 7070}, {Number: 7071},
		},
		ModelReadyPaths: []string{"/models/", "/v1/models/", "/v2/models/"},
		SharedMemory:    true,
		Model: ModelSettings{
			PathFlags: []string{"--model-store"}, Repository: true, NameFlags: []string{"--models"},
			CopiesEnv: []string{"TS_DEFAULT_WORKERS_PER_MODEL"},
			// The image's dockerd-entrypoint.sh starts `torchserve --start
			// --ts-config /home/model-server/config.properties`; the server
			// reads TS_CONFIG_FILE when the flag is not given.
			// https://github.com/pytorch/serve/blob/master/docker/dockerd-entrypoint.sh
			ConfigFileFlags: []string{"--ts-config"}, ConfigFileEnv: []string{"TS_CONFIG_FILE"},
			DefaultConfigFile: "/home/model-server/config.properties",
		},
		Readiness: ProbeHint{Path: "/ping"},
		Liveness:  ProbeHint{Path: "/ping"},
	},
	{
		Name: "vllm", Title: "vLLM",
		Images:   []string{"vllm/vllm-openai", "vllm-openai", "/vllm"},
		Commands: []string{"vllm", "vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server"},
		// https://docs.vllm.ai/en/latest/cli/: vllm {chat,complete,serve,bench,collect-env,run-batch}
		Subcommands: map[string][]string{"vllm": {"serve"}, "vllm.entrypoints.cli.main": {"serve"}},
		// Not --served-model-name or --tensor-parallel-size: SGLang has them too.
		UniqueFlags: []string{"--gpu-memory-utilization", "--max-model-len", "--max-num-seqs",
			"--max-num-batched-tokens", "--enforce-eager"},
		KServeFormats: []string{"vllm"},
		Ports:         []Port{{Number: 8000, Flags: []string{"--port"}}},
		SharedMemory:  true,
		// With no --host vLLM binds ("", port) on an AF_INET socket: every
		// IPv4 address, no IPv6 one (create_server_socket,
		// vllm/entrypoints/openai/api_server.py).
		Listen: &Listen{Host: Flags("--host"), Default: "0.0.0.0"},
		Model: ModelSettings{
			PathFlags: []string{"--model"}, PositionalAfter: "serve", NameFlags: []string{"--served-model-name"},
		},
		Readiness:         ProbeHint{Path: "/health"},
		Liveness:          ProbeHint{Path: "/health"},
		ProcessHealthPath: "/health",
		// vllm/envs.py get_vllm_port: the docs warn not to name a Service vllm,
		// https://docs.vllm.ai/en/stable/configuration/env_vars/
		LinkedVariables: []LinkedVariable{{"VLLM_PORT", "reads it as its internal port and fails at start: \"ValueError: VLLM_PORT " +
			"'tcp://…' appears to be a URI\" (\"invalid literal for int()\" in older releases)"}},
		// https://docs.vllm.ai/en/latest/configuration/engine_args.html
		GPU: &GPUMemory{
			TensorParallel:   Flags("--tensor-parallel-size", "-tp"),
			PipelineParallel: Flags("--pipeline-parallel-size", "-pp"),
			Sharding:         true,
			AllWeightsOnGPU:  true,
			Fraction:         Flags("--gpu-memory-utilization"),
			DefaultFraction:  0.9,
			CastsFloat32:     true,
			Dtype:            Flags("--dtype"),
			Quantization:     Flags("--quantization", "-q"),
			KVCacheDtype:     Flags("--kv-cache-dtype"),
			ContextLength:    Flags("--max-model-len"),
			ContextFromModel: true,
			CPUOffload:       Flags("--cpu-offload-gb"),
			KVFailure: "vLLM refuses to start: \"The model's max seq len … is larger than the maximum number of tokens " +
				"that can be stored in KV cache\"",
		},
		// Without a GPU, vLLM's CPU backend allocates a KV cache of
		// VLLM_CPU_KVCACHE_SPACE GiB beside the weights, 4 when unset or 0
		// (check_and_update_config in vllm/platforms/cpu.py).
		Host: &HostMemory{KVCacheGiB: Setting{Env: []string{"VLLM_CPU_KVCACHE_SPACE"}}, DefaultKVCacheGiB: 4},
	},
	{
		Name: "tgi", Title: "Text Generation Inference",
		Images:   []string{"text-generation-inference"},
		Commands: []string{"text-generation-launcher"},
		// The launcher starts one "text-generation-server serve" per shard;
		// "text-generation-server download-weights" only downloads.
		Subcommands: map[string][]string{"text-generation-server": {"serve"}},
		// Not --max-total-tokens: SGLang has it too.
		UniqueFlags:       []string{"--model-id", "--max-batch-prefill-tokens", "--max-batch-total-tokens", "--num-shard"},
		Ports:             []Port{{Number: 80, Flags: []string{"--port"}, Env: []string{"PORT"}}},
		SharedMemory:      true,
		Model:             ModelSettings{PathFlags: []string{"--model-id"}, PathEnv: []string{"MODEL_ID"}},
		Readiness:         ProbeHint{Path: "/health"},
		Liveness:          ProbeHint{Path: "/health"},
		ProcessHealthPath: "/health",
		// --master-port [env: MASTER_PORT=], the torch distributed port:
		// https://huggingface.co/docs/text-generation-inference/reference/launcher
		LinkedVariables: []LinkedVariable{{"MASTER_PORT", "reads it as --master-port, and text-generation-launcher exits: " +
			"\"invalid value 'tcp://…' for '--master-port <MASTER_PORT>'\""}},
		GPU: &GPUMemory{
			TensorParallel:    FlagOrEnv("--num-shard", "NUM_SHARD"),
			ShardsOverAllGPUs: true,
			Sharding:          true,
			AllWeightsOnGPU:   true,
			Fraction:          FlagOrEnv("--cuda-memory-fraction", "CUDA_MEMORY_FRACTION"),
			DefaultFraction:   1,
			CastsFloat32:      true,
			Dtype:             FlagOrEnv("--dtype", "DTYPE"),
			Quantization:      FlagOrEnv("--quantize", "QUANTIZE"),
			ContextLength:     FlagOrEnv("--max-total-tokens", "MAX_TOTAL_TOKENS"),
			KVFailure:         "TGI fails its warmup with \"Not enough memory to handle … total tokens\"",
		},
	},
	{
		Name: "mlserver", Title: "Seldon MLServer",
		Images:        []string{"seldonio/mlserver", "mlserver"},
		Commands:      []string{"mlserver"},
		KServeFormats: []string{"mlflow"},
		Ports: []Port{
			{Number: 8080, Env: []string{"MLSERVER_HTTP_PORT"}},
			{Number: 8081, Env: []string{"MLSERVER_GRPC_PORT"}},
		},
		ModelReadyPaths: []string{"/v2/health/ready", "/v2/models/"},
		Model:           ModelSettings{PathEnv: []string{"MLSERVER_MODELS_DIR"}, PositionalAfter: "start", Repository: true},
		Readiness:       ProbeHint{Path: "/v2/health/ready"},
		Liveness:        ProbeHint{Path: "/v2/health/live"},
	},
	{
		Name: "openvino", Title: "OpenVINO Model Server",
		Images:   []string{"openvino/model_server"},
		Commands: []string{"ovms"},
		// Not --model_name, --model_path or --config_path: too common in
		// custom servers; not --file_system_poll_wait_seconds: TF Serving has it.
		UniqueFlags:   []string{"--rest_port", "--rest_workers"},
		KServeFormats: []string{"openvino"},
		Ports: []Port{
			{Number: 9000, Flags: []string{"--port"}},
			{Number: 8080, Flags: []string{"--rest_port"}},
		},
		ModelReadyPaths: []string{"/v1/models/", "/v2/health/ready", "/v2/models/"},
		Model: ModelSettings{
			NameFlags: []string{"--model_name"}, PathFlags: []string{"--model_path"},
			ConfigFileFlags: []string{"--config_path"},
		},
		Readiness: ProbeHint{Path: "/v2/health/ready", PortFlag: "--rest_port", Port: 8080},
		Liveness:  ProbeHint{Path: "/v2/health/live"},
	},
	{
		// KServe's ModelServer with vLLM as its default backend (--backend
		// auto picks vLLM where it is installed, as in the GPU images), whose
		// engine args it passes on:
		// https://github.com/kserve/kserve/blob/master/python/huggingfaceserver/huggingfaceserver/__main__.py
		Name: "kserve-huggingface", Title: "KServe Hugging Face server",
		// KServe's runtime manifests name images by kustomize placeholders
		// ("huggingfaceserver-gpu:replace").
		Images:        []string{"kserve/huggingfaceserver", "huggingfaceserver"},
		Commands:      []string{"huggingfaceserver"},
		KServeFormats: []string{"huggingface"},
		// Its --http_port and --grpc_port are the kserve runtime's unique
		// flags, which name that one.
		Ports:           []Port{{Number: 8080}, {Number: 8081}},
		ModelReadyPaths: []string{"/v1/models/", "/v2/health/ready", "/v2/models/"},
		SharedMemory:    true,
		// load_model passes --model_id, when given, to the Hugging Face API
		// (a hub download) and loads --model_dir, default /mnt/models,
		// only without it.
		Model: ModelSettings{
			NameFlags: []string{"--model_name"}, PathFlags: []string{"--model_dir"}, IDFlags: []string{"--model_id"},
			DefaultPath: "/mnt/models",
		},
		// --backend auto (the default) and vllm start vLLM's engine with the
		// vLLM args given; huggingface runs the model with transformers.
		Backend: &Backend{Flag: "--backend", Default: "vllm",
			Engines: map[string]string{"auto": "vllm", "vllm": "vllm", "huggingface": ""}},
		Readiness: ProbeHint{Path: "/v2/health/ready"},
		Liveness:  ProbeHint{Path: "/v2/health/live"},
		GPU:       &GPUMemory{TensorParallel: Flags("--tensor-parallel-size", "-tp"), Sharding: true},
	},
	{
		// KAITO's vLLM server (presets/workspace/inference/vllm/inference_api.py
		// in kaito-project/kaito, /workspace/vllm/inference_api.py in its base
		// image): vLLM's OpenAI server, whose args it takes, with KAITO's own
		// --kaito-* args and defaults of its own: port 5000 and, with no
		// --model, /workspace/vllm/weights (KAITOArgumentParser).
		Name: "kaito-vllm", Title: "KAITO vLLM server",
		Commands:     []string{"/workspace/vllm/inference_api.py"},
		UniqueFlags:  []string{"--kaito-config-file", "--kaito-kv-cache-cpu-memory-utilization"},
		Ports:        []Port{{Number: 5000, Flags: []string{"--port"}}},
		SharedMemory: true,
		Listen:       &Listen{Host: Flags("--host"), Default: "0.0.0.0"},
		Model: ModelSettings{
			PathFlags: []string{"--model"}, NameFlags: []string{"--served-model-name"},
			DefaultPath: "/workspace/vllm/weights",
		},
		Backend:           &Backend{Default: "vllm", Engines: map[string]string{"vllm": "vllm"}},
		Readiness:         ProbeHint{Path: "/health"},
		Liveness:          ProbeHint{Path: "/health"},
		ProcessHealthPath: "/health",
		GPU:               &GPUMemory{TensorParallel: Flags("--tensor-parallel-size", "-tp"), Sharding: true},
	},
	{
		// KAITO's transformers server (presets/workspace/inference/
		// text-generation/inference_api.py in kaito-project/kaito,
		// /workspace/tfs/inference_api.py in its base image), which
		// accelerate launch starts: uvicorn on port 5000 (5000 + LOCAL_RANK),
		// /health its probe.
		Name: "kaito-transformers", Title: "KAITO transformers server",
		Commands:  []string{"/workspace/tfs/inference_api.py"},
		Ports:     []Port{{Number: 5000}},
		Model:     ModelSettings{PathFlags: []string{"--pretrained_model_name_or_path"}, NameFlags: []string{"--served_model_name"}},
		Readiness: ProbeHint{Path: "/health"},
		Liveness:  ProbeHint{Path: "/health"},
	},
	{
		Name: "kserve", Title: "KServe model server",
		Images: []string{"kserve/sklearnserver", "kserve/xgbserver", "kserve/lgbserver", "kserve/pmmlserver",
			"kserve/paddleserver", "kserve/autogluonserver", "kserve/predictiveserver",
			// KServe's runtime manifests name images by kustomize placeholders
			// ("kserve-sklearnserver:replace").
			"sklearnserver", "xgbserver", "lgbserver", "pmmlserver", "paddleserver",
			"autogluonserver", "predictiveserver"},
		Commands: []string{"sklearnserver", "xgbserver", "lgbserver", "pmmlserver", "paddleserver"},
		// The flags of KServe's ModelServer, which custom KServe predictors share.
		UniqueFlags:   []string{"--http_port", "--grpc_port", "--predictor_host"},
		KServeFormats: []string{"sklearn", "xgboost", "lightgbm", "pmml", "paddle", "autogluon"},
		Ports: []Port{
			{Number: 8080, Flags: []string{"--http_port"}},
			{Number: 8081, Flags: []string{"--grpc_port"}},
		},
		ModelReadyPaths: []string{"/v1/models/", "/v2/health/ready", "/v2/models/"},
		Model: ModelSettings{
			NameFlags: []string{"--model_name"}, PathFlags: []string{"--model_dir"}, DefaultPath: "/mnt/models",
			CopiesFlags: []string{"--workers"},
		},
		Readiness: ProbeHint{Path: "/v2/health/ready"},
		Liveness:  ProbeHint{Path: "/v2/health/live"},
	},
	{
		// Seldon Core v1's prepackaged Python servers and its wrapper of custom
		// models, which listen where Seldon's operator tells them
		// (seldon_core/microservice.py); /health/ping answers for the process.
		Name: "seldon-python", Title: "Seldon Core Python server",
		Images: []string{"seldonio/sklearnserver", "seldonio/xgboostserver", "seldonio/mlflowserver",
			"seldonio/tfserving-proxy"},
		Commands: []string{"seldon-core-microservice"},
		Ports: []Port{
			{Number: 9000, Env: []string{"PREDICTIVE_UNIT_HTTP_SERVICE_PORT"}},
			{Number: 9500, Env: []string{"PREDICTIVE_UNIT_GRPC_SERVICE_PORT"}},
		},
		Readiness: ProbeHint{Path: "/health/ping"},
	},
	{
		// https://docs.sglang.io/advanced_features/server_arguments.html (flags, port 30000,
		// /dev/shm for its worker processes); /health and /health_generate answer 503
		// until the model has loaded and warmed up:
		// https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/entrypoints/http_server.py
		Name: "sglang", Title: "SGLang",
		Images:   []string{"lmsysorg/sglang", "/sglang"},
		Commands: []string{"sglang.launch_server", "sglang_router.launch_server"},
		// https://github.com/sgl-project/sglang/blob/main/python/sglang/cli/main.py:
		// sglang {serve,generate,render,version}
		Subcommands:     map[string][]string{"sglang": {"serve"}},
		UniqueFlags:     []string{"--model-path", "--mem-fraction-static", "--tp-size"},
		Ports:           []Port{{Number: 30000, Flags: []string{"--port"}}},
		ModelReadyPaths: []string{"/health", "/health_generate", "/get_model_info", "/v1/models"},
		SharedMemory:    true,
		// ServerArgs.host = "127.0.0.1"
		// (https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py).
		Listen: &Listen{Host: Flags("--host"), Default: "127.0.0.1"},
		Model: ModelSettings{
			PathFlags: []string{"--model-path", "--model"}, NameFlags: []string{"--served-model-name"},
		},
		ProcessHealthPath: "/health",
		// --mem-fraction-static, when unset, is derived from the GPU's memory,
		// 0.88 at most: python/sglang/srt/server_args.py
		GPU: &GPUMemory{
			// --tensor-parallel-size and --pipeline-parallel-size are the
			// names server_args.py gives them, --tp-size and --pp-size
			// their aliases; --tp is argparse's abbreviation of --tp-size.
			TensorParallel:   Flags("--tp-size", "--tp", "--tensor-parallel-size"),
			PipelineParallel: Flags("--pp-size", "--pipeline-parallel-size"),
			Sharding:         true,
			Fraction:         Flags("--mem-fraction-static"),
			DefaultFraction:  0.88,
			CastsFloat32:     true,
			Dtype:            Flags("--dtype"),
			Quantization:     Flags("--quantization"),
			KVCacheDtype:     Flags("--kv-cache-dtype"),
			ContextLength:    Flags("--context-length"),
			ContextFromModel: true,
			CPUOffload:       Flags("--cpu-offload-gb"),
			KVFailure:        "SGLang's KV cache pool cannot hold one request of that length",
		},
	},
	{
		// NIM for LLMs: the image's entrypoint starts a proxy that answers
		// /v1/health/live at once and /v1/health/ready once the model is loaded:
		// https://docs.nvidia.com/nim/large-language-models/latest/reference/architecture.html
		// https://docs.nvidia.com/nim/large-language-models/latest/reference/environment-variables.html
		// It downloads the model to NIM_CACHE_PATH (default /opt/nim/.cache),
		// which is empty until then, so it is not a default model path. The
		// Helm chart mounts an in-memory /dev/shm:
		// https://github.com/NVIDIA/nim-deploy/blob/main/helm/nim-llm/templates/deployment.yaml
		Name: "nim", Title: "NVIDIA NIM",
		Images: []string{"nvcr.io/nim/"},
		Commands: []string{"/opt/nim/start_server.sh", "nim_llm_sdk.entrypoints.launch",
			"nim_llm_sdk.entrypoints.openai.api_server", "vllm_nvext.entrypoints.openai.api_server"},
		Ports: []Port{
			{Number: 8000, Env: []string{"NIM_SERVER_PORT"}},
			// Health endpoints move to a port of their own only when it is set.
			{Env: []string{"NIM_HEALTH_PORT"}},
		},
		ModelReadyPaths: []string{"/v1/health/ready", "/v1/models"},
		SharedMemory:    true,
		Model:           ModelSettings{PathEnv: []string{"NIM_MODEL_PATH", "NIM_MODEL_NAME"}},
		GPU: &GPUMemory{
			TensorParallel:    Setting{Env: []string{"NIM_TENSOR_PARALLEL_SIZE"}},
			PipelineParallel:  Setting{Env: []string{"NIM_PIPELINE_PARALLEL_SIZE"}},
			ShardsOverAllGPUs: true,
			DefaultFraction:   0.9, // its vLLM engine's
			CastsFloat32:      true,
			ContextLength:     Setting{Env: []string{"NIM_MAX_MODEL_LEN"}},
			KVFailure:         "the NIM's engine refuses to start: its KV cache cannot hold one sequence of that length",
		},
	},
	{
		// https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md:
		// -m/--model (a GGUF file, env LLAMA_ARG_MODEL), --port 8080 (env
		// LLAMA_ARG_PORT), /health and /v1/health answer 503 while the model loads.
		// The server image's entrypoint is /app/llama-server, formerly /server
		// (https://github.com/ggml-org/llama.cpp/blob/master/.devops/cuda.Dockerfile);
		// "server" alone is too common a name to be a Command, the image names it.
		Name: "llama.cpp", Title: "llama.cpp server",
		Images:          []string{"llama.cpp"},
		Commands:        []string{"llama-server"},
		UniqueFlags:     []string{"--n-gpu-layers", "--gpu-layers", "--ctx-size", "--hf-repo"},
		Ports:           []Port{{Number: 8080, Flags: []string{"--port"}, Env: []string{"LLAMA_ARG_PORT"}}},
		ModelReadyPaths: []string{"/health", "/v1/health", "/v1/models"},
		// common_params.hostname = "127.0.0.1" (common/common.h); the
		// project's server images set LLAMA_ARG_HOST=0.0.0.0
		// (.devops/*.Dockerfile).
		Listen: &Listen{Host: FlagOrEnv("--host", "LLAMA_ARG_HOST"), Default: "127.0.0.1", ImageHost: "0.0.0.0"},
		Model: ModelSettings{
			PathFlags: []string{"--model", "-m", "--hf-repo", "-hf"}, PathEnv: []string{"LLAMA_ARG_MODEL", "LLAMA_ARG_HF_REPO"},
			NameFlags: []string{"--alias", "-a"},
		},
		HubQuantizedFiles: true,
		// Its context length is checked only when --ctx-size is set: the
		// default has changed between releases (512, 4096, the model's), and
		// -c 0 takes the model's context_length.
		GPU: &GPUMemory{
			ShardsOverAllGPUs:  true,
			DefaultFraction:    1,
			GPULayers:          Setting{Flags: []string{"--n-gpu-layers", "-ngl", "--gpu-layers"}, Env: []string{"LLAMA_ARG_N_GPU_LAYERS"}},
			ContextLength:      Setting{Flags: []string{"--ctx-size", "-c"}, Env: []string{"LLAMA_ARG_CTX_SIZE"}},
			ContextZeroIsModel: true,
			KVCacheDtype:       Setting{Flags: []string{"--cache-type-k", "-ctk"}, Env: []string{"LLAMA_ARG_CACHE_TYPE_K"}},
			SmallerKVCache:     "q8_0",
			KVFailure: "llama.cpp cannot allocate its KV cache on the GPU and exits (\"failed to allocate buffer for kv " +
				"cache\", \"cudaMalloc failed: out of memory\")",
		},
		// On the CPU: the KV cache of -c tokens, shared by the -np slots
		// (llama_context in src/llama-context.cpp), allocated and cleared
		// at start (llama_kv_cache in src/llama-kv-cache.cpp); the weights
		// memory-mapped unless --no-mmap (common/arg.cpp, LLAMA_ARG_MMAP;
		// LLAMA_ARG_NO_MMAP in older releases), but for the matrices the
		// CPU backend repacks (ggml_repack_get_optimal_repack_type in
		// ggml/src/ggml-cpu/repack.cpp: Q4_0, Q4_K, Q2_K, IQ4_NL, Q8_0 and
		// MXFP4, by the CPU's instructions) unless --no-repack.
		Host: &HostMemory{
			ContextLength:    Setting{Flags: []string{"--ctx-size", "-c"}, Env: []string{"LLAMA_ARG_CTX_SIZE"}},
			CacheTypeK:       Setting{Flags: []string{"--cache-type-k", "-ctk"}, Env: []string{"LLAMA_ARG_CACHE_TYPE_K"}},
			CacheTypeV:       Setting{Flags: []string{"--cache-type-v", "-ctv"}, Env: []string{"LLAMA_ARG_CACHE_TYPE_V"}},
			Parallel:         Setting{Flags: []string{"--parallel", "-np"}, Env: []string{"LLAMA_ARG_N_PARALLEL"}},
			KVClearedAtStart: true,
			MapsWeights:      true,
			NoMmap:           []string{"--no-mmap"}, Mmap: []string{"--mmap"},
			NoMmapEnv: "LLAMA_ARG_NO_MMAP", MmapEnv: "LLAMA_ARG_MMAP",
			Repacks:  []string{"Q4_0", "Q4_K", "Q2_K", "IQ4_NL", "Q8_0", "MXFP4"},
			NoRepack: []string{"--no-repack", "-nr"}, Repack: []string{"--repack"},
			NoRepackEnv: "LLAMA_ARG_NO_REPACK", RepackEnv: "LLAMA_ARG_REPACK",
		},
	},
	{
		// https://github.com/ollama/ollama/blob/main/envconfig/config.go: OLLAMA_HOST
		// (default 127.0.0.1:11434), OLLAMA_MODELS (default ~/.ollama/models, in the
		// image /root/.ollama/models, empty until a model is pulled). The image runs
		// "ollama serve" (https://github.com/ollama/ollama/blob/main/Dockerfile). The
		// server answers /, /api/version and /api/tags at once and loads models on
		// request, so none of its paths waits for a model.
		Name: "ollama", Title: "Ollama",
		Images:      []string{"ollama/ollama"},
		Subcommands: map[string][]string{"ollama": {"serve"}},
		Ports:       []Port{{Number: 11434, Env: []string{"OLLAMA_HOST"}}},
		// OLLAMA_HOST defaults to 127.0.0.1:11434 (envconfig/config.go); the
		// project's image sets OLLAMA_HOST=0.0.0.0:11434 (Dockerfile).
		Listen: &Listen{Host: Setting{Env: []string{"OLLAMA_HOST"}}, HostPort: true, Default: "127.0.0.1", ImageHost: "0.0.0.0"},
		Model:  ModelSettings{PathEnv: []string{"OLLAMA_MODELS"}, Repository: true},
	},
	{
		// JetStream engines serve gRPC on 9000: MaxText's maxengine_server (settings
		// as key=value args, not flags)
		// https://github.com/AI-Hypercomputer/JetStream/blob/main/docs/online-inference-with-maxtext-engine.md
		// and JetStream PyTorch's "jpt serve --model_id ID --port 9000"
		// https://github.com/AI-Hypercomputer/jetstream-pytorch/blob/main/jetstream_pt/cli.py
		// GKE pairs them with a jetstream-http sidecar on 8000 that holds no model
		// and only forwards to 127.0.0.1:9000:
		// https://github.com/GoogleCloudPlatform/ai-on-gke/blob/main/tutorials-and-examples/inference-servers/jetstream/maxtext/single-host-inference/deployment.yaml
		Name: "jetstream", Title: "JetStream",
		Images: []string{"maxengine-server", "jetstream-pytorch-server"},
		Commands: []string{"maxengine_server.py", "MaxText.maxengine_server", "maxtext.inference.maxengine.maxengine_server",
			"maxengine_server_entrypoint.sh", "jetstream_pytorch_server_entrypoint.sh"},
		Subcommands: map[string][]string{"jpt": {"serve"}, "jetstream_pt.cli": {"serve"}},
		UniqueFlags: []string{"--sharding_config", "--quantize_kv_cache", "--max_cache_length", "--override_batch_size"},
		Ports:       []Port{{Number: 9000, Flags: []string{"--port"}}},
		Model:       ModelSettings{PathFlags: []string{"--model_id", "--checkpoint_path"}},
	},
	{
		// "serve run CONFIG_OR_IMPORT_PATH" runs an application on HTTP 8000 (older
		// releases take --port) and starts a local Ray with its dashboard on 8265;
		// "serve start", "deploy", "status" and "shutdown" talk to a cluster and exit:
		// https://github.com/ray-project/ray/blob/master/python/ray/serve/scripts.py
		// The proxy's /-/healthz and /-/routes answer 503 until it knows the
		// application's replicas, that is until their models have loaded:
		// https://github.com/ray-project/ray/pull/47002
		// Ray's object store lives in /dev/shm.
		Name: "ray-serve", Title: "Ray Serve",
		Images:      []string{"rayproject/ray"},
		Subcommands: map[string][]string{"serve": {"run"}},
		Ports: []Port{
			{Number: 8000, Flags: []string{"--port"}},
			{Number: 8265},
		},
		ModelReadyPaths: []string{"/-/healthz", "/-/routes"},
		SharedMemory:    true,
	},
}

// Generic stands for a container recognised as a model server only by the
// shape of its probes (a model-readiness endpoint).
var Generic = &Runtime{
	Name: "model-server", Title: "model server",
	ModelReadyPaths: []string{"/v1/models/", "/v2/health/ready", "/v2/models/"},
}

// Detect returns the runtime a container runs as far as its manifest tells
// (its command and args, then the image name), or nil for anything else;
// the engine refines it from what the image really runs.
func Detect(image string, command, args []string) *Runtime {
	process := Process{Image: image}
	if len(command) > 0 {
		process.Command = plainWords(append(append([]string{}, command...), args...))
	} else {
		process.Args = plainWords(args)
	}
	return Recognise(process).Runtime
}

func plainWords(texts []string) []Word {
	words := make([]Word, len(texts))
	for i, text := range texts {
		words[i] = Word{Text: text}
	}
	return words
}

// ForKServeFormat returns the runtime KServe picks for a modelFormat name.
func ForKServeFormat(format string) *Runtime {
	format = strings.ToLower(format)
	for _, runtime := range Runtimes {
		for _, name := range runtime.KServeFormats {
			if name == format {
				return runtime
			}
		}
	}
	return nil
}

// imageRepository strips the tag and digest from an image reference.
func imageRepository(image string) string {
	image = strings.ToLower(image)
	if i := strings.IndexByte(image, '@'); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndexByte(image, ':'); i > strings.LastIndexByte(image, '/') {
		image = image[:i]
	}
	return image
}

// IsModelReadyPath reports whether an HTTP path answers only once a model
// has loaded.
func (r *Runtime) IsModelReadyPath(httpPath string) bool {
	for _, prefix := range append(append([]string{}, r.ModelReadyPaths...), Generic.ModelReadyPaths...) {
		if strings.HasPrefix(httpPath, prefix) {
			return true
		}
	}
	return false
}

// ListenPorts returns the ports the server listens on given its args and env
// (flag values override defaults; a flag set to 0 disables that port).
func (r *Runtime) ListenPorts(args Args) []int32 {
	var ports []int32
	for _, port := range r.Ports {
		number := port.Number
		for _, flag := range port.Flags {
			number = args.Port(flag, number)
		}
		for _, name := range port.Env {
			if value, ok := args.env[name]; ok {
				if n, ok := portFromAddress(value); ok {
					number = n
				}
			}
		}
		if number > 0 {
			ports = append(ports, number)
		}
	}
	return ports
}

// portFromAddress reads "8080", ":8080" or "http://0.0.0.0:8080".
func portFromAddress(value string) (int32, bool) {
	if i := strings.LastIndexByte(value, ':'); i >= 0 {
		value = value[i+1:]
	}
	n, err := strconv.Atoi(strings.TrimSpace(value))
	return int32(n), err == nil && n > 0 && n < 65536
}
