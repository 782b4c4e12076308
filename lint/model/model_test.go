package model

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/internal/unprivileged"
	"github.com/modellint/modellint/lint/model/gguf/gguftest"
	"github.com/modellint/modellint/lint/model/tfrecord"
)

// models holds real model files (see its README).
const models = "../../testdata/models"

// write creates files under root from relative path → content.
func write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// copyTree copies a dir of testdata to dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

func load(t testing.TB, dir string) *Model {
	t.Helper()
	m, err := Load(dir, "m")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const lfsPointer = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"

func TestVersionNames(t *testing.T) {
	tests := []struct {
		name      string
		tfServing int64 // -99: not a version
		triton    int64 // -99: ignored
		reason    string
		canonical bool
	}{
		{"1", 1, 1, "", true},
		{"00000123", 123, -99, IgnoredLeadingZeros, false},
		{"0", 0, 0, "", true},
		{"01", 1, -99, IgnoredLeadingZeros, false},
		{"v1", -99, -99, IgnoredNotNumber, false},
		{"1_old", -99, 1, "", false},
		{" 7", 7, 7, "", false},
		{"+3", 3, 3, "", false},
		{"-2", -2, -2, "", false},
		{"1.0", -99, 1, "", false},
		{"9223372036854775807", 9223372036854775807, 9223372036854775807, "", true},
		{"9223372036854775808", -99, -99, IgnoredOutOfRange, false},
		{"99999999999999999999999", -99, -99, IgnoredOutOfRange, false},
		{"saved_model.pb", -99, -99, IgnoredNotNumber, false},
		{"", -99, -99, IgnoredNotNumber, false},
	}
	for _, test := range tests {
		got, ok := tfServingVersion(test.name)
		if (test.tfServing == -99) == ok || ok && got != test.tfServing {
			t.Errorf("tfServingVersion(%q) = %d, %v; want %d", test.name, got, ok, test.tfServing)
		}
		number, reason := tritonVersion(test.name)
		if reason != test.reason || reason == "" && number != test.triton {
			t.Errorf("tritonVersion(%q) = %d, %q; want %d, %q", test.name, number, reason, test.triton, test.reason)
		}
		if canonicalVersion(test.name) != test.canonical {
			t.Errorf("canonicalVersion(%q) = %v", test.name, !test.canonical)
		}
	}
}

func TestTFServingBasePath(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, models+"/saved_model_half_plus_two_cpu", dir)
	m := load(t, dir)
	if m.Layout != LayoutTFServing || len(m.Versions) != 1 || m.Loose != nil {
		t.Fatalf("layout %s, versions %+v, loose %v", m.Layout, m.Versions, m.Loose)
	}
	version := m.Versions[0]
	if version.Name != "00000123" || version.Number != 123 || !version.Resident || version.Bytes != 12107+172+20+19 || version.Files != 4 {
		t.Errorf("version = %+v", version)
	}
	if m.ResidentVersions != 1 || m.ResidentBytes != version.Bytes || m.Bytes != version.Bytes {
		t.Errorf("resident %d versions, %d bytes; model %d bytes", m.ResidentVersions, m.ResidentBytes, m.Bytes)
	}
	if m.WeightBytes != 20 || m.Parameters != 5 {
		t.Errorf("weights %d bytes, %d parameters; want 20 and 5 (from variables.index)", m.WeightBytes, m.Parameters)
	}
	saved := version.SavedModel
	if saved.File != "00000123/saved_model.pb" || saved.Graph == nil || saved.ParseError != "" || len(saved.Missing) != 0 || !saved.HasVariableOps() {
		t.Errorf("saved model = %+v", saved)
	}
	wantShards := []Shard{{File: "00000123/variables/variables.data-00000-of-00001", Present: true, Size: 20, Need: 20}}
	if !reflect.DeepEqual(saved.Variables.Shards, wantShards) {
		t.Errorf("shards = %+v, want %+v", saved.Variables.Shards, wantShards)
	}
}

func TestFlatCopy(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, models+"/saved_model_half_plus_two_cpu/00000123", dir)
	m := load(t, dir)
	if m.Layout != LayoutTFServing || len(m.Versions) != 0 || m.Loose == nil || m.Loose.File != "saved_model.pb" {
		t.Fatalf("layout %s, versions %v, loose %+v", m.Layout, m.Versions, m.Loose)
	}
	if m.ResidentVersions != 0 || m.ResidentBytes != 0 {
		t.Errorf("a base path without versions loads nothing: %d versions, %d bytes", m.ResidentVersions, m.ResidentBytes)
	}
}

