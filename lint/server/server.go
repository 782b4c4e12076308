// Package server recognises model-serving runtimes (TF Serving, Triton,
// TorchServe, vLLM, TGI, KServe and Seldon runtimes) from a container's image,
// command and args, and knows their ports and health endpoints. Adding a
// runtime is one entry in Runtimes.
package server

import (
	"path"
	"strconv"
	"strings"
)

// Runtime describes one serving runtime.
type Runtime struct {
	Name  string // stable identifier, e.g. "tensorflow-serving"
	Title string // for messages, e.g. "TF Serving"
	// Images are substrings of the image repository (without tag) that identify it.
	Images []string
	// Commands are executable base names or module names (python -m X) that identify it.
	Commands []string
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
			ImageEnv: map[string]string{"MODEL_NAME": "model", "MODEL_BASE_PATH": "/models"},
		},
	},
	{
		Name: "triton", Title: "Triton Inference Server",
		Images:        []string{"tritonserver", "triton-inference-server"},
		Commands:      []string{"tritonserver"},
		KServeFormats: []string{"triton", "tensorrt", "onnx"},
		Ports: []Port{
			{Number: 8000, Flags: []string{"--http-port"}},
			{Number: 8001, Flags: []string{"--grpc-port"}},
			{Number: 8002, Flags: []string{"--metrics-port"}},
		},
		ModelReadyPaths: []string{"/v2/health/ready", "/v2/models/"},
		SharedMemory:    true,
		Model: ModelSettings{
			PathFlags: []string{"--model-repository", "--model-store"}, Repository: true,
			NameFlags: []string{"--load-model"},
		},
	},
	{
		Name: "torchserve", Title: "TorchServe",
		Images:        []string{"pytorch/torchserve", "torchserve"},
		Commands:      []string{"torchserve"},
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
		},
	},
	{
		Name: "vllm", Title: "vLLM",
		Images:        []string{"vllm/vllm-openai", "vllm-openai", "/vllm"},
		Commands:      []string{"vllm", "vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server"},
		KServeFormats: []string{"vllm"},
		Ports:         []Port{{Number: 8000, Flags: []string{"--port"}}},
		SharedMemory:  true,
		Model: ModelSettings{
			PathFlags: []string{"--model"}, PositionalAfter: "serve", NameFlags: []string{"--served-model-name"},
		},
	},
	{
		Name: "tgi", Title: "Text Generation Inference",
		Images:       []string{"text-generation-inference"},
		Commands:     []string{"text-generation-launcher"},
		Ports:        []Port{{Number: 80, Flags: []string{"--port"}, Env: []string{"PORT"}}},
		SharedMemory: true,
		Model:        ModelSettings{PathFlags: []string{"--model-id"}, PathEnv: []string{"MODEL_ID"}},
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
	},
	{
		Name: "openvino", Title: "OpenVINO Model Server",
		Images:        []string{"openvino/model_server"},
		Commands:      []string{"ovms"},
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
	},
	{
		Name: "kserve", Title: "KServe model server",
		Images: []string{"kserve/sklearnserver", "kserve/xgbserver", "kserve/lgbserver", "kserve/pmmlserver",
			"kserve/paddleserver", "kserve/huggingfaceserver", "kserve/autogluonserver", "kserve/predictiveserver",
			// KServe's runtime manifests name images by kustomize placeholders
			// ("kserve-sklearnserver:replace", "huggingfaceserver-gpu:replace").
			"sklearnserver", "xgbserver", "lgbserver", "pmmlserver", "paddleserver", "huggingfaceserver",
			"autogluonserver", "predictiveserver"},
		Commands:      []string{"sklearnserver", "xgbserver", "lgbserver", "pmmlserver", "paddleserver", "huggingfaceserver"},
		KServeFormats: []string{"sklearn", "xgboost", "lightgbm", "pmml", "paddle", "huggingface", "autogluon"},
		Ports: []Port{
			{Number: 8080, Flags: []string{"--http_port"}},
			{Number: 8081, Flags: []string{"--grpc_port"}},
		},
		ModelReadyPaths: []string{"/v1/models/", "/v2/health/ready", "/v2/models/"},
		Model: ModelSettings{
			NameFlags: []string{"--model_name"}, PathFlags: []string{"--model_dir"}, DefaultPath: "/mnt/models",
			CopiesFlags: []string{"--workers"},
		},
	},
}

// Generic stands for a container recognised as a model server only by the
// shape of its probes (a model-readiness endpoint).
var Generic = &Runtime{
	Name: "model-server", Title: "model server",
	ModelReadyPaths: []string{"/v1/models/", "/v2/health/ready", "/v2/models/"},
}

// Detect returns the runtime a container runs, or nil for anything else.
func Detect(image string, command, args []string) *Runtime {
	for _, runtime := range Runtimes {
		if runtime.matchesArgv(command, args) {
			return runtime
		}
	}
	// The longest matching pattern wins, so "kserve-pmmlserver" is the KServe
	// PMML server and not Seldon's "mlserver".
	repository := imageRepository(image)
	var best *Runtime
	bestLength := 0
	for _, runtime := range Runtimes {
		for _, pattern := range runtime.Images {
			if strings.Contains(repository, pattern) && len(pattern) > bestLength {
				best, bestLength = runtime, len(pattern)
			}
		}
	}
	return best
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

func (r *Runtime) matchesArgv(command, args []string) bool {
	argv := append(append([]string{}, command...), args...)
	for i, word := range argv {
		if i > 3 {
			break // the server's name is argv[0], or follows python -m / a shell wrapper
		}
		for _, name := range r.Commands {
			if path.Base(word) == name || strings.HasPrefix(word, name+" ") || strings.Contains(word, "/"+name+" ") {
				return true
			}
			// A shell script ("sh -c 'exec tensorflow_model_server …'") runs
			// the server from inside one word.
			if strings.ContainsAny(word, " \n") {
				for _, field := range strings.Fields(word) {
					if path.Base(field) == name {
						return true
					}
				}
			}
		}
	}
	return false
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
func (r *Runtime) ListenPorts(args []string, env map[string]string) []int32 {
	var ports []int32
	for _, port := range r.Ports {
		number := port.Number
		for _, flag := range port.Flags {
			if value, ok := FlagValue(args, flag); ok {
				if n, err := strconv.Atoi(value); err == nil {
					number = int32(n)
				}
			}
		}
		for _, name := range port.Env {
			if value, ok := env[name]; ok {
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

// FlagValue finds "--flag=value" or "--flag value" in args. Single-dash
// spellings ("-flag") are accepted too, as Go and absl flag parsers do.
func FlagValue(args []string, flag string) (string, bool) {
	name := strings.TrimLeft(flag, "-")
	for i, arg := range args {
		if !strings.HasPrefix(arg, "-") {
			continue
		}
		key, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if key != name {
			continue
		}
		if hasValue {
			return value, true
		}
		if i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}
