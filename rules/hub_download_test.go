package rules

import "testing"

func TestSizeFromName(t *testing.T) {
	tests := []struct {
		id            string
		quantizedFile bool
		bytes         int64
	}{
		{"meta-llama/Llama-3.1-8B-Instruct", false, 16e9},
		{"Qwen/Qwen2.5-0.5B-Instruct", false, 1e9},
		{"mistralai/Mixtral-8x7B-Instruct-v0.1", false, 112e9},
		{"Qwen/Qwen2.5-7B-Instruct-AWQ", false, 3.5e9},
		{"neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", false, 70e9},
		{"ggml-org/gemma-3-1b-it-GGUF:Q8_0", true, 1.06e9},
		{"ggml-org/gemma-3-1b-it-GGUF", true, 0.6e9},
		{"ggml-org/gemma-3-1b-it-GGUF:F16", true, 2e9},
		{"ggml-org/gemma-3-1b-it-GGUF:BF16", true, 2e9},
		{"BAAI/bge-small-en-v1.5", false, 0},
		{"acme-labs/support-assistant", false, 0},
		{"sentence-transformers/all-MiniLM-L6-v2", false, 0}, // L6 is layers, not a size
	}
	for _, test := range tests {
		got, _ := sizeFromName(test.id, test.quantizedFile)
		if got != test.bytes {
			t.Errorf("%s: %d bytes, want %d", test.id, got, test.bytes)
		}
	}
}

func TestHubID(t *testing.T) {
	for id, want := range map[string]bool{
		"meta-llama/Llama-3.1-8B-Instruct": true, "ggml-org/gemma-3-1b-it-GGUF:Q4_K_M": true,
		"/models/llama": false, "./models/llama": false, "s3://bucket/model": false, "llama": false,
		"gs://b/m": false, "hf://org/name": false, "models/llama/extra": false,
	} {
		if got := hubID.MatchString(id) && id[0] != '.'; got != want {
			t.Errorf("%s: hub id %v, want %v", id, got, want)
		}
	}
}