func TestVersionLayouts(t *testing.T) {
	pb, err := os.ReadFile(models + "/matrix_half_plus_two/1/saved_model.pb")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"1/saved_model.pb":        string(pb),
		"01/saved_model.pb":       string(pb),
		"2/export/saved_model.pb": string(pb), // one level too deep
		"3":                       "a file named like a version",
		"v4/saved_model.pb":       string(pb),
		"README.md":               "notes",
	})
	m := load(t, dir)
	var names []string
	for _, version := range m.Versions {
		names = append(names, version.Name)
	}
	if want := []string{"01", "1", "2", "3"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("versions %v, want %v", names, want)
	}
	if !m.Versions[3].Resident || m.Versions[3].IsDir {
		t.Errorf("the latest version is the file 3: %+v", m.Versions[3])
	}
	if nested := m.Versions[2].SavedModel; nested.File != "" || nested.Nested != "2/export" {
		t.Errorf("version 2: %+v, want a SavedModel nested in 2/export", nested)
	}
	if !reflect.DeepEqual(m.Ignored, []Ignored{{Name: "v4", IsDir: true, Reason: IgnoredNotNumber}}) {
		t.Errorf("ignored = %+v", m.Ignored)
	}
}

func TestSavedModelProblems(t *testing.T) {
	real, err := os.ReadFile(models + "/saved_model_half_plus_two_cpu/00000123/saved_model.pb")
	if err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(models + "/saved_model_half_plus_two_cpu/00000123/variables/variables.index")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"1/saved_model.pb":                          "",
		"2/saved_model.pb":                          lfsPointer,
		"3/saved_model.pb":                          string(real[:5000]),
		"4/saved_model.pb":                          string(real),
		"4/variables/variables.index":               string(index),
		"4/variables/variables.data-00000-of-00001": "short",
		"5/saved_model.pb":                          string(real),
		"5/variables/variables.index":               string(index[:100]),
		"6/saved_model.pb":                          string(real),
		"6/assets/foo.txt":                          "x",
		"6/" + WarmupFile:                           string(warmup(1001)),
		"7/saved_model.cpb":                         "chunks",
		"8/export.meta":                             "legacy",
		"8/export":                                  "legacy",
	})
	m := load(t, dir)
	saved := map[string]*SavedModelDir{}
	for _, version := range m.Versions {
		saved[version.Name] = version.SavedModel
	}
	if s := saved["1"]; !s.Empty || s.Graph != nil {
		t.Errorf("1: %+v, want empty", s)
	}
	if s := saved["2"]; !s.LFSPointer || s.Graph != nil {
		t.Errorf("2: %+v, want an LFS pointer", s)
	}
	if s := saved["3"]; s.ParseError == "" || s.Graph != nil {
		t.Errorf("3: %+v, want a parse error", s)
	}
	if s := saved["4"]; len(s.Variables.Shards) != 1 || s.Variables.Shards[0].Size != 5 || s.Variables.Shards[0].Need != 20 || len(s.Missing) != 1 {
		t.Errorf("4: %+v, want a 5-byte shard that needs 20 and a missing asset", s)
	}
	if s := saved["5"]; !strings.Contains(s.Variables.Error, "magic") {
		t.Errorf("5: variables %+v, want a truncated index", s.Variables)
	}
	if s := saved["6"]; s.Warmup == nil || !s.Warmup.OverLimit || s.Warmup.Records != WarmupMaxRecords || s.Warmup.Error != "" {
		t.Errorf("6: warmup %+v, want over the limit", s.Warmup)
	}
	if s := saved["7"]; s.File != "" || s.Chunked != "7/saved_model.cpb" {
		t.Errorf("7: %+v, want only a chunked SavedModel", s)
	}
	if s := saved["8"]; s.File != "" || s.LegacyExport != "8/export.meta" {
		t.Errorf("8: %+v, want a legacy export", s)
	}
}

// warmup is a TFRecord file of n PredictionLogs with a predict_log.
func warmup(n int) []byte {
	var out []byte
	payload := []byte{0x32, 0x00} // field 6 (predict_log), empty
	for i := 0; i < n; i++ {
		out = tfrecord.AppendRecord(out, payload)
	}
	return out
}

