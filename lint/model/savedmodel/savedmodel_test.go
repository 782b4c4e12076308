package savedmodel

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/textproto/textprototest"
)

// models holds real SavedModels copied from tensorflow/serving (see its README).
const models = "../../../testdata/models"

func readFile(t testing.TB, path string) *SavedModel {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return saved
}

func TestReadTF1Export(t *testing.T) {
	saved := readFile(t, models+"/saved_model_half_plus_two_cpu/00000123/saved_model.pb")
	if saved.SchemaVersion != 1 || len(saved.MetaGraphs) != 1 {
		t.Fatalf("schema %d, %d meta graphs; want 1 and 1", saved.SchemaVersion, len(saved.MetaGraphs))
	}
	graph := saved.MetaGraphs[0]
	if !graph.HasTags("serve") || graph.HasTags("serve", "gpu") {
		t.Errorf("tags = %v, want exactly [serve]", graph.Tags)
	}
	if graph.TensorFlowVersion != "1.14.0" {
		t.Errorf("tensorflow_version = %q, want 1.14.0", graph.TensorFlowVersion)
	}
	wantSignature := Signature{
		Key: "serving_default", Method: "tensorflow/serving/predict",
		Inputs:  []TensorInfo{{Key: "x", Name: "x:0", DType: "DT_FLOAT", Shape: []int64{-1, 1}}},
		Outputs: []TensorInfo{{Key: "y", Name: "y:0", DType: "DT_FLOAT", Shape: []int64{-1, 1}}},
	}
	if got := graph.Signature("serving_default"); got == nil || !reflect.DeepEqual(*got, wantSignature) {
		t.Errorf("serving_default = %+v, want %+v", got, wantSignature)
	}
	if len(graph.Signatures) != 5 {
		t.Errorf("%d signatures, want 5", len(graph.Signatures))
	}
	// TF1 exports list assets in the saved_model_assets collection.
	if !reflect.DeepEqual(graph.Assets, []string{"foo.txt"}) {
		t.Errorf("assets = %v, want [foo.txt]", graph.Assets)
	}
	for _, op := range []string{"VariableV2", "RestoreV2", "ParseExample", "Mul"} {
		if !graph.HasOp(op) {
			t.Errorf("op %s not found in %v", op, graph.Ops)
		}
	}
	if graph.ObjectGraph || graph.Functions != 0 || graph.Nodes != 74 {
		t.Errorf("object graph %v, %d functions, %d nodes; want false, 0, 74", graph.ObjectGraph, graph.Functions, graph.Nodes)
	}
}

func TestReadTF2Export(t *testing.T) {
	graph := readFile(t, models+"/saved_model_half_plus_two_tf2_cpu/00000123/saved_model.pb").MetaGraphs[0]
	if graph.TensorFlowVersion != "2.14.0" || !graph.ObjectGraph {
		t.Errorf("version %q, object graph %v; want 2.14.0 and true", graph.TensorFlowVersion, graph.ObjectGraph)
	}
	// TF2 keeps the real ops in the function library.
	if graph.Functions != 14 || !graph.HasOp("AddV2") || !graph.HasOp("VarHandleOp") {
		t.Errorf("%d functions, ops %v; want 14 functions with AddV2 and VarHandleOp", graph.Functions, graph.Ops)
	}
	if graph.Signature("__saved_model_init_op") == nil || graph.Signature("serving_default") == nil {
		t.Errorf("signatures %v lack __saved_model_init_op or serving_default", graph.Signatures)
	}
	if !reflect.DeepEqual(graph.Assets, []string{"foo.txt"}) {
		t.Errorf("assets = %v, want [foo.txt] (asset_file_def)", graph.Assets)
	}
}

const textExport = `
saved_model_schema_version: 1
meta_graphs {
  meta_info_def {
    tags: "serve"
    tags: "gpu"
    tensorflow_version: "2.15.0"
    stripped_op_list { op { name: "Placeholder" } }
    any_info { [type.googleapis.com/tensorflow.Example] { } }
  }
  graph_def {
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node {
      name: "print"
      op: "PrintV2"
      attr { key: "output_stream" value { s: "file:///tmp/leak" } }
    }
    library { function { signature { name: "f" } node_def { name: "w" op: "WriteFile" } } }
    versions { producer: 1645 }
  }
  signature_def {
    key: "predict"
    value {
      inputs { key: "x" value { name: "x:0" dtype: DT_HALF tensor_shape { dim { size: -1 } dim { size: 3 } } } }
      outputs { key: "y" value { name: "y:0" dtype: DT_FLOAT_REF tensor_shape { unknown_rank: true } } }
      method_name: "tensorflow/serving/predict"
    }
  }
}
`

