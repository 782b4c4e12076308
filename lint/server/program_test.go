package server

import (
	"slices"
	"strings"
	"testing"
)

func nameOf(runtime *Runtime) string {
	if runtime == nil {
		return ""
	}
	return runtime.Name
}

func TestByProgram(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		// Command lines from each runtime's docs, charts and examples.
		{[]string{"python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Llama-3.1-8B-Instruct",
			"--host", "0.0.0.0", "--port", "30000"}, "sglang"},
		{[]string{"sglang", "serve", "--model-path", "qwen/qwen2.5-0.5b-instruct"}, "sglang"},
		{[]string{"python", "-m", "sglang_router.launch_server", "--model-path", "m", "--dp", "2", "--tp", "2"}, "sglang"},
		{[]string{"/opt/nim/start_server.sh"}, "nim"},
		{[]string{"python3", "-m", "vllm_nvext.entrypoints.openai.api_server", "--max-model-len", "16000"}, "nim"},
		{[]string{"/opt/nim/llm/.venv/bin/python3", "-m", "nim_llm_sdk.entrypoints.openai.api_server"}, "nim"},
		{[]string{"/app/llama-server", "-m", "/models/7B/ggml-model.gguf", "-c", "512", "--host", "0.0.0.0", "--port", "8080"}, "llama.cpp"},
		{[]string{"/bin/ollama", "serve"}, "ollama"},
		{[]string{"python", "MaxText/maxengine_server.py", "MaxText/configs/base.yml", "tokenizer_path=assets/tokenizer.gemma",
			"load_parameters_path=gs://bucket/items", "model_name=gemma-7b"}, "jetstream"},
		{[]string{"python3", "-m", "MaxText.maxengine_server", "MaxText/configs/inference.yml", "model_name=mixtral-8x7b"}, "jetstream"},
		{[]string{"/usr/bin/maxengine_server_entrypoint.sh", "model_name=gemma-7b", "per_device_batch_size=4"}, "jetstream"},
		{[]string{"jpt", "serve", "--model_id", "meta-llama/Llama-2-7b-chat-hf"}, "jetstream"},
		{[]string{"serve", "run", "config.yaml"}, "ray-serve"},
		{[]string{"serve", "run", "--address", "auto", "text_ml:app"}, "ray-serve"},
		{[]string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8000"}, "vllm"},
		{[]string{"python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "facebook/opt-125m"}, "vllm"},
		{[]string{"python", "-m", "vllm.entrypoints.cli.main", "serve", "facebook/opt-125m"}, "vllm"},
		{[]string{"text-generation-launcher", "--model-id", "bigscience/bloom-560m", "--num-shard", "1"}, "tgi"},
		{[]string{"text-generation-server", "serve", "bigscience/bloom-560m"}, "tgi"},
		{[]string{"/usr/bin/tensorflow_model_server", "--port=8500"}, "tensorflow-serving"},
		{[]string{"tritonserver", "--model-repository=/models"}, "triton"},
		// Launchers in front of the program.
		{[]string{"python3", "-u", "-m", "vllm.entrypoints.openai.api_server"}, "vllm"},
		{[]string{"python3.11", "-X", "faulthandler", "-m", "sglang.launch_server"}, "sglang"},
		{[]string{"/usr/bin/env", "python3", "-m", "vllm.entrypoints.openai.api_server"}, "vllm"},
		{[]string{"env", "-u", "HOME", "VLLM_LOGGING_LEVEL=DEBUG", "vllm", "serve", "m"}, "vllm"},
		{[]string{"uv", "run", "--with", "vllm", "vllm", "serve", "m"}, "vllm"},
		{[]string{"uv", "run", "python", "-m", "sglang.launch_server", "--model-path", "m"}, "sglang"},
		{[]string{"tini", "--", "/bin/ollama", "serve"}, "ollama"},
		// Other subcommands of the same programs, and other programs.
		{[]string{"vllm", "bench", "serve", "--model", "x"}, ""},
		{[]string{"python3", "-m", "vllm.entrypoints.cli.main", "bench", "serve"}, ""},
		{[]string{"vllm"}, ""},
		{[]string{"ollama", "pull", "llama3"}, ""},
		{[]string{"serve", "start", "--http-port", "8000"}, ""},
		{[]string{"serve", "-s", "build"}, ""}, // the static file server of the same name
		{[]string{"text-generation-server", "download-weights", "bigscience/bloom-560m"}, ""},
		{[]string{"tritonserver", "--help"}, ""},
		{[]string{"python", "app.py", "--port", "8000"}, ""},
		{[]string{"python", "-c", "import vllm"}, ""},
		// Launchers and interpreters with no program after their options.
		{[]string{"env", "-u", "HOME"}, ""},
		{[]string{"python3", "-u"}, ""},
		{[]string{"python3", "-m"}, ""},
		{[]string{"/app/server", "--port", "8080"}, ""},
		{nil, ""},
	}
	for _, test := range tests {
		if got := nameOf(ByProgram(test.argv)); got != test.want {
			t.Errorf("ByProgram(%q) = %q, want %q", test.argv, got, test.want)
		}
	}
}

func TestDetectByFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--model_name=m", "--model_base_path=/models/m"}, "tensorflow-serving"},
		{[]string{"--model-repository=/models"}, "triton"},
		{[]string{"--model-id", "meta-llama/Llama-3.1-8B"}, "tgi"},
		{[]string{"--model", "m", "--gpu-memory-utilization", "0.9", "--max-model-len=4096"}, "vllm"},
		{[]string{"--model-path", "m", "--mem-fraction-static", "0.8"}, "sglang"},
		{[]string{"-m", "/models/m.gguf", "--n-gpu-layers", "99"}, "llama.cpp"},
		{[]string{"--ts-config", "/home/model-server/config.properties"}, "torchserve"},
		{[]string{"--model_name=m", "--http_port=8080"}, "kserve"},
		{[]string{"--model_base_path=/models/m --rest_api_port=8501"}, "tensorflow-serving"}, // one shell line
		// Flags that several runtimes have say nothing.
		{[]string{"--model-store", "/models"}, ""},
		{[]string{"--served-model-name", "m", "--tensor-parallel-size", "2"}, ""},
		{[]string{"--port", "8080"}, ""},
		// Flags of two runtimes are a contradiction, not a guess.
		{[]string{"--model-id", "m", "--max-model-len", "4096"}, ""},
		{[]string{"model_base_path=/models/m"}, ""},
		{[]string{"--model_base_paths=/models/m"}, ""},
		{nil, ""},
	}
	for _, test := range tests {
		if got := nameOf(DetectByFlags(test.args)); got != test.want {
			t.Errorf("DetectByFlags(%q) = %q, want %q", test.args, got, test.want)
		}
	}
}

