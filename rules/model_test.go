package rules_test

import (
	"archive/zip"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/model"
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
			result, err := engine.Run(engine.Options{Paths: []string{name}, Rules: rules.All(), Config: &lint.Config{}})
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
		testenv.Unavailable(t, "cannot make a symlink here: "+err.Error())
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
		out = tfrecord.AppendRecord(out, payload)
	}
	return out
}

// standIn is the model dir checkModel lints, and so the Dir (display) of
// the Models it is given: the findings and the evaluation then name the
// same target.
const standIn = "m"

// checkModel runs one rule on a Model as engine.Run runs it on a model dir:
// the run lints a stand-in dir, and the rule is handed m in its place.
func checkModel(t *testing.T, id string, m *model.Model) ([]lint.Finding, lint.Evaluation) {
	t.Helper()
	if m.Dir != standIn {
		t.Fatalf("model %s, want it named %s", m.Dir, standIn)
	}
	rule := rules.Lookup(rules.All(), id)
	t.Chdir(t.TempDir())
	writeFiles(t, standIn, map[string][]byte{"model.onnx": nil})
	handed := *rule
	handed.Check = func(pass *lint.Pass) {
		pass.Target.Model = m
		rule.Check(pass)
	}
	result, err := engine.Run(engine.Options{Paths: []string{standIn}, Rules: []*lint.Rule{&handed}, Config: &lint.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(result.Evaluations) != 1 {
		t.Fatalf("evaluations %+v, want one", result.Evaluations)
	}
	return result.Findings, result.Evaluations[0]
}

// capturedFS is a MapFS that lists some files without holding their
// content, as a model baked into an image whose layers were captured in
// part reads.
type capturedFS struct {
	fstest.MapFS
	uncaptured []string
}

func (c capturedFS) Open(name string) (fs.File, error) {
	if slices.Contains(c.uncaptured, name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("layer not captured: %w", model.ErrContentUnavailable)}
	}
	return c.MapFS.Open(name)
}

// testModelFS holds dirs of testModels (under the names they map to)
// and files.
func testModelFS(t *testing.T, dirs map[string]string, files map[string][]byte) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	for dst, src := range dirs {
		root := os.DirFS(filepath.Join(testModels, filepath.FromSlash(src)))
		err := fs.WalkDir(root, ".", func(name string, entry fs.DirEntry, err error) error {
			if err != nil || entry.IsDir() {
				return err
			}
			data, err := fs.ReadFile(root, name)
			fsys[path.Join(dst, name)] = &fstest.MapFile{Data: data, Mode: 0o644}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return fsys
}

func TestModelRulesSkipUnreadContent(t *testing.T) {
	const (
		graph  = "1/saved_model.pb"
		index  = "1/variables/variables.index"
		shard  = "1/variables/variables.data-00000-of-00001"
		warmup = "1/assets.extra/tf_serving_warmup_requests"
	)
	savedModel := map[string]string{"1": "saved_model_half_plus_two_tf2_cpu/00000123"}
	onnxModel := readTestModel(t, "triton/simple/1/model.onnx")
	tritonConfig := readTestModel(t, "triton/simple/config.pbtxt")
	tests := []struct {
		name       string
		rule       string
		dirs       map[string]string
		files      map[string][]byte
		uncaptured []string
		// whole is what the rule says with every file read ("": pass).
		whole lint.Status
	}{
		{name: "graph", rule: "MDL104", dirs: savedModel, uncaptured: []string{graph}},
		{name: "graph", rule: "MDL105", dirs: savedModel, uncaptured: []string{graph}},
		{name: "graph", rule: "MDL110", dirs: savedModel, uncaptured: []string{graph}},
		{name: "graph", rule: "MDL103", dirs: savedModel, uncaptured: []string{graph}},
		{name: "variables index", rule: "MDL103", dirs: savedModel, uncaptured: []string{index}},
		{name: "warmup", rule: "MDL109", dirs: savedModel, files: map[string][]byte{warmup: warmupRecords(3)}, uncaptured: []string{warmup}},
		{name: "index of an empty shard", rule: "MDL108", dirs: savedModel, files: map[string][]byte{shard: nil}, uncaptured: []string{index},
			whole: lint.StatusFail}, // the index stores 20 bytes in it
		{name: "file the size of a pointer", rule: "MDL108", files: map[string][]byte{"config.json": []byte("{}"), "model.safetensors": make([]byte, 134)},
			uncaptured: []string{"model.safetensors"}},
		{name: "Triton config", rule: "MDL120", files: map[string][]byte{"config.pbtxt": tritonConfig, "1_old/model.onnx": onnxModel},
			uncaptured: []string{"config.pbtxt"}, whole: lint.StatusFail}, // the policy selects 1_old, loaded from 1/
		{name: "Triton config", rule: "MDL121", files: map[string][]byte{"config.pbtxt": tritonConfig, "1/model.onnx": onnxModel},
			uncaptured: []string{"config.pbtxt"}},
		{name: "ONNX model", rule: "MDL121", files: map[string][]byte{"config.pbtxt": tritonConfig, "1/model.onnx": onnxModel},
			uncaptured: []string{"1/model.onnx"}},
		{name: "ONNX model", rule: "MDL131", files: map[string][]byte{"model.onnx": onnxModel}, uncaptured: []string{"model.onnx"}},
		{name: "ONNX model", rule: "MDL132", files: map[string][]byte{"model.onnx": onnxModel}, uncaptured: []string{"model.onnx"}},
		{name: "safetensors shard", rule: "MDL130", files: map[string][]byte{"model.safetensors": readTestModel(t, "candle/jfk-codes.safetensors")},
			uncaptured: []string{"model.safetensors"}},
		{name: "safetensors index", rule: "MDL130", files: map[string][]byte{
			"model.safetensors":            readTestModel(t, "candle/jfk-codes.safetensors"),
			"model.safetensors.index.json": []byte(`{"metadata": {}, "weight_map": {"codes": "model.safetensors"}}`),
		}, uncaptured: []string{"model.safetensors.index.json"}},
		{name: "one of two pickles", rule: "MDL140",
			files:      map[string][]byte{"config.json": []byte("{}"), "safe.pt": readTestModel(t, "candle/test.pt"), "model.pkl": readTestModel(t, "kserve/model.pkl")},
			uncaptured: []string{"model.pkl"}},
	}
	for _, test := range tests {
		t.Run(test.rule+"/"+test.name, func(t *testing.T) {
			fsys := testModelFS(t, test.dirs, test.files)
			whole, err := model.LoadFS(fsys, standIn)
			if err != nil {
				t.Fatal(err)
			}
			wantWhole := cmp.Or(test.whole, lint.StatusPass)
			if _, evaluation := checkModel(t, test.rule, whole); evaluation.Status != wantWhole {
				t.Fatalf("with every file read: %s (%s), want %s; what the unread files change is the test",
					evaluation.Status, evaluation.Reason, wantWhole)
			}
			m, err := model.LoadFS(capturedFS{fsys, test.uncaptured}, standIn)
			if err != nil {
				t.Fatal(err)
			}
			findings, evaluation := checkModel(t, test.rule, m)
			for _, finding := range findings {
				t.Errorf("finding from content not read: %s", finding.Message)
			}
			want := "not read from the image: " + path.Join(standIn, test.uncaptured[0])
			if evaluation.Status != lint.StatusSkip || evaluation.Reason != want {
				t.Errorf("%s (%s), want skipped: %s", evaluation.Status, evaluation.Reason, want)
			}
		})
	}
}

func TestModelRulesOnExpectedLayout(t *testing.T) {
	checkpoint := map[string][]byte{"model.ckpt.index": []byte("index"), "model.ckpt.data-00000-of-00001": []byte("data"),
		"model.ckpt.meta": []byte("graph"), "checkpoint": []byte(`model_checkpoint_path: "model.ckpt"`)}
	inVersion := func(files map[string][]byte) map[string][]byte {
		moved := map[string][]byte{}
		for name, data := range files {
			moved["1/"+name] = data
		}
		return moved
	}
	tests := []struct {
		name   string
		expect model.Layout
		files  map[string][]byte
		dirs   []string
		rule   string
		want   string
	}{
		{name: "only a checkpoint", expect: model.LayoutTFServing, files: checkpoint, rule: "MDL101",
			want: "the base path m, which the server is pointed at, holds no SavedModel in a numeric version directory, only a TensorFlow " +
				"checkpoint (m/model.ckpt.*), which TF Serving does not load: TF Serving logs \"No versions of servable <name> found under base path m\" " +
				"forever and never opens its ports; restore the checkpoint in the model's code and export a SavedModel into m/1/ with " +
				"tf.saved_model.save (a checkpoint holds the weights, not the serving signatures)"},
		{name: "empty", expect: model.LayoutTFServing, rule: "MDL101",
			want: "the base path m, which the server is pointed at, holds no files and no numeric version directory: TF Serving logs " +
				"\"No versions of servable <name> found under base path m\" forever and never opens its ports; export a SavedModel " +
				"into m/1/ (tf.saved_model.save), or point the server at the dir that holds one"},
		{name: "only lost+found", expect: model.LayoutTFServing, dirs: []string{"lost+found"}, rule: "MDL101",
			want: "the base path m, which the server is pointed at, holds no files and no numeric version directory: TF Serving logs " +
				"\"No versions of servable <name> found under base path m\" forever and never opens its ports; export a SavedModel " +
				"into m/1/ (tf.saved_model.save), or point the server at the dir that holds one"},
		{name: "a SavedModel too deep", expect: model.LayoutTFServing, files: map[string][]byte{"export/1/saved_model.pb": nil}, rule: "MDL101",
			want: "the base path m, which the server is pointed at, holds no SavedModel in a numeric version directory, only a SavedModel in " +
				"m/export/1/, which TF Serving does not load: TF Serving logs \"No versions of servable <name> found under base path m\" forever and " +
				"never opens its ports; move the contents of m/export/1/ into m/1/"},
		{name: "a version of a checkpoint", expect: model.LayoutTFServing, files: inVersion(checkpoint), rule: "MDL102",
			want: "m/1 has neither saved_model.pb nor saved_model.pbtxt, only a TensorFlow checkpoint (m/1/model.ckpt.*): TF Serving fails to " +
				"load version 1 with \"Could not find SavedModel .pb or .pbtxt at supplied export directory path: m/1\"; restore the checkpoint " +
				"in the model's code and export a SavedModel into m/1/ with tf.saved_model.save (a checkpoint holds the weights, not the serving signatures)"},
		{name: "empty", expect: model.LayoutTriton, rule: "MDL120",
			want: "Triton cannot load model 'm': it has no version directory, so it reports \"at least one version must be available under the " +
				"version policy of model 'm'\"; put the model in a version directory named with a plain number, e.g. m/1/"},
		{name: "a version of a checkpoint", expect: model.LayoutTriton, files: inVersion(checkpoint), rule: "MDL120",
			want: "m has no config.pbtxt and no version directory holds a model file Triton recognizes (it holds only a TensorFlow checkpoint " +
				"(m/1/model.ckpt.*)): Triton cannot tell which backend loads model 'm' and fails to load it; put the model file in the version " +
				"directory under its default name (model.onnx, model.plan, model.pt, model.savedmodel/, model.py), or write a config.pbtxt " +
				"with a platform or backend"},
	}
	for _, test := range tests {
		t.Run(test.rule+"/"+test.name, func(t *testing.T) {
			fsys := testModelFS(t, nil, test.files)
			for _, dir := range test.dirs {
				fsys[dir] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
			}
			detected, err := model.LoadFS(fsys, standIn)
			if err != nil {
				t.Fatal(err)
			}
			if detected.Layout != model.LayoutFiles {
				t.Fatalf("without Expect: layout %s, want %s: a dir the rules of no server check", detected.Layout, model.LayoutFiles)
			}
			m, err := model.LoadFSWith(fsys, standIn, model.LoadOptions{Expect: test.expect})
			if err != nil {
				t.Fatal(err)
			}
			findings, _ := checkModel(t, test.rule, m)
			var got []string
			for _, finding := range findings {
				got = append(got, finding.Message)
			}
			if len(got) != 1 || got[0] != test.want {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), test.want)
			}
		})
	}
}

func TestModelRulesReportWhatWasRead(t *testing.T) {
	// The graph was not read, but the index was: it names a shard that is
	// not there, whatever the graph holds.
	fsys := testModelFS(t, map[string]string{"1": "saved_model_half_plus_two_tf2_cpu/00000123"}, nil)
	delete(fsys, "1/variables/variables.data-00000-of-00001")
	m, err := model.LoadFS(capturedFS{fsys, []string{"1/saved_model.pb"}}, standIn)
	if err != nil {
		t.Fatal(err)
	}
	findings, evaluation := checkModel(t, "MDL103", m)
	if len(findings) != 1 || !strings.HasPrefix(findings[0].Message, "m/1/variables/variables.data-00000-of-00001 is missing") || evaluation.Status != lint.StatusFail {
		t.Errorf("findings %+v, %s; want the missing shard reported", findings, evaluation.Status)
	}

	// Without config.pbtxt's content, no version is still no version.
	m, err = model.LoadFS(capturedFS{fstest.MapFS{"config.pbtxt": {Data: []byte(`name: "m"`)}}, []string{"config.pbtxt"}}, standIn)
	if err != nil {
		t.Fatal(err)
	}
	if findings, _ := checkModel(t, "MDL120", m); len(findings) != 1 || !strings.Contains(findings[0].Message, "it has no version directory") {
		t.Errorf("findings %+v, want the model without versions reported", findings)
	}
}
