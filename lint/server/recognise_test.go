package server

import "testing"

// TestRecogniseWrapperOverItsEngine: KServe's Hugging Face server passes
// vLLM's flags on to the engine it starts, so vLLM's flags do not make
// its container vLLM; they still do for an image that wraps nothing.
func TestRecogniseWrapperOverItsEngine(t *testing.T) {
	huggingface := Named("kserve-huggingface")
	tests := []struct {
		name    string
		process Process
		want    string
	}{
		{"declared by the platform", Process{Image: "kserve/huggingfaceserver:v0.15.0", Declared: huggingface,
			Args: words("--model_name=m", "--max-model-len=4096")}, "kserve-huggingface"},
		{"by its image", Process{Image: "kserve/huggingfaceserver:v0.15.0-gpu",
			Args: words("--model_name=m", "--model_dir=/mnt/models", "--max-model-len=4096")}, "kserve-huggingface"},
		{"backend huggingface", Process{Image: "kserve/huggingfaceserver:v0.15.0",
			Args: words("--backend=huggingface", "--max-model-len=4096")}, "kserve-huggingface"},
		{"vLLM's own image", Process{Image: "vllm/vllm-openai:v0.10.1", Args: words("--max-model-len=4096")}, "vllm"},
		{"an unknown image", Process{Image: "registry.example.com/llm:1", Args: words("--max-model-len=4096")}, "vllm"},
	}
	for _, test := range tests {
		got := Recognise(test.process)
		if got.Runtime == nil || got.Runtime.Name != test.want {
			t.Errorf("%s: %+v, want %s", test.name, got.Runtime, test.want)
		}
	}
}
