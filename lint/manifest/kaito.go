package manifest

import (
	corev1 "k8s.io/api/core/v1"
)

// KAITO builds the pods of a Workspace that names a preset model
// (inference.preset.name) itself, from its model catalog and the GPUs of
// resource.instanceType (pkg/workspace/inference/preset_inferences.go in
// kaito-project/kaito). Nothing of that pod is the user's to edit but the
// preset, the instance type and the node count, so modellint keeps what it
// needs to judge those: the preset's weights.

// Preset is the preset model of a KAITO Workspace.
type Preset struct {
	Name     string
	NamePath string // field path of the preset's name
	// WeightBytes is the size of the preset's weights in KAITO's model
	// catalog, 0 for a preset the table does not know.
	WeightBytes int64
	// Runtime is the server KAITO runs: "vllm", or "transformers" when the
	// kaito.sh/runtime annotation says so.
	Runtime string
	// Count is resource.count, 0 when not written; CountPath is its path.
	Count     int
	CountPath string
}

// kaitoPresetGiB are the weights of KAITO's presets, in GiB: modelFileSize
// in presets/workspace/models/model_catalog.yaml (v0.11 and newer; the
// Falcon presets, removed in v0.11, from their v0.10 model.go).
var kaitoPresetGiB = map[string]float64{
	"falcon-7b": 13.44, "falcon-7b-instruct": 13.44, "falcon-40b": 77.9, "falcon-40b-instruct": 77.9,
	"mistral-7b": 13.50, "mistral-7b-instruct": 13.50,
	"phi-3-mini-4k-instruct": 7.12, "phi-3-mini-128k-instruct": 7.12, "phi-3.5-mini-instruct": 7.12,
	"phi-3-medium-4k-instruct": 26.00, "phi-3-medium-128k-instruct": 26.00,
	"phi-4": 27.31, "phi-4-mini-instruct": 7.15,
	"llama-3.1-8b-instruct": 14.96, "llama-3.3-70b-instruct": 131.42,
	"qwen2.5-coder-7b-instruct": 14.19, "qwen2.5-coder-32b-instruct": 61.03,
	"deepseek-r1-distill-llama-8b": 14.96, "deepseek-r1-distill-qwen-14b": 27.51,
	"deepseek-r1-0528": 641.30, "deepseek-v3-0324": 641.30,
	"gpt-oss-20b": 25.63, "gpt-oss-120b": 121.54,
	"ministral-3-3b-instruct": 4.35, "ministral-3-8b-instruct": 9.70, "ministral-3-14b-instruct": 14.65,
	"mistral-large-3-675b-instruct": 634.70,
	// presets/workspace/models/gemma3/model.go names them; the catalog
	// lists them as google/gemma-3-4b-it and google/gemma-3-27b-it.
	"gemma-3-4b-instruct": 8.01, "gemma-3-27b-instruct": 51.10,
}

// kaitoPresetWorkload is the workload of a Workspace whose pods KAITO
// builds from a preset, nil when it names none. It has no containers:
// what KAITO puts in them is KAITO's.
func kaitoPresetWorkload(o *Object) (*Workload, error) {
	var workspace struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Resource struct {
			InstanceType string `json:"instanceType"`
			Count        *int   `json:"count"`
		} `json:"resource"`
		Inference struct {
			Preset *struct {
				Name string `json:"name"`
			} `json:"preset"`
		} `json:"inference"`
	}
	if err := o.Decode(&workspace); err != nil {
		return nil, err
	}
	preset := workspace.Inference.Preset
	if preset == nil || preset.Name == "" {
		return nil, nil
	}
	p := &Preset{Name: preset.Name, NamePath: "inference.preset.name", Runtime: "vllm",
		WeightBytes: int64(kaitoPresetGiB[preset.Name] * (1 << 30)), CountPath: "resource.count"}
	if workspace.Resource.Count != nil {
		p.Count = *workspace.Resource.Count
	}
	if workspace.Metadata.Annotations["kaito.sh/runtime"] == "transformers" {
		p.Runtime = "transformers"
	}
	return &Workload{Object: o, SpecPath: "inference", Spec: &corev1.PodSpec{}, Platform: "kaito",
		Lifecycle: KeptRunning, InstanceType: workspace.Resource.InstanceType, Preset: p}, nil
}