func TestTriton(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "simple")
	copyTree(t, models+"/triton/simple", dir)
	onnxModel, err := os.ReadFile(models + "/triton/simple/1/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{"2/model.onnx": string(onnxModel), "0003/model.onnx": string(onnxModel), "warmup/x": "", "4/README": ""})
	m := load(t, dir)
	if m.Layout != LayoutTriton || m.Triton.Config == nil || m.Triton.Config.Name != "simple" {
		t.Fatalf("layout %s, triton %+v", m.Layout, m.Triton)
	}
	var resident []string
	for _, version := range m.Resident() {
		resident = append(resident, version.Name+"="+version.ModelFile)
	}
	if want := []string{"4="}; !reflect.DeepEqual(resident, want) {
		t.Errorf("resident %v, want %v (latest 1 is the highest number, model file or not)", resident, want)
	}
	if !reflect.DeepEqual(m.Ignored, []Ignored{{Name: "0003", IsDir: true, Reason: IgnoredLeadingZeros}}) {
		t.Errorf("ignored = %+v", m.Ignored)
	}
	if len(m.ONNX) != 3 || m.ONNX[0].Model == nil {
		t.Errorf("onnx = %+v", m.ONNX)
	}
}

func TestTritonPolicies(t *testing.T) {
	tests := map[string]struct {
		policy   string
		resident []string
		missing  []int64
	}{
		"latest 2": {"version_policy: { latest { num_versions: 2 } }", []string{"2", "3"}, nil},
		"all":      {"version_policy: { all { } }", []string{"1", "2", "3"}, nil},
		"specific": {"version_policy: { specific { versions: [1, 5] } }", []string{"1"}, []int64{5}},
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "m")
			write(t, dir, map[string]string{"config.pbtxt": "backend: \"python\"\n" + test.policy,
				"1/model.py": "", "2/model.py": "", "3/model.py": ""})
			m := load(t, dir)
			var resident []string
			for _, version := range m.Resident() {
				resident = append(resident, version.Name)
			}
			if !reflect.DeepEqual(resident, test.resident) || !reflect.DeepEqual(m.Triton.MissingSpecific, test.missing) || m.ResidentVersions != len(test.resident) {
				t.Errorf("resident %v (%d), missing %v; want %v, %v", resident, m.ResidentVersions, m.Triton.MissingSpecific, test.resident, test.missing)
			}
		})
	}
}

func TestTritonWithoutConfig(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, models+"/triton/bad_input_dims/1", filepath.Join(dir, "1"))
	m := load(t, dir)
	if m.Layout != LayoutTriton || m.Triton.ConfigFile != "" || m.Versions[0].ModelFile != "1/model.onnx" {
		t.Fatalf("layout %s, triton %+v, versions %+v", m.Layout, m.Triton, m.Versions)
	}
}

func TestHuggingFace(t *testing.T) {
	shard, err := os.ReadFile(models + "/candle/jfk-codes.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"config.json":                      `{"architectures": ["X"]}`,
		"model-00001-of-00003.safetensors": string(shard),
		"model-00003-of-00003.safetensors": lfsPointer,
		"model.safetensors.index.json": `{"metadata": {"total_size": 13248}, "weight_map": {"codes": "model-00001-of-00003.safetensors",
			"lm_head": "model-00001-of-00003.safetensors", "embed": "model-00002-of-00003.safetensors", "norm": "../outside.safetensors"}}`,
		"broken.safetensors": "\x08\x00\x00\x00\x00\x00\x00\x00not json",
	})
	m := load(t, dir)
	if m.Layout != LayoutHuggingFace || len(m.Safetensors) != 2 || len(m.SafetensorsIndexes) != 1 {
		t.Fatalf("layout %s, %d safetensors, %d indexes", m.Layout, len(m.Safetensors), len(m.SafetensorsIndexes))
	}
	if m.Safetensors[0].Error == "" || m.Safetensors[1].Error != "" {
		t.Errorf("safetensors = %+v", m.Safetensors)
	}
	index := m.SafetensorsIndexes[0]
	if !reflect.DeepEqual(index.MissingShards, []string{"../outside.safetensors", "model-00002-of-00003.safetensors"}) ||
		!reflect.DeepEqual(index.MissingTensors, []string{"lm_head"}) || index.MissingTensorCount != 1 {
		t.Errorf("index = %+v", index)
	}
	if m.ResidentVersions != 1 || m.ResidentBytes != m.Bytes {
		t.Errorf("resident %d versions, %d bytes; a checkpoint is one model of %d bytes", m.ResidentVersions, m.ResidentBytes, m.Bytes)
	}
	if m.WeightBytes != 13248 || m.Parameters != 1656 {
		t.Errorf("weights %d bytes, %d parameters; want the indexed shard's", m.WeightBytes, m.Parameters)
	}
	if f := m.File("model-00003-of-00003.safetensors"); f == nil || !f.LFSPointer || !f.Weight {
		t.Errorf("LFS pointer not marked: %+v", f)
	}
}