func TestReadText(t *testing.T) {
	saved, err := ReadText([]byte(textExport))
	if err != nil {
		t.Fatal(err)
	}
	graph := saved.MetaGraphs[0]
	if !graph.HasTags("gpu", "serve") || graph.HasTags("serve") {
		t.Errorf("tags = %v", graph.Tags)
	}
	if want := []string{"Placeholder", "PrintV2", "WriteFile"}; !reflect.DeepEqual(graph.Ops, want) {
		t.Errorf("ops = %v, want %v", graph.Ops, want)
	}
	if want := []string{"file:///tmp/leak"}; !reflect.DeepEqual(graph.PrintStreams, want) {
		t.Errorf("print streams = %v, want %v", graph.PrintStreams, want)
	}
	signature := graph.Signature("predict")
	if signature == nil || signature.Inputs[0].DType != "DT_HALF" || !reflect.DeepEqual(signature.Inputs[0].Shape, []int64{-1, 3}) ||
		signature.Outputs[0].DType != "DT_FLOAT_REF" || !signature.Outputs[0].UnknownRank {
		t.Errorf("predict = %+v", signature)
	}
	if graph.Signature("serving_default") != nil {
		t.Error("found a serving_default signature that the export does not have")
	}
}

func TestInvalid(t *testing.T) {
	real, err := os.ReadFile(models + "/saved_model_half_plus_two_cpu/00000123/saved_model.pb")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string][]byte{
		"git lfs pointer":         []byte("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 12107\n"),
		"truncated copy":          real[:len(real)/2],
		"frozen GraphDef renamed": {0x0a, 0x02, 0x0a, 0x00}, // GraphDef.node at field 1, which SavedModel has as a varint
		"html error page":         []byte("<html><body>404 Not Found</body></html>"),
	}
	for name, input := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(input), int64(len(input)))
			if !errors.Is(err, modelfile.ErrInvalid) {
				t.Fatalf("err = %v, want a modelfile.ErrInvalid", err)
			}
		})
	}
	if _, err := ReadText([]byte("meta_graphs { meta_info_def { tags: serve } }")); !errors.Is(err, modelfile.ErrInvalid) {
		t.Errorf("unquoted string: err = %v, want a modelfile.ErrInvalid", err)
	}
}

func TestEmptyFileHasNoGraphs(t *testing.T) {
	saved, err := Read(bytes.NewReader(nil), 0)
	if err != nil || len(saved.MetaGraphs) != 0 {
		t.Fatalf("got %+v, %v; want an empty SavedModel, as TensorFlow parses it", saved, err)
	}
}

func FuzzRead(f *testing.F) {
	for _, path := range []string{
		models + "/matrix_half_plus_two/1/saved_model.pb",
		models + "/saved_model_half_plus_two_cpu/00000123/saved_model.pb",
	} {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("version https://git-lfs.github.com/spec/v1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		saved, err := Read(bytes.NewReader(data), int64(len(data)))
		if err != nil && !errors.Is(err, modelfile.ErrInvalid) {
			t.Fatalf("non-content error: %v", err)
		}
		if err == nil && saved == nil {
			t.Fatal("nil SavedModel without an error")
		}
	})
}

func FuzzReadText(f *testing.F) {
	f.Add([]byte(textExport))
	f.Add([]byte("meta_graphs { meta_info_def { tags: \"serve\" } }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ReadText(data); err != nil && !errors.Is(err, modelfile.ErrInvalid) {
			t.Fatalf("non-content error: %v", err)
		}
	})
}

// TestSchemaIsProtodesc: the schema saved_model.pbtxt is read against is the one the
// protobuf module's own builder validates.
func TestSchemaIsProtodesc(t *testing.T) { textprototest.Check(t, textSchema()) }
