package server

import (
	"reflect"
	"testing"
)

func TestListenPortsOfLLMServers(t *testing.T) {
	tests := []struct {
		runtime string
		args    []string
		env     map[string]string
		want    []int32
	}{
		{runtime: "sglang", want: []int32{30000}},
		{runtime: "sglang", args: []string{"--model-path", "m", "--port", "31000"}, want: []int32{31000}},
		{runtime: "nim", want: []int32{8000}},
		{runtime: "nim", env: map[string]string{"NIM_SERVER_PORT": "9000"}, want: []int32{9000}},
		{runtime: "nim", env: map[string]string{"NIM_HEALTH_PORT": "8080"}, want: []int32{8000, 8080}},
		// A port out of range is no port: the default stays.
		{runtime: "nim", env: map[string]string{"NIM_SERVER_PORT": "0"}, want: []int32{8000}},
		{runtime: "llama.cpp", env: map[string]string{"LLAMA_ARG_PORT": "65536"}, want: []int32{8080}},
		{runtime: "llama.cpp", want: []int32{8080}},
		{runtime: "llama.cpp", args: []string{"-m", "m.gguf", "--port", "8081"}, want: []int32{8081}},
		{runtime: "llama.cpp", env: map[string]string{"LLAMA_ARG_PORT": "9090"}, want: []int32{9090}},
		{runtime: "ollama", want: []int32{11434}},
		{runtime: "ollama", env: map[string]string{"OLLAMA_HOST": "0.0.0.0"}, want: []int32{11434}}, // the image's own setting
		{runtime: "ollama", env: map[string]string{"OLLAMA_HOST": "0.0.0.0:8080"}, want: []int32{8080}},
		{runtime: "ollama", env: map[string]string{"OLLAMA_HOST": ":8080"}, want: []int32{8080}},
		{runtime: "jetstream", want: []int32{9000}},
		{runtime: "jetstream", args: []string{"serve", "--model_id", "m", "--port=9001"}, want: []int32{9001}},
		{runtime: "ray-serve", want: []int32{8000, 8265}},
		{runtime: "ray-serve", args: []string{"run", "app:x", "--port", "9000"}, want: []int32{9000, 8265}},
	}
	for _, test := range tests {
		got := runtimeNamed(t, test.runtime).ListenPorts(ArgsOf(test.args, test.env))
		if !reflect.DeepEqual(got, test.want) {
			t.Errorf("%s.ListenPorts(%q, %v) = %v, want %v", test.runtime, test.args, test.env, got, test.want)
		}
	}
}

func TestModelReadyPathsOfLLMServers(t *testing.T) {
	tests := []struct {
		runtime string
		path    string
		want    bool
	}{
		{"sglang", "/health", true},
		{"sglang", "/health_generate", true},
		{"sglang", "/v1/models", true},
		{"nim", "/v1/health/ready", true},
		{"nim", "/v1/health/live", false},
		{"llama.cpp", "/health", true},
		{"llama.cpp", "/v1/health", true},
		{"ollama", "/", false},
		{"ollama", "/api/tags", false},
		{"ollama", "/api/version", false},
		{"ray-serve", "/-/healthz", true},
		{"ray-serve", "/-/routes", true},
	}
	for _, test := range tests {
		if got := runtimeNamed(t, test.runtime).IsModelReadyPath(test.path); got != test.want {
			t.Errorf("%s.IsModelReadyPath(%q) = %v, want %v", test.runtime, test.path, got, test.want)
		}
	}
}

func TestDetectLLMServerImages(t *testing.T) {
	tests := []struct{ image, want string }{
		{"lmsysorg/sglang:v0.4.6.post1-cu124", "sglang"},
		{"nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3", "nim"},
		{"ghcr.io/ggml-org/llama.cpp:server-cuda", "llama.cpp"},
		{"ghcr.io/ggerganov/llama.cpp:server", "llama.cpp"},
		{"ollama/ollama:0.5.7", "ollama"},
		{"us-docker.pkg.dev/cloud-tpu-images/inference/maxengine-server:v0.2.2", "jetstream"},
		{"us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-pytorch-server:v0.2.0", "jetstream"},
		{"rayproject/ray-ml:2.9.0-gpu", "ray-serve"},
		// The HTTP sidecar of JetStream on GKE forwards to the engine and holds no model.
		{"us-docker.pkg.dev/cloud-tpu-images/inference/jetstream-http:v0.2.2", ""},
		{"ghcr.io/open-webui/open-webui:ollama", ""},
	}
	for _, test := range tests {
		if got := nameOf(Detect(test.image, nil, nil)); got != test.want {
			t.Errorf("Detect(%q) = %q, want %q", test.image, got, test.want)
		}
	}
}