func TestSymlinks(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, map[string]string{"blob": "weights"})
	dir := t.TempDir()
	write(t, dir, map[string]string{"real.onnx": "", "sub/data.bin": "1234"})
	links := map[string]string{
		"escape.safetensors": filepath.Join(outside, "blob"),
		"root":               "/",
		"dangling.bin":       filepath.Join(dir, "nothing"),
		"loop":               ".",
		"sub/up":             "..",
		"alias.bin":          "sub/data.bin",
		"cycle-a.bin":        "cycle-b.bin",
		"cycle-b.bin":        "cycle-a.bin",
		"through-file":       "real.onnx/x",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			testenv.Unavailable(t, "cannot make a symlink here: "+err.Error())
		}
	}
	m := load(t, dir)
	var got []string
	for _, link := range m.Links {
		got = append(got, link.Path+dangling(link))
	}
	want := []string{"cycle-a.bin (dangling)", "cycle-b.bin (dangling)", "dangling.bin (dangling)", "escape.safetensors", "root",
		"through-file (dangling)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links = %v, want %v", got, want)
	}
	if f := m.File("alias.bin"); f == nil || f.Size != 4 {
		t.Errorf("alias.bin inside the dir is followed: %+v", f)
	}
	if len(m.Files) != 3 {
		t.Errorf("files = %+v, want real.onnx, sub/data.bin and alias.bin once each (loops not followed)", m.Files)
	}
}

func dangling(link Link) string {
	if link.Dangling {
		return " (dangling)"
	}
	return ""
}

func TestTooManyFiles(t *testing.T) {
	defer func(limit int) { fileLimit = limit }(fileLimit)
	fileLimit = 3
	dir := t.TempDir()
	write(t, dir, map[string]string{"a.onnx": "", "b.onnx": "", "c.onnx": "", "d.onnx": ""})
	_, err := Load(dir, "m")
	if err == nil || !strings.Contains(err.Error(), "m: more than 3 files") {
		t.Errorf("err = %v, want a refusal naming the dir", err)
	}
}

func TestUnreadableDir(t *testing.T) {
	if unprivileged.Rerun(t) {
		return // root reads every directory: checked as nobody
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{"1/saved_model.pb": "", "2/x": ""})
	if err := os.Chmod(filepath.Join(dir, "2"), 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(dir, "2"), 0o755)
	_, err := Load(dir, "m")
	if !errors.Is(err, fs.ErrPermission) || !strings.HasPrefix(err.Error(), "m:") {
		t.Fatalf("err = %v, want a permission error naming the dir", err)
	}
}

