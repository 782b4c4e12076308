package server

import (
	"reflect"
	"testing"
)

func runtimeNamed(t *testing.T, name string) *Runtime {
	t.Helper()
	for _, runtime := range Runtimes {
		if runtime.Name == name {
			return runtime
		}
	}
	t.Fatalf("no runtime %s", name)
	return nil
}

func TestParse(t *testing.T) {
	tests := []struct {
		name      string
		runtime   string
		container Container
		names     []Value
		paths     []Value
		config    Value
		copies    int
	}{
		{
			name: "tf serving flags", runtime: "tensorflow-serving",
			container: Container{Args: []string{"--model_name=resnet", "--port=8500", "--model_base_path", "/models/resnet"}},
			names:     []Value{Value{"resnet", "--model_name", "args[0]"}},
			paths:     []Value{{"/models/resnet", "--model_base_path", "args[3]"}},
			copies:    1,
		},
		{
			// The official image's wrapper gives its own flags before the
			// container's: TF Serving keeps the last of a repeated flag.
			name: "tf serving repeated flags", runtime: "tensorflow-serving",
			container: Container{Command: []string{"tensorflow_model_server"}, Args: []string{"--model_name=model",
				"--model_base_path=/models/model", "--model_name=resnet", "--model_base_path=/models/resnet"}},
			names:  []Value{Value{"resnet", "--model_name", "args[2]"}},
			paths:  []Value{{"/models/resnet", "--model_base_path", "args[3]"}},
			copies: 1,
		},
		{
			// KServe's Hugging Face server hands --model_id to the hub and
			// leaves --model_dir unread.
			name: "kserve huggingface model id", runtime: "kserve-huggingface",
			container: Container{Command: []string{"python3", "-m", "huggingfaceserver"}, Args: []string{"--model_name=qwen",
				"--model_dir=/mnt/models", "--model_id=Qwen/Qwen2.5-7B-Instruct"}},
			names:  []Value{{"qwen", "--model_name", "args[0]"}},
			paths:  []Value{{"Qwen/Qwen2.5-7B-Instruct", "--model_id", "args[2]"}},
			copies: 1,
		},
		{
			// Each --model-repository adds one.
			name: "triton repeated repositories", runtime: "triton",
			container: Container{Command: []string{"tritonserver"}, Args: []string{"--model-repository=/a",
				"--model-repository=/b"}},
			paths:  []Value{{"/a", "--model-repository", "args[0]"}, {"/b", "--model-repository", "args[1]"}},
			copies: 1,
		},
		{
			// Triton loads each --load-model of explicit mode; TF Serving
			// above keeps the last --model_name.
			name: "triton repeated load-model", runtime: "triton",
			container: Container{Command: []string{"tritonserver"}, Args: []string{"--model-repository=/models",
				"--model-control-mode=explicit", "--load-model=a", "--load-model", "b"}},
			names:  []Value{{"a", "--load-model", "args[2]"}, {"b", "--load-model", "args[4]"}},
			paths:  []Value{{"/models", "--model-repository", "args[0]"}},
			copies: 1,
		},
		{
			// Triton reads --load-model only in explicit mode (the last
			// --model-control-mode, any case), and loads every model of
			// its repository otherwise.
			name: "triton load-model without explicit mode", runtime: "triton",
			container: Container{Command: []string{"tritonserver"}, Args: []string{"--model-repository=/models",
				"--model-control-mode=explicit", "--model-control-mode=poll", "--load-model=a"}},
			paths:  []Value{{"/models", "--model-repository", "args[0]"}},
			copies: 1,
		},
		{
			name: "triton explicit mode in capitals", runtime: "triton",
			container: Container{Command: []string{"tritonserver"}, Args: []string{"--model-repository=/models",
				"--model-control-mode=EXPLICIT", "--load-model=a"}},
			names:  []Value{{"a", "--load-model", "args[2]"}},
			paths:  []Value{{"/models", "--model-repository", "args[0]"}},
			copies: 1,
		},
		{
			// --load-model=* loads every model of the repository.
			name: "triton load every model", runtime: "triton",
			container: Container{Command: []string{"tritonserver"}, Args: []string{"--model-repository=/models",
				"--model-control-mode=explicit", "--load-model=*"}},
			paths:  []Value{{"/models", "--model-repository", "args[0]"}},
			copies: 1,
		},
		{
			name: "tf serving image entrypoint with env", runtime: "tensorflow-serving",
			container: Container{Env: map[string]string{"MODEL_NAME": "resnet"}},
			names:     []Value{Value{"resnet", "image default", ""}},
			paths:     []Value{{"/models/resnet", "image default", ""}},
			copies:    1,
		},
		{
			name: "tf serving image defaults", runtime: "tensorflow-serving",
			names:  []Value{Value{"model", "image default", ""}},
			paths:  []Value{{"/models/model", "image default", ""}},
			copies: 1,
		},
		{
			name: "tf serving model config file, $(VAR) expanded", runtime: "tensorflow-serving",
			container: Container{
				Command: []string{"/usr/bin/tensorflow_model_server"},
				Args:    []string{"--model_config_file=$(CONFIG_DIR)/models.config"},
				Env:     map[string]string{"CONFIG_DIR": "/etc/tfs"},
			},
			config: Value{"/etc/tfs/models.config", "--model_config_file", "args[0]"},
			copies: 1,
		},
		{
			name: "triton repositories in a shell script", runtime: "triton",
			container: Container{
				Command: []string{"/bin/sh", "-c"},
				Args:    []string{"tritonserver --model-repository=/models --model-repository=s3://bucket/more --strict-readiness=true"},
			},
			paths:  []Value{{"/models", "--model-repository", "args[0]"}, {"s3://bucket/more", "--model-repository", "args[0]"}},
			copies: 1,
		},
		{
			name: "vllm serve positional", runtime: "vllm",
			container: Container{Command: []string{"vllm", "serve", "/data/llama", "--served-model-name", "llama"}},
			names:     []Value{Value{"llama", "--served-model-name", "command[4]"}},
			paths:     []Value{{"/data/llama", "serve argument", "command[2]"}},
			copies:    1,
		},
		{
			name: "tgi env", runtime: "tgi",
			container: Container{Env: map[string]string{"MODEL_ID": "/data/model"}, EnvIndex: map[string]int{"MODEL_ID": 2}},
			paths:     []Value{{"/data/model", "env MODEL_ID", "env[2].value"}},
			copies:    1,
		},
		{
			// A flag written last with no value sets nothing.
			name: "tf serving flag with no value at the end", runtime: "tensorflow-serving",
			container: Container{Command: []string{"tensorflow_model_server"}, Args: []string{"--model_name=resnet",
				"--model_base_path"}},
			names:  []Value{Value{"resnet", "--model_name", "args[0]"}},
			copies: 1,
		},
		{
			// A flag after serve is no model path of its own.
			name: "vllm serve with the model as a flag", runtime: "vllm",
			container: Container{Command: []string{"vllm", "serve", "--model", "/data/llama"}},
			paths:     []Value{{"/data/llama", "--model", "command[3]"}},
			copies:    1,
		},
		{
			name: "vllm serve with no model", runtime: "vllm",
			container: Container{Command: []string{"vllm", "serve"}},
			copies:    1,
		},
		{
			// TorchServe reads TS_CONFIG_FILE before --ts-config.
			name: "torchserve config file env over flag", runtime: "torchserve",
			container: Container{
				Command:  []string{"torchserve", "--start", "--ts-config", "/etc/ts/flag.properties"},
				Env:      map[string]string{"TS_CONFIG_FILE": "/etc/ts/env.properties"},
				EnvIndex: map[string]int{"TS_CONFIG_FILE": 0},
			},
			config: Value{"/etc/ts/env.properties", "env TS_CONFIG_FILE", "env[0].value"},
			copies: 1,
		},
		{
			name: "torchserve image default config file", runtime: "torchserve",
			config: Value{"/home/model-server/config.properties", "image default", ""},
			copies: 1,
		},
		{
			// The image's entrypoint passes the container's args on: its
			// default config file gives way to theirs.
			name: "torchserve config file in args to the image entrypoint", runtime: "torchserve",
			container: Container{Args: []string{"--ts-config", "/etc/ts/config.properties"}},
			config:    Value{"/etc/ts/config.properties", "--ts-config", "args[1]"},
			copies:    1,
		},
		{
			name: "kserve default and workers", runtime: "kserve",
			container: Container{Args: []string{"--model_name={{.Name}}", "--workers=4"}},
			names:     []Value{{"{{.Name}}", "--model_name", "args[0]"}},
			paths:     []Value{{"/mnt/models", "image default", ""}},
			copies:    4,
		},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			inv := runtimeNamed(t, test.runtime).Parse(test.container)
			if !reflect.DeepEqual(inv.ModelNames, test.names) {
				t.Errorf("model names %+v, want %+v", inv.ModelNames, test.names)
			}
			if !reflect.DeepEqual(inv.ModelPaths, test.paths) {
				t.Errorf("model paths %+v, want %+v", inv.ModelPaths, test.paths)
			}
			if inv.ModelConfigFile != test.config {
				t.Errorf("config file %+v, want %+v", inv.ModelConfigFile, test.config)
			}
			if inv.CopiesCount() != test.copies {
				t.Errorf("copies %d, want %d", inv.CopiesCount(), test.copies)
			}
		})
	}
}

func TestEngine(t *testing.T) {
	hf := runtimeNamed(t, "kserve-huggingface")
	for _, c := range []struct {
		args   []string
		engine string
	}{
		{nil, "vllm"},
		{[]string{"--backend=auto"}, "vllm"},
		{[]string{"--backend", "vllm", "--tensor-parallel-size=2"}, "vllm"},
		{[]string{"--backend=huggingface"}, "kserve-huggingface"},
		{[]string{"--backend=onnx"}, "vllm"},
	} {
		inv := hf.Parse(Container{Command: []string{"python", "-m", "huggingfaceserver"}, Args: c.args})
		if inv.Engine.Name != c.engine {
			t.Errorf("%v: engine %s, want %s", c.args, inv.Engine.Name, c.engine)
		}
	}
	if vllm := runtimeNamed(t, "vllm"); vllm.Parse(Container{}).Engine != vllm {
		t.Error("vLLM's engine is not its own")
	}
}
