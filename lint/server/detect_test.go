package server

import "testing"

func TestDetect(t *testing.T) {
	tests := []struct {
		image         string
		command, args []string
		want          string
	}{
		{image: "tensorflow/serving:2.19.0", want: "tensorflow-serving"},
		// The longest image pattern wins: KServe's PMML server is not Seldon's MLServer.
		{image: "kserve-pmmlserver:replace", want: "kserve"},
		{image: "mlserver:replace", want: "mlserver"},
		{image: "kserve-sklearnserver:replace", want: "kserve"},
		{image: "seldonio/sklearnserver:1.18.2", want: "seldon-python"},
		{image: "huggingfaceserver-gpu:replace", want: "kserve-huggingface"},
		// A server started from a shell script.
		{image: "registry.example.com/custom:1.0", command: []string{"/bin/sh", "-c"},
			args: []string{"exec tensorflow_model_server --rest_api_port=8080"}, want: "tensorflow-serving"},
		{image: "nginx:1.27", command: []string{"sh", "-c", "echo hello && sleep 10"}, want: ""},
		// Args alone go to the image's own entrypoint: the image names the server.
		{image: "vllm/vllm-openai:v0.10.1", args: []string{"--model", "facebook/opt-125m"}, want: "vllm"},
		// A program of the container's own, no wrapper, is not the image's server.
		{image: "vllm/vllm-openai:v0.10.1", command: []string{"python3", "/app/proxy.py"}, want: ""},
		// Image references with no tag, and a registry with a port.
		{image: "tritonserver", want: "triton"},
		{image: "localhost:5000/tritonserver", want: "triton"},
	}
	for _, test := range tests {
		got := ""
		if runtime := Detect(test.image, test.command, test.args); runtime != nil {
			got = runtime.Name
		}
		if got != test.want {
			t.Errorf("Detect(%q, %q, %q) = %q, want %q", test.image, test.command, test.args, got, test.want)
		}
	}
}