func TestIsModelDir(t *testing.T) {
	pb := "x"
	numbered := func(n int, last string) map[string]string {
		files := map[string]string{}
		for i := range n {
			files[fmt.Sprintf("%d/notes.txt", 100+i)] = ""
		}
		files["999/"+last] = pb
		return files
	}
	tests := map[string]struct {
		files map[string]string
		links map[string]string // link name → target
		want  bool
	}{
		"flat SavedModel":                      {files: map[string]string{"saved_model.pb": pb}, want: true},
		"TF Serving base path":                 {files: map[string]string{"00000123/saved_model.pb": pb}, want: true},
		"legacy export":                        {files: map[string]string{"1/export.meta": pb}, want: true},
		"nested one level deep":                {files: map[string]string{"1/export/saved_model.pb": pb}, want: true},
		"Triton":                               {files: map[string]string{"config.pbtxt": ""}, want: true},
		"Triton without config":                {files: map[string]string{"1/model.plan": ""}, want: true},
		"safetensors":                          {files: map[string]string{"model.safetensors": ""}, want: true},
		"sharded pytorch":                      {files: map[string]string{"pytorch_model-00001-of-00002.bin": ""}, want: true},
		"onnx":                                 {files: map[string]string{"model.onnx": ""}, want: true},
		"torchserve":                           {files: map[string]string{"resnet.mar": ""}, want: true},
		"manifests":                            {files: map[string]string{"deploy.yaml": "", "1/notes.txt": ""}, want: false},
		"numbered data":                        {files: map[string]string{"2024/report.csv": ""}, want: false},
		"deeper than one level":                {files: map[string]string{"a/b/saved_model.pb": pb}, want: false},
		"last of as many versions as examined": {files: numbered(maxVersionsExamined-1, "saved_model.pb"), want: true},
		"after the versions examined":          {files: numbered(maxVersionsExamined, "saved_model.pb"), want: false},
		"symlinked version dir": {files: map[string]string{"store/v7/saved_model.pb": pb},
			links: map[string]string{"7": "store/v7"}, want: true},
		"symlinked dir in a version": {files: map[string]string{"store/saved_model.pb": pb, "1/notes.txt": ""},
			links: map[string]string{"1/export": "../store"}, want: true},
		"dangling version link": {files: map[string]string{"notes.txt": ""},
			links: map[string]string{"1": "gone"}, want: false},
		"version link to a file": {files: map[string]string{"saved_model.txt": pb},
			links: map[string]string{"1": "saved_model.txt"}, want: false},
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, test.files)
			for link, target := range test.links {
				if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
					testenv.Unavailable(t, "cannot make a symlink here: "+err.Error())
				}
			}
			if got := IsModelDir(dir); got != test.want {
				t.Errorf("IsModelDir = %v, want %v", got, test.want)
			}
			fsys := mapFS(test.files)
			for link, target := range test.links {
				fsys[link] = &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777}
			}
			if got := IsModelDirFS(fsys); got != test.want {
				t.Errorf("IsModelDirFS = %v, want %v", got, test.want)
			}
		})
	}
}

func TestIsModelDirNotADir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "model.onnx")
	write(t, filepath.Dir(file), map[string]string{"model.onnx": ""})
	for _, dir := range []string{file, filepath.Join(filepath.Dir(file), "missing"), ""} {
		if IsModelDir(dir) {
			t.Errorf("IsModelDir(%q) = true, want false", dir)
		}
	}
}

func TestGGUF(t *testing.T) {
	header, size := gguftest.Llama{Name: "tiny", Layers: 2, Embedding: 256, FeedForward: 512, Heads: 4, KVHeads: 2,
		Vocabulary: 1000, ContextLength: 2048, Weights: gguftest.Q4_K, Sensitive: gguftest.Q6_K}.File().Header()
	dir := t.TempDir()
	write(t, dir, map[string]string{"tiny-q4_k_m.gguf": string(header), "broken.gguf": "GGUF\x01\x00\x00\x00"})
	if err := os.Truncate(filepath.Join(dir, "tiny-q4_k_m.gguf"), size); err != nil {
		t.Fatal(err)
	}
	m := load(t, dir)
	if len(m.GGUF) != 2 || m.GGUF[0].Error == "" || m.GGUF[1].Header == nil {
		t.Fatalf("GGUF = %+v", m.GGUF)
	}
	if h := m.GGUF[1].Header; h.BlockCount != 2 || h.HeadCountKV != 2 || h.Parameters == 0 || m.WeightBytes != 0 {
		t.Errorf("header %+v, model weight bytes %d: a dir's GGUF files are alternatives, not summed", h, m.WeightBytes)
	}
}

// TestReadVersionLimit: past the bound, the newest versions' SavedModels
// are read (the resident latest among them) and the oldest only listed.
func TestReadVersionLimit(t *testing.T) {
	defer func(limit int) { readVersionLimit = limit }(readVersionLimit)
	readVersionLimit = 2
	graph, err := os.ReadFile("../../testdata/models/saved_model_half_plus_two_cpu/00000123/saved_model.pb")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, version := range []string{"1", "2", "10", "3", "20"} {
		os.MkdirAll(filepath.Join(dir, version), 0o755)
		os.WriteFile(filepath.Join(dir, version, "saved_model.pb"), graph, 0o644)
	}
	m, err := Load(dir, "half_plus_two")
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	for _, version := range m.Versions {
		if version.SavedModel != nil {
			read = append(read, version.Name)
		}
	}
	if len(m.Versions) != 5 || m.UnreadVersions != 3 || !slices.Equal(read, []string{"10", "20"}) || !m.Versions[4].Resident {
		t.Errorf("%d versions, %d unread, read %v; want 5, 3 unread, read [10 20] with 20 resident", len(m.Versions), m.UnreadVersions, read)
	}
}
