package triton

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/textproto/textprototest"
)

const models = "../../../testdata/models"

func TestRealConfig(t *testing.T) {
	data, err := os.ReadFile(models + "/triton/simple/config.pbtxt")
	if err != nil {
		t.Fatal(err)
	}
	config, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Name: "simple", Platform: "onnxruntime_onnx", MaxBatchSize: 8,
		VersionPolicy: VersionPolicy{Kind: "latest", NumVersions: 1},
		Inputs:        []Tensor{{Name: "INPUT0", DataType: "TYPE_INT32", Dims: []int64{16}}, {Name: "INPUT1", DataType: "TYPE_INT32", Dims: []int64{16}}},
		Outputs:       []Tensor{{Name: "OUTPUT0", DataType: "TYPE_INT32", Dims: []int64{16}}, {Name: "OUTPUT1", DataType: "TYPE_INT32", Dims: []int64{16}}},
	}
	if !reflect.DeepEqual(config, want) {
		t.Errorf("got %+v\nwant %+v", config, want)
	}
}

func TestFields(t *testing.T) {
	config, err := Read([]byte(`
# comments and unknown fields are fine
name: "llm"
backend: "onnxruntime"
max_batch_size : 0
version_policy: { specific { versions: [3, 1] } }
default_model_filename: "model.bin"
cc_model_filenames [ { key: "8.0" value: "model_a100.plan" } ]
sequence_batching { max_sequence_idle_microseconds: 5000000 }
instance_group [ { count: 2 kind: KIND_GPU } ]
input [ { name: "x" data_type: TYPE_FP16 dims: [ 3, 224, 224 ] reshape { shape: [ 1, 3, 224, 224 ] } optional: true } ]
output { name: "y" data_type: TYPE_BF16 dims: -1 dims: 1000 }
`))
	if err != nil {
		t.Fatal(err)
	}
	if config.Backend != "onnxruntime" || config.MaxBatchSize != 0 || config.DefaultModelFilename != "model.bin" ||
		!reflect.DeepEqual(config.VersionPolicy, VersionPolicy{Kind: "specific", Versions: []int64{1, 3}}) ||
		config.CCModelFilenames["8.0"] != "model_a100.plan" || config.Sequence == nil {
		t.Errorf("got %+v", config)
	}
	input := config.Inputs[0]
	if !input.HasReshape || !reflect.DeepEqual(input.Reshape, []int64{1, 3, 224, 224}) || !input.Optional || input.DataType != "TYPE_FP16" {
		t.Errorf("input = %+v", input)
	}
	if output := config.Outputs[0]; !reflect.DeepEqual(output.Dims, []int64{-1, 1000}) || output.DataType != "TYPE_BF16" {
		t.Errorf("output = %+v", output)
	}
	all, err := Read([]byte(`version_policy: { all { } }`))
	if err != nil || all.VersionPolicy.Kind != "all" {
		t.Errorf("all policy: %+v, %v", all, err)
	}
	latest, err := Read([]byte(`version_policy: { latest { num_versions: 3 } }`))
	if err != nil || !reflect.DeepEqual(latest.VersionPolicy, VersionPolicy{Kind: "latest", NumVersions: 3}) {
		t.Errorf("latest 3: %+v, %v", latest, err)
	}
}

func TestSequenceBatchingAndBatchInputs(t *testing.T) {
	// The control_input of Triton's simple_dyna_sequence example, a state
	// of the implicit state guide, one control_input naming its tensor after
	// its controls, and two batch inputs.
	config, err := Read([]byte(`
sequence_batching {
  control_input [
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
    { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY fp32_false_true: [ 0, 1 ] } ] },
    { control [ { kind: CONTROL_SEQUENCE_END bool_false_true: [ false, true ] } ] name: "END" },
    { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] },
    { name: "BOTH" control [ { int32_false_true: [ 0, 1 ] }, { kind: CONTROL_SEQUENCE_CORRID } ] }
  ]
  state [ { input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32 dims: [ -1 ] } ]
}
batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "N" data_type: TYPE_FP32 source_input: "x" } ]
batch_input { kind: BATCH_ACCUMULATED_ELEMENT_COUNT target_name: "M" data_type: TYPE_FP32 source_input: "x" }
`))
	if err != nil {
		t.Fatal(err)
	}
	want := &SequenceBatching{
		Controls: []SequenceControl{
			{Input: "START", Kind: "CONTROL_SEQUENCE_START", DataType: "TYPE_INT32"},
			{Input: "READY", Kind: "CONTROL_SEQUENCE_READY", DataType: "TYPE_FP32"},
			{Input: "END", Kind: "CONTROL_SEQUENCE_END", DataType: "TYPE_BOOL"},
			{Input: "CORRID", Kind: "CONTROL_SEQUENCE_CORRID", DataType: "TYPE_UINT64"},
			{Input: "BOTH", Kind: "CONTROL_SEQUENCE_START", DataType: "TYPE_INT32"},
			{Input: "BOTH", Kind: "CONTROL_SEQUENCE_CORRID"},
		},
		States: []SequenceState{{InputName: "INPUT_STATE", OutputName: "OUTPUT_STATE"}},
	}
	if !reflect.DeepEqual(config.Sequence, want) || config.BatchInputs != 2 {
		t.Errorf("sequence = %+v, %d batch inputs\nwant %+v, 2", config.Sequence, config.BatchInputs, want)
	}
	empty, err := Read([]byte(`sequence_batching { }`))
	if err != nil || empty.Sequence == nil || len(empty.Sequence.Controls) != 0 {
		t.Errorf("empty sequence_batching: %+v, %v", empty, err)
	}
}

func TestEmptyConfigAutoCompletes(t *testing.T) {
	config, err := Read(nil)
	if err != nil || config.Name != "" || config.VersionPolicy.NumVersions != 1 {
		t.Fatalf("got %+v, %v", config, err)
	}
}

func TestInvalid(t *testing.T) {
	tests := map[string]string{
		"name given twice":          "name: \"a\"\nname: \"b\"",
		"unknown data type":         "input [ { name: \"x\" data_type: TYPE_FLOAT32 } ]",
		"unterminated brace":        "input [ { name: \"x\" ",
		"string where int expected": "max_batch_size: \"8\"",
		"yaml instead of pbtxt":     "name: simple\nplatform: onnxruntime_onnx\n",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := Read([]byte(text)); !errors.Is(err, modelfile.ErrInvalid) {
				t.Fatalf("err = %v, want a modelfile.ErrInvalid", err)
			}
		})
	}
	if _, err := Read([]byte(strings.Repeat(" ", MaxConfig+1))); !errors.Is(err, modelfile.ErrInvalid) {
		t.Errorf("oversized config: err = %v", err)
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{"simple", "bad_input_dims"} {
		if data, err := os.ReadFile(models + "/triton/" + name + "/config.pbtxt"); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`version_policy: { specific { versions: [3, 1] } } input { dims: [-1] reshape { } }`))
	f.Fuzz(func(t *testing.T, data []byte) {
		config, err := Read(data)
		if err != nil && !errors.Is(err, modelfile.ErrInvalid) {
			t.Fatalf("non-content error: %v", err)
		}
		if err == nil && config.VersionPolicy.Kind == "" {
			t.Fatal("no version policy kind")
		}
	})
}

// TestSchemaIsProtodesc: the schema config.pbtxt is read against is the one the
// protobuf module's own builder validates.
func TestSchemaIsProtodesc(t *testing.T) { textprototest.Check(t, schema()) }