// knownFlags lists every flag the table says a runtime reads.
func knownFlags(runtime *Runtime) []string {
	m := runtime.Model
	flags := slices.Concat(m.NameFlags, m.PathFlags, m.ConfigFileFlags, m.CopiesFlags)
	for _, port := range runtime.Ports {
		flags = append(flags, port.Flags...)
	}
	return flags
}

func TestUniqueFlagsAreUnique(t *testing.T) {
	owner := map[string]string{}
	for _, runtime := range Runtimes {
		for _, flag := range runtime.UniqueFlags {
			if !strings.HasPrefix(flag, "--") {
				t.Errorf("%s: unique flag %q is not a long flag", runtime.Name, flag)
			}
			if other, ok := owner[flag]; ok {
				t.Errorf("unique flag %s is listed by both %s and %s", flag, other, runtime.Name)
			}
			owner[flag] = runtime.Name
		}
	}
	for _, runtime := range Runtimes {
		for _, flag := range knownFlags(runtime) {
			if other, ok := owner[flag]; ok && other != runtime.Name {
				t.Errorf("unique flag %s of %s is also a flag of %s", flag, other, runtime.Name)
			}
		}
	}
}

func TestNotServer(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"sleep", "infinity"}, "sleep"},
		{[]string{"/usr/bin/env", "sleep", "3600"}, "sleep"},
		{[]string{"tail", "-f", "/dev/null"}, "a keep-alive loop (tail -f /dev/null)"},
		{[]string{"tail", "-F", "/dev/null"}, "a keep-alive loop (tail -f /dev/null)"},
		{[]string{"tail", "--follow=name", "/dev/null"}, "a keep-alive loop (tail -f /dev/null)"},
		{[]string{"cat"}, "a keep-alive loop (cat, reading a stdin that never ends)"},
		{[]string{"/pause"}, "a pause container (pause)"},
		{[]string{"true"}, "true, which exits at once"},
		{[]string{"vllm", "bench", "serve", "--model", "x"}, "a benchmark (vllm bench serve)"},
		{[]string{"python3", "-m", "vllm.entrypoints.cli.main", "bench", "throughput"},
			"a benchmark (python -m vllm.entrypoints.cli.main bench throughput)"},
		{[]string{"vllm", "chat", "--url", "http://vllm:8000/v1"}, "a client (vllm chat)"},
		{[]string{"genai-perf", "profile", "-m", "x"}, "a benchmark (genai-perf profile)"},
		{[]string{"perf_analyzer", "-m", "x"}, "a client (perf_analyzer)"},
		{[]string{"locust", "-f", "locustfile.py"}, "a load test (locust)"},
		{[]string{"python3", "-m", "sglang.bench_serving", "--backend", "sglang"}, "a benchmark (python -m sglang.bench_serving)"},
		{[]string{"python", "-m", "sglang.bench_one_batch", "--model-path", "m"}, "a benchmark (python -m sglang.bench_one_batch)"},
		{[]string{"python", "benchmarks/benchmark_serving.py", "--backend", "vllm"}, "a benchmark (benchmark_serving.py)"},
		{[]string{"tritonserver", "--help"}, "help or version output (tritonserver --help)"},
		{[]string{"vllm", "--version"}, "help or version output (vllm --version)"},
		{[]string{"huggingface-cli", "download", "x", "--local-dir", "/models"}, "a download (huggingface-cli download)"},
		{[]string{"hf", "download", "x"}, "a download (hf download)"},
		{[]string{"python3", "-m", "huggingface_hub.commands.huggingface_cli", "download", "x"},
			"a download (python -m huggingface_hub.commands.huggingface_cli download)"},
		{[]string{"text-generation-server", "download-weights", "m"}, "a download (text-generation-server download-weights)"},
		{[]string{"gsutil", "-m", "cp", "-r", "gs://bucket/model", "/models"}, "a download (gsutil cp)"},
		{[]string{"aws", "s3", "sync", "s3://bucket/model", "/models"}, "a download (aws s3 sync)"},
		{[]string{"gcloud", "storage", "cp", "-r", "gs://bucket/model", "/models"}, "a download (gcloud storage cp)"},
		{[]string{"wget", "-O", "/models/m.gguf", "https://example.com/m.gguf"}, "a download (wget)"},
		{[]string{"curl", "-fLo", "/models/m.gguf", "https://example.com/m.gguf"}, "a download (curl)"},
		{[]string{"rclone", "copy", "remote:model", "/models"}, "a download (rclone copy)"},
		{[]string{"git", "clone", "https://huggingface.co/org/model", "/models/model"}, "a download (git clone)"},
		{[]string{"git", "lfs", "pull"}, "a download (git lfs pull)"},
		{[]string{"/storage-initializer/scripts/initializer-entrypoint", "gs://bucket/model", "/mnt/models"},
			"a download by the KServe storage initializer (initializer-entrypoint)"},
		{[]string{"ollama", "pull", "llama3"}, "a download (ollama pull)"},
		{[]string{"serve", "status"}, "a Ray Serve client (serve status)"},
		{[]string{"download-to-cache", "--profile", "x"}, "a download (download-to-cache)"},
		{[]string{"list-model-profiles"}, "a listing (list-model-profiles)"},
		{[]string{"/scripts/fetch_model.sh"}, "a download (fetch_model.sh)"},
		{[]string{"python3", "/app/download_weights.py", "--repo", "x"}, "a download (download_weights.py)"},
		{[]string{"python", "convert_checkpoint.py", "--model_dir", "/m"}, "a conversion (convert_checkpoint.py)"},
		{[]string{"trtllm-build", "--checkpoint_dir", "/c"}, "an engine build (trtllm-build)"},
		{[]string{"/opt/run_benchmark.sh"}, "a benchmark (run_benchmark.sh)"},
		// Servers, and commands this cannot tell.
		{[]string{"/scripts/download_and_serve.sh"}, ""},
		{[]string{"/docker-entrypoint-download.sh"}, ""},
		{[]string{"vllm", "serve", "m"}, ""},
		{[]string{"tritonserver", "--model-repository=/models"}, ""},
		{[]string{"/bin/ollama", "serve"}, ""},
		{[]string{"cat", "/etc/hosts"}, ""},
		{[]string{"tail", "-f", "/var/log/app.log"}, ""},
		{[]string{"tail", "/dev/null"}, ""}, // no follow option: it exits at once
		{[]string{"git", "status"}, ""},
		{[]string{"bash", "-c", "while true; do sleep 30; done"}, ""},
		{nil, ""},
	}
	for _, test := range tests {
		if got := NotServer(test.argv); got != test.want {
			t.Errorf("NotServer(%q) = %q, want %q", test.argv, got, test.want)
		}
	}
}

