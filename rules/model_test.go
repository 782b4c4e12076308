package rules_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model/tfrecord"
	"github.com/modellint/modellint/rules"
)

// testModels holds real model files (see its README); the cases below
// derive broken variants from them in a temporary directory.
const testModels = "../testdata/models"

// modelFindingsGolden records the findings of the cases below.
const modelFindingsGolden = "../testdata/models/findings.golden.json"

// modelCase builds one model dir under dir and names the rules it must
// trigger (the golden file holds the exact findings).
type modelCase struct {
	build func(t *testing.T, dir string)
	rules []string
}

var modelCases = map[string]modelCase{
	"onnx-external-data": {rules: []string{"MDL131", "MDL132"}, build: func(t *testing.T, dir string) {
		model := onnxModel(
			externalTensor("missing", "weights.bin", 0, 4096),
			externalTensor("short", "embed.bin", 1024, 1024),
			externalTensor("escaping", "../shared/weights.bin", 0, 16),
		)
		writeFiles(t, dir, map[string][]byte{
			"onnx/model.onnx": model,
			"onnx/embed.bin":  make([]byte, 1500),
			"onnx/cut.onnx":   model[:len(model)-7],
		})
	}},
	"unsafe-pickle": {rules: []string{"MDL140"}, build: func(t *testing.T, dir string) {
		writeFiles(t, dir, map[string][]byte{
			"llm/config.json":       []byte(`{"architectures": ["GPT2LMHeadModel"]}`),
			"llm/pytorch_model.bin": torchZip(t, []byte("\x80\x02cposix\nsystem\nq\x00X\x02\x00\x00\x00idq\x01\x85q\x02Rq\x03.")),
			"llm/optimizer.pt":      []byte("\x80\x04\x8c\x0asubprocess\x94\x8c\x05Popen\x94\x93\x8c\x02ls\x85R."),
			"llm/scaler.pkl":        append([]byte("\x80\x04cjoblib.numpy_pickle\nNumpyArrayWrapper\n)\x81N"), 0x00, 0x13),
			"llm/safe.pt":           readTestModel(t, "candle/test.pt"),
			"llm/weights.bin":       bytes.Repeat([]byte{0x3f, 0x80, 0, 0}, 16), // raw floats, not a pickle
		})
	}},
	"warmup-over-limit": {rules: []string{"MDL109"}, build: func(t *testing.T, dir string) {
		copyTestModel(t, "saved_model_half_plus_two_cpu/00000123", filepath.Join(dir, "half_plus_two", "1"))
		writeFiles(t, dir, map[string][]byte{"half_plus_two/1/assets.extra/tf_serving_warmup_requests": warmupRecords(1001)})
	}},
	"variables-shard-short": {rules: []string{"MDL103"}, build: func(t *testing.T, dir string) {
		copyTestModel(t, "saved_model_half_plus_two_cpu/00000123", filepath.Join(dir, "half_plus_two", "1"))
		writeFiles(t, dir, map[string][]byte{"half_plus_two/1/variables/variables.data-00000-of-00001": []byte("short")})
	}},
	"asset-vocabulary-missing": {rules: []string{"MDL103"}, build: func(t *testing.T, dir string) {
		writeFiles(t, dir, map[string][]byte{"tokenizer/1/saved_model.pbtxt": []byte(`
meta_graphs {
  meta_info_def { tags: "serve" tensorflow_version: "2.15.0" }
  graph_def {
    node { name: "vocab_path" op: "Const" }
    node { name: "table" op: "HashTableV2" }
    node { name: "init" op: "InitializeTableFromTextFileV2" input: "table" input: "vocab_path" }
  }
  signature_def { key: "serving_default" value { method_name: "tensorflow/serving/predict" } }
  asset_file_def { filename: "vocab.txt" }
}`)})
	}},
	"variables-dir-missing": {rules: []string{"MDL103"}, build: func(t *testing.T, dir string) {
		copyTestModel(t, "saved_model_half_plus_two_tf2_cpu/00000123", filepath.Join(dir, "half_plus_two", "1"))
		if err := os.RemoveAll(filepath.Join(dir, "half_plus_two", "1", "variables")); err != nil {
			t.Fatal(err)
		}
	}},
	"older-version-broken": {rules: []string{"MDL104", "MDL106"}, build: func(t *testing.T, dir string) {
		copyTestModel(t, "matrix_half_plus_two/1", filepath.Join(dir, "matrix", "2"))
		writeFiles(t, dir, map[string][]byte{"matrix/1/saved_model.pb": nil, "matrix/backup.tar": []byte("x"), "matrix/00002": nil})
	}},
	"file-named-like-a-version": {rules: []string{"MDL102"}, build: func(t *testing.T, dir string) {
		copyTestModel(t, "matrix_half_plus_two/1", filepath.Join(dir, "matrix", "1"))
		writeFiles(t, dir, map[string][]byte{"matrix/2": []byte("notes")})
	}},
	"no-version-dir": {rules: []string{"MDL101"}, build: func(t *testing.T, dir string) {
		copyTestModel(t, "matrix_half_plus_two/1", filepath.Join(dir, "matrix", "v1"))
		writeFiles(t, dir, map[string][]byte{"matrix/00001/export.meta": []byte("x")})
		if err := os.Rename(filepath.Join(dir, "matrix", "00001"), filepath.Join(dir, "matrix", "export")); err != nil {
			t.Fatal(err)
		}
	}},
	"symlinks-leave-the-dir": {rules: []string{"MDL108"}, build: func(t *testing.T, dir string) {
		writeFiles(t, dir, map[string][]byte{
			"blobs/4d7a21":         readTestModel(t, "candle/jfk-codes.safetensors"),
			"snapshot/config.json": []byte(`{}`),
			"snapshot/empty.onnx":  nil,
		})
		symlink(t, "../blobs/4d7a21", filepath.Join(dir, "snapshot", "model.safetensors"))
		symlink(t, "../blobs/gone", filepath.Join(dir, "snapshot", "tokenizer.json"))
	}},
	"triton-policy-and-names": {rules: []string{"MDL106", "MDL120"}, build: func(t *testing.T, dir string) {
		model := readTestModel(t, "triton/simple/1/model.onnx")
		config := bytes.Replace(readTestModel(t, "triton/simple/config.pbtxt"), []byte("max_batch_size: 8"),
			[]byte("max_batch_size: 8\nversion_policy: { specific { versions: [ 1, 2, 4 ] } }"), 1)
		writeFiles(t, dir, map[string][]byte{
			"simple/config.pbtxt":     config,
			"simple/1/model.onnx":     model,
			"simple/2_old/model.onnx": model,
			"simple/3/README.md":      []byte("the model is uploaded separately"),
			"simple/v5/model.onnx":    model,
		})
	}},
	"triton-savedmodel": {rules: []string{"MDL103"}, build: func(t *testing.T, dir string) {
		copyTestModel(t, "saved_model_half_plus_two_cpu/00000123", filepath.Join(dir, "half_plus_two", "1", "model.savedmodel"))
		if err := os.Remove(filepath.Join(dir, "half_plus_two", "1", "model.savedmodel", "variables", "variables.data-00000-of-00001")); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string][]byte{"half_plus_two/config.pbtxt": []byte("name: \"half_plus_two\"\nplatform: \"tensorflow_savedmodel\"\n")})
	}},
	"triton-config-unparseable": {rules: []string{"MDL120"}, build: func(t *testing.T, dir string) {
		writeFiles(t, dir, map[string][]byte{
			"simple/config.pbtxt": []byte("name: \"simple\"\nplatform: \"onnxruntime_onnx\"\ninput [ { name: \"x\" data_type: TYPE_FLOAT32 dims: [ 4 ] } ]\n"),
			"simple/1/model.onnx": readTestModel(t, "triton/simple/1/model.onnx"),
		})
	}},
}

