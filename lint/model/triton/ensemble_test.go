package triton

import (
	"errors"
	"reflect"
	"testing"

	"github.com/modellint/modellint/lint/model/modelfile"
)

// The shape of Triton's own ensemble example (docs/examples/model_repository
// and the preprocess → model → postprocess tutorials), in both list forms.
const ensembleText = `name: "pipeline"
platform: "ensemble"
max_batch_size: 8
input [ { name: "RAW" data_type: TYPE_UINT8 dims: [ -1 ] } ]
output [ { name: "LABELS" data_type: TYPE_STRING dims: [ 1 ] } ]
ensemble_scheduling {
  step [
    {
      model_name: "preprocess"
      model_version: -1
      input_map { key: "INPUT_0" value: "RAW" }
      output_map {
        key: "OUTPUT_0"
        value: "image"
      }
    },
    {
      model_name: "classifier" # a comment with "quotes" { and braces
      model_version: 2
      input_map [ { key: "data" value: "image" } ]
      output_map: [ { key: "prob", value: "scores" } ]
    }
  ]
  step {
    model_name: "postprocess"
    input_map { key: "SCORES" value: "wrong" }
    input_map { key: "SCORES" value: "scores" }
    output_map { key: "LABELS" value: "LABELS" }
  }
}
instance_group [ { kind: KIND_GPU count: 2 gpus: [ 0, 1 ] }, { kind: KIND_CPU } ]
`

func TestEnsemble(t *testing.T) {
	config, err := Read([]byte(ensembleText))
	if err != nil {
		t.Fatal(err)
	}
	want := &Ensemble{Steps: []Step{
		{ModelName: "preprocess", ModelVersion: -1, Line: 8, ModelNameLine: 9, ModelVersionLine: 10,
			InputMap:  []Mapping{{Key: "INPUT_0", Value: "RAW", Line: 11}},
			OutputMap: []Mapping{{Key: "OUTPUT_0", Value: "image", Line: 13}}},
		{ModelName: "classifier", ModelVersion: 2, Line: 17, ModelNameLine: 18, ModelVersionLine: 19,
			InputMap:  []Mapping{{Key: "data", Value: "image", Line: 20}},
			OutputMap: []Mapping{{Key: "prob", Value: "scores", Line: 21}}},
		{ModelName: "postprocess", Line: 24, ModelNameLine: 25,
			InputMap:  []Mapping{{Key: "SCORES", Value: "scores", Line: 26}},
			OutputMap: []Mapping{{Key: "LABELS", Value: "LABELS", Line: 28}}},
	}}
	if !config.Ensemble || !reflect.DeepEqual(config.Scheduling, want) {
		t.Errorf("got %+v\nwant %+v", config.Scheduling, want)
	}
	groups := []InstanceGroup{{Kind: "KIND_GPU", Count: 2, GPUs: []int64{0, 1}}, {Kind: "KIND_CPU"}}
	if !reflect.DeepEqual(config.InstanceGroups, groups) {
		t.Errorf("instance groups = %+v, want %+v", config.InstanceGroups, groups)
	}
}

func TestNoEnsemble(t *testing.T) {
	config, err := Read([]byte(`name: "m" backend: "python" step { model_name: "x" }`))
	if err != nil || config.Scheduling != nil || config.Ensemble {
		t.Fatalf("got %+v, %v", config, err)
	}
	empty, err := Read([]byte(`platform: "ensemble" ensemble_scheduling { }`))
	if err != nil || empty.Scheduling == nil || len(empty.Scheduling.Steps) != 0 {
		t.Fatalf("empty ensemble_scheduling: %+v, %v", empty, err)
	}
}

func FuzzEnsemble(f *testing.F) {
	f.Add([]byte(ensembleText))
	f.Add([]byte(`ensemble_scheduling { step [ { model_name: 'a' input_map < key: "x" value: "y" > } ] }`))
	f.Fuzz(func(t *testing.T, data []byte) {
		config, err := Read(data)
		if err != nil {
			if !errors.Is(err, modelfile.ErrInvalid) {
				t.Fatalf("non-content error: %v", err)
			}
			return
		}
		if config.Scheduling == nil {
			return
		}
		for _, step := range config.Scheduling.Steps {
			if step.Line < 0 || step.NameLine() < 0 {
				t.Fatalf("negative line in %+v", step)
			}
		}
	})
}

func TestInstances(t *testing.T) {
	tests := []struct {
		config string
		gpus   int64
		want   int64
	}{
		{`backend: "python"`, 0, 1},
		{`backend: "python"`, 2, 2},
		{`backend: "onnxruntime"`, 0, 2},
		{`backend: "python" instance_group [ { kind: KIND_CPU count: 3 } ]`, 4, 3},
		{`backend: "python" instance_group [ { kind: KIND_GPU count: 2 gpus: [ 0 ] }, { kind: KIND_MODEL } ]`, 4, 3},
		{`backend: "python" instance_group [ { count: 2 } ]`, 2, 4},
	}
	for _, test := range tests {
		config, err := Read([]byte(test.config))
		if err != nil {
			t.Fatal(err)
		}
		if got := config.Instances(test.gpus); got != test.want {
			t.Errorf("%s with %d GPUs: %d instances, want %d", test.config, test.gpus, got, test.want)
		}
	}
}