func TestRecogniseBatchAndToolImages(t *testing.T) {
	tests := []struct {
		name         string
		process      Process
		runtime, not string
	}{
		{"a Job's unknown script in a server image", Process{Image: "nvcr.io/nvidia/tritonserver:24.08-py3",
			Command: words("/scripts/prepare.sh"), Batch: true}, "", ""},
		{"the same script in a Deployment", Process{Image: "nvcr.io/nvidia/tritonserver:24.08-py3",
			Command: words("/scripts/prepare.sh")}, "triton", ""},
		{"a Job that runs the server", Process{Image: "vllm/vllm-openai:v0.10.1", Command: words("vllm", "serve", "m"),
			Batch: true}, "vllm", ""},
		{"a Job's args with a server's flags", Process{Image: "registry.example.com/tools:1",
			Args: words("--model-repository=/models"), Batch: true}, "triton", ""},
		{"a semantic router", Process{Image: "ghcr.io/vllm-project/semantic-router/extproc:v0.1"}, "", "a request router"},
		{"a simulator with vLLM's flags", Process{Image: "ghcr.io/llm-d/llm-d-inference-sim:v0.3",
			Args: words("--model", "m", "--max-model-len", "4096")}, "", "a simulator"},
		{"the simulator under its first name", Process{Image: "ghcr.io/llm-d/vllm-sim:v0.1.0",
			Args: words("--model", "m", "--max-num-seqs", "5")}, "", "a simulator"},
		{"AIBrix's simulator", Process{Image: "aibrix/vllm-simulator:nightly"}, "", "a simulator"},
		{"AIBrix's mock", Process{Image: "aibrix/vllm-mock:nightly"}, "", "a simulator"},
		{"vLLM itself", Process{Image: "vllm/vllm-openai:v0.10.1", Args: words("--model", "m")}, "vllm", ""},
	}
	for _, test := range tests {
		got := Recognise(test.process)
		name := ""
		if got.Runtime != nil {
			name = got.Runtime.Name
		}
		if name != test.runtime || !strings.HasPrefix(got.NotServer, test.not) || (test.not == "") != (got.NotServer == "") {
			t.Errorf("%s: runtime %q, not a server %q; want %q, %q", test.name, name, got.NotServer, test.runtime, test.not)
		}
	}
}

func words(texts ...string) []Word {
	out := make([]Word, len(texts))
	for i, text := range texts {
		out[i] = Word{Text: text}
	}
	return out
}