func TestModelCases(t *testing.T) {
	golden := map[string][]expectedFinding{}
	names := make([]string, 0, len(modelCases))
	for name := range modelCases {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			test := modelCases[name]
			test.build(t, filepath.Join(root, name))
			t.Chdir(root)
			result, err := lint.Run(lint.Options{Paths: []string{name}, Rules: rules.All(), Config: &lint.Config{}})
			if err != nil {
				t.Fatal(err)
			}
			findings := []expectedFinding{}
			seen := map[string]bool{}
			for _, finding := range result.Findings {
				seen[finding.RuleID] = true
				findings = append(findings, expectedFinding{Rule: finding.RuleID, Severity: finding.Severity.String(),
					File: finding.Location.File, Target: finding.Target, Message: finding.Message})
			}
			var got []string
			for rule := range seen {
				got = append(got, rule)
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(test.rules, ",") {
				t.Errorf("rules %v, want %v", got, test.rules)
			}
			golden[name] = findings
		})
	}
	data, err := json.MarshalIndent(golden, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	if *update {
		if err := os.WriteFile(modelFindingsGolden, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(modelFindingsGolden)
	if err != nil {
		t.Fatalf("%v (run `go test ./rules -update` to create it)", err)
	}
	if !bytes.Equal(want, data) {
		t.Errorf("findings differ from %s (run `go test ./rules -update` and review the diff)\n%s", modelFindingsGolden, diffLines(string(want), string(data)))
	}
}

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readTestModel(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testModels, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func copyTestModel(t testing.TB, rel, dst string) {
	t.Helper()
	src := filepath.Join(testModels, filepath.FromSlash(rel))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks not supported: %v", err)
	}
}

// onnxModel is a ModelProto whose graph holds the given initializers.
func onnxModel(initializers ...[]byte) []byte {
	var graph []byte
	for _, tensor := range initializers {
		graph = protowire.AppendTag(graph, 5, protowire.BytesType)
		graph = protowire.AppendBytes(graph, tensor)
	}
	model := protowire.AppendTag(nil, 1, protowire.VarintType)
	model = protowire.AppendVarint(model, 8)
	model = protowire.AppendTag(model, 7, protowire.BytesType)
	return protowire.AppendBytes(model, graph)
}

// externalTensor is a float TensorProto stored in an external file.
func externalTensor(name, location string, offset, length int) []byte {
	entry := func(key, value string) []byte {
		b := protowire.AppendTag(nil, 1, protowire.BytesType)
		b = protowire.AppendString(b, key)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		return protowire.AppendString(b, value)
	}
	tensor := protowire.AppendTag(nil, 1, protowire.VarintType)
	tensor = protowire.AppendVarint(tensor, uint64(length/4))
	tensor = protowire.AppendTag(tensor, 2, protowire.VarintType)
	tensor = protowire.AppendVarint(tensor, 1)
	tensor = protowire.AppendTag(tensor, 8, protowire.BytesType)
	tensor = protowire.AppendString(tensor, name)
	for _, kv := range [][2]string{{"location", location}, {"offset", itoa(offset)}, {"length", itoa(length)}} {
		tensor = protowire.AppendTag(tensor, 13, protowire.BytesType)
		tensor = protowire.AppendBytes(tensor, entry(kv[0], kv[1]))
	}
	tensor = protowire.AppendTag(tensor, 14, protowire.VarintType)
	return protowire.AppendVarint(tensor, 1)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// torchZip is a PyTorch zip file whose data.pkl is pickle.
func torchZip(t *testing.T, pickle []byte) []byte {
	var buf bytes.Buffer
	archive := zip.NewWriter(&buf)
	for _, member := range []struct {
		name    string
		content []byte
	}{{"archive/data.pkl", pickle}, {"archive/version", []byte("3\n")}, {"archive/data/0", make([]byte, 64)}} {
		w, err := archive.Create(member.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(member.content); err != nil {
			t.Fatal(err)
		}
	}
	if err := archive.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// warmupRecords is a TFRecord file of n PredictionLogs holding a predict_log.
func warmupRecords(n int) []byte {
	var out []byte
	payload := []byte{0x32, 0x00}
	for i := 0; i < n; i++ {
		length := binary.LittleEndian.AppendUint64(nil, uint64(len(payload)))
		out = append(out, length...)
		out = binary.LittleEndian.AppendUint32(out, tfrecord.Mask(length))
		out = append(out, payload...)
		out = binary.LittleEndian.AppendUint32(out, tfrecord.Mask(payload))
	}
	return out
}
