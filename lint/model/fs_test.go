package model

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modellint/modellint/internal/unprivileged"
)

func readFile(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// tfServingFiles is a TF Serving base path: a TF2 SavedModel (graph,
// variables, assets, fingerprint, warmup) in version 00000123, an older
// version 7 and a dir TF Serving ignores.
func tfServingFiles(t testing.TB) map[string]string {
	src := models + "/saved_model_half_plus_two_tf2_cpu/00000123/"
	files := map[string]string{
		"00000123/" + WarmupFile: string(warmup(3)),
		"7/saved_model.pb":       readFile(t, models+"/matrix_half_plus_two/1/saved_model.pb"),
		"notes/README.md":        "how this model was exported",
	}
	for _, name := range []string{"saved_model.pb", "fingerprint.pb", "assets/foo.txt", "variables/variables.index", "variables/variables.data-00000-of-00001"} {
		files["00000123/"+name] = readFile(t, src+name)
	}
	return files
}

// tritonFiles is one model of a Triton repository with two versions.
func tritonFiles(t testing.TB) map[string]string {
	onnxModel := readFile(t, models+"/triton/simple/1/model.onnx")
	return map[string]string{
		"config.pbtxt": readFile(t, models+"/triton/simple/config.pbtxt"),
		"1/model.onnx": onnxModel,
		"2/model.onnx": onnxModel,
		"warmup/x":     "",
	}
}

// huggingFaceFiles is a sharded safetensors checkpoint whose index
// matches its shards, with a pickle and a git checkout's .git dir.
func huggingFaceFiles(t testing.TB) map[string]string {
	return map[string]string{
		"config.json":                      `{"architectures": ["X"], "model_type": "x", "torch_dtype": "int64"}`,
		"model-00001-of-00002.safetensors": readFile(t, models+"/candle/jfk-codes.safetensors"),
		"model-00002-of-00002.safetensors": safetensorsShard("lm_head"),
		"model.safetensors.index.json": `{"metadata": {"total_size": 13264}, "weight_map": {"codes": "model-00001-of-00002.safetensors",
			"lm_head": "model-00002-of-00002.safetensors"}}`,
		"model.pkl":   readFile(t, models+"/kserve/model.pkl"),
		".git/config": "[core]",
	}
}

// safetensorsShard is a safetensors file of one I64 tensor of 2 elements.
func safetensorsShard(tensor string) string {
	header := fmt.Sprintf(`{%q:{"dtype":"I64","shape":[2],"data_offsets":[0,16]}}`, tensor)
	return string(binary.LittleEndian.AppendUint64(nil, uint64(len(header)))) + header + strings.Repeat("\x00", 16)
}

// mapFS holds files as write puts them on disk.
func mapFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
	}
	return fsys
}

// seekOnlyFS hides its files' ReadAt, so reads at an offset seek.
type seekOnlyFS struct{ fstest.MapFS }

func (s seekOnlyFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return struct {
		fs.File
		io.Seeker
	}{f, f.(io.Seeker)}, nil
}

// streamFS hides its files' ReadAt and Seek: they read only from the start.
type streamFS struct{ fstest.MapFS }

func (s streamFS) Open(name string) (fs.File, error) {
	f, err := s.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return struct{ fs.File }{f}, nil
}

func TestLoadFSMatchesLoad(t *testing.T) {
	tests := []struct {
		name   string
		files  func(testing.TB) map[string]string
		layout Layout
	}{
		{"TF Serving", tfServingFiles, LayoutTFServing},
		{"Triton", tritonFiles, LayoutTriton},
		{"Hugging Face", huggingFaceFiles, LayoutHuggingFace},
	}
	for _, test := range tests {
		files := test.files(t)
		dir := t.TempDir()
		write(t, dir, files)
		for rel := range files {
			if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(rel)), 0o644); err != nil {
				t.Fatal(err) // the same mode whatever the umask
			}
		}
		fromDisk := load(t, dir)
		if fromDisk.Layout != test.layout || len(claims(fromDisk)) > 0 {
			t.Fatalf("%s: Load gives layout %s, claims %v: not the model the test means", test.name, fromDisk.Layout, claims(fromDisk))
		}
		for _, variant := range []struct {
			name string
			fsys fs.FS
		}{
			{"MapFS", mapFS(files)},
			{"files without ReadAt", seekOnlyFS{mapFS(files)}},
		} {
			t.Run(test.name+"/"+variant.name, func(t *testing.T) {
				fromFS, err := LoadFS(variant.fsys, "m")
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(fromFS, fromDisk) {
					t.Errorf("LoadFS and Load differ:\n%s", firstDifference(t, fromFS, fromDisk))
				}
			})
		}
	}
}

// firstDifference shows where two Models' JSON forms first differ.
func firstDifference(t *testing.T, got, want *Model) string {
	gotJSON, err1 := json.MarshalIndent(got, "", " ")
	wantJSON, err2 := json.MarshalIndent(want, "", " ")
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := strings.Split(string(gotJSON), "\n"), strings.Split(string(wantJSON), "\n")
	for i := 0; i < len(gotLines) && i < len(wantLines); i++ {
		if gotLines[i] != wantLines[i] {
			return fmt.Sprintf("line %d: LoadFS %s, Load %s", i+1, strings.TrimSpace(gotLines[i]), strings.TrimSpace(wantLines[i]))
		}
	}
	return fmt.Sprintf("LoadFS %d lines, Load %d (or a difference JSON does not show)", len(gotLines), len(wantLines))
}

// capturedFS is a MapFS that lacks some of its files' content, as an
// image captured in part does: held maps a file to the bytes of it the
// FS has (-1: none, and opening it fails); reads past them fail with err.
type capturedFS struct {
	fstest.MapFS
	held map[string]int
	err  error
}

func (c capturedFS) Open(name string) (fs.File, error) {
	n, partial := c.held[name]
	if !partial {
		return c.MapFS.Open(name)
	}
	if n < 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: c.err}
	}
	f, err := c.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	f.Close()
	if err != nil {
		return nil, err
	}
	return &prefixFile{info: info, data: c.MapFS[name].Data[:n], err: c.err}, nil
}

// prefixFile holds the first bytes of a file; reading past them fails.
type prefixFile struct {
	info fs.FileInfo
	data []byte
	off  int64
	err  error
}

func (f *prefixFile) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	if off < int64(len(f.data)) {
		n = copy(p, f.data[off:])
	}
	switch {
	case n == len(p):
		return n, nil
	case int64(len(f.data)) < f.info.Size():
		return n, fmt.Errorf("%s at byte %d: %w", f.info.Name(), off+int64(n), f.err)
	}
	return n, io.EOF
}

func (f *prefixFile) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (f *prefixFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *prefixFile) Close() error               { return nil }

// errNotCaptured is how an image FS says it lacks content.
var errNotCaptured = fmt.Errorf("layer not captured: %w", ErrContentUnavailable)

func TestLoadFSContentUnavailable(t *testing.T) {
	const (
		graph       = "00000123/saved_model.pb"
		index       = "00000123/variables/variables.index"
		warmupFile  = "00000123/" + WarmupFile
		fingerprint = "00000123/fingerprint.pb"
		shard1      = "model-00001-of-00002.safetensors"
		shard2      = "model-00002-of-00002.safetensors"
		stIndex     = "model.safetensors.index.json"
	)
	tests := []struct {
		name   string
		files  func(testing.TB) map[string]string
		held   map[string]int
		unread []string
		check  func(*testing.T, *Model)
	}{
		{
			name: "graph not captured", files: tfServingFiles, held: map[string]int{graph: -1}, unread: []string{graph},
			check: func(t *testing.T, m *Model) {
				if s := m.Versions[1].SavedModel; !s.Unread || s.Graph != nil || s.Variables.Parsed == nil || m.WeightBytes != 631 {
					t.Errorf("saved model %+v, %d weight bytes; want the graph unread and the variables read", s, m.WeightBytes)
				}
			},
		},
		{
			name: "graph captured in part", files: tfServingFiles, held: map[string]int{graph: 100}, unread: []string{graph},
			check: func(t *testing.T, m *Model) {
				if s := m.Versions[1].SavedModel; !s.Unread || s.Graph != nil {
					t.Errorf("saved model %+v, want the graph unread, not truncated", s)
				}
			},
		},
		{
			name: "index captured in part", files: tfServingFiles, held: map[string]int{index: 50}, unread: []string{index},
			check: func(t *testing.T, m *Model) {
				s := m.Versions[1].SavedModel
				if v := s.Variables; !v.Unread || v.Parsed != nil || v.Shards != nil || v.Index != index || s.Graph == nil {
					t.Errorf("variables %+v, graph %v; want the index unread and the graph read", v, s.Graph != nil)
				}
				if m.WeightBytes != 0 || m.Parameters != 0 {
					t.Errorf("weights %d bytes, %d parameters; want unknown (0)", m.WeightBytes, m.Parameters)
				}
			},
		},
		{
			name: "warmup and fingerprint not captured", files: tfServingFiles, held: map[string]int{warmupFile: -1, fingerprint: 3},
			unread: []string{warmupFile, fingerprint},
			check: func(t *testing.T, m *Model) {
				s := m.Versions[1].SavedModel
				if !s.Warmup.Unread || s.Warmup.Records != 0 || !s.Fingerprint.Unread || s.Fingerprint.SavedModelHash != 0 {
					t.Errorf("warmup %+v, fingerprint %+v; want both unread", s.Warmup, s.Fingerprint)
				}
			},
		},
		{
			name: "Triton config not captured", files: tritonFiles, held: map[string]int{"config.pbtxt": -1}, unread: []string{"config.pbtxt"},
			check: func(t *testing.T, m *Model) {
				tm := m.Triton
				if !tm.ConfigUnread || tm.Config != nil || tm.ModelFiles != nil || tm.ConfigFile != "config.pbtxt" {
					t.Errorf("triton %+v, want the config unread", tm)
				}
				if resident := m.Resident(); len(resident) != 1 || resident[0].ModelFile != "2/model.onnx" || len(m.ONNX) != 2 {
					t.Errorf("resident %+v, %d ONNX files; want version 2 as without a config", resident, len(m.ONNX))
				}
			},
		},
		{
			name: "ONNX captured in part", files: tritonFiles, held: map[string]int{"2/model.onnx": 64}, unread: []string{"2/model.onnx"},
			check: func(t *testing.T, m *Model) {
				if len(m.ONNX) != 1 || m.ONNX[0].Path != "1/model.onnx" {
					t.Errorf("ONNX %+v, want only version 1's", m.ONNX)
				}
			},
		},
		{
			name: "safetensors shard not captured", files: huggingFaceFiles, held: map[string]int{shard2: -1}, unread: []string{shard2},
			check: func(t *testing.T, m *Model) {
				if len(m.Safetensors) != 1 || m.Safetensors[0].Path != shard1 || m.WeightBytes != 0 {
					t.Errorf("safetensors %+v, %d weight bytes; want only %s, and weights unknown", m.Safetensors, m.WeightBytes, shard1)
				}
			},
		},
		{
			name: "safetensors header captured, data not", files: huggingFaceFiles, held: map[string]int{shard1: 8 + 72},
			check: func(t *testing.T, m *Model) {
				if len(m.Safetensors) != 2 || m.WeightBytes != 13264 {
					t.Errorf("safetensors %+v, %d weight bytes; a captured header is all a header read needs", m.Safetensors, m.WeightBytes)
				}
			},
		},
		{
			name: "safetensors index not captured", files: huggingFaceFiles, held: map[string]int{stIndex: -1}, unread: []string{stIndex},
			check: func(t *testing.T, m *Model) {
				if len(m.SafetensorsIndexes) != 0 || len(m.Safetensors) != 2 || m.WeightBytes != 0 {
					t.Errorf("indexes %+v, %d safetensors, %d weight bytes; want no index and weights unknown", m.SafetensorsIndexes,
						len(m.Safetensors), m.WeightBytes)
				}
			},
		},
		{
			name: "pickle and small file not captured", files: huggingFaceFiles, held: map[string]int{"model.pkl": 2, "config.json": -1},
			unread: []string{"config.json", "model.pkl"},
			check: func(t *testing.T, m *Model) {
				if len(m.Pickles) != 0 || m.WeightBytes != 13264 {
					t.Errorf("pickles %+v, %d weight bytes; want the pickle unscanned, the safetensors counted", m.Pickles, m.WeightBytes)
				}
			},
		},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			m, err := LoadFS(capturedFS{MapFS: mapFS(test.files(t)), held: test.held, err: errNotCaptured}, "m")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m.Unread, test.unread) {
				t.Errorf("unread = %v, want %v", m.Unread, test.unread)
			}
			for _, file := range m.Files {
				if want := slices.Contains(test.unread, file.Path); m.IsUnread(file.Path) != want {
					t.Errorf("IsUnread(%s) = %v, want %v", file.Path, !want, want)
				}
			}
			if found := claims(m); len(found) > 0 {
				t.Errorf("the model claims %v, which nothing read showed", found)
			}
			test.check(t, m)
		})
	}
}

// claims lists the problems a Model states as facts.
func claims(m *Model) []string {
	var found []string
	claim := func(problem bool, format string, args ...any) {
		if problem {
			found = append(found, fmt.Sprintf(format, args...))
		}
	}
	for _, file := range m.Files {
		claim(file.LFSPointer, "%s is an LFS pointer", file.Path)
	}
	saved := []*SavedModelDir{m.Loose}
	for _, version := range m.Versions {
		saved = append(saved, version.SavedModel)
	}
	for _, s := range saved {
		if s == nil {
			continue
		}
		claim(s.Empty || s.LFSPointer || s.TooLarge || s.ParseError != "", "%s is invalid", s.File)
		claim(len(s.Missing) > 0, "%s misses assets %v", s.Dir, s.Missing)
		claim(s.Variables.Error != "", "%s is invalid", s.Variables.Index)
		for _, shard := range s.Variables.Shards {
			claim(!shard.Present || shard.Size < shard.Need, "%s is missing or short", shard.File)
		}
		claim(s.Warmup != nil && (s.Warmup.Error != "" || s.Warmup.OverLimit), "%s warmup is invalid", s.Dir)
		claim(s.Fingerprint != nil && s.Fingerprint.Error != "", "%s fingerprint is invalid", s.Dir)
	}
	if tm := m.Triton; tm != nil {
		claim(tm.ConfigError != "" || len(tm.MissingSpecific) > 0, "config.pbtxt is invalid")
		for _, version := range m.Resident() {
			claim(version.ModelFile == "" && len(tm.ModelFiles) > 0, "version %s has no model file", version.Name)
		}
	}
	for _, file := range m.Safetensors {
		claim(file.Error != "", "%s is invalid", file.Path)
	}
	for _, index := range m.SafetensorsIndexes {
		claim(index.Error != "" || len(index.MissingShards) > 0 || index.MissingTensorCount > 0, "%s does not match", index.Path)
	}
	for _, file := range m.ONNX {
		claim(file.Error != "", "%s is invalid", file.Path)
		for _, external := range file.External {
			claim(external.Escapes || !external.Present || external.Size < external.Need, "%s lacks %s", file.Path, external.Location)
		}
	}
	for _, file := range m.Pickles {
		claim(file.Error != "", "%s is invalid", file.Path)
	}
	return found
}

func TestLoadFSErrors(t *testing.T) {
	denied := fs.ErrPermission
	tests := []struct {
		name string
		fsys fs.FS
		want error
		text string
	}{
		{"open fails", capturedFS{mapFS(tfServingFiles(t)), map[string]int{"00000123/saved_model.pb": -1}, denied}, denied,
			"m/00000123/saved_model.pb: permission denied"},
		{"read fails", capturedFS{mapFS(huggingFaceFiles(t)), map[string]int{"model-00002-of-00002.safetensors": 8}, denied}, denied,
			"m/model-00002-of-00002.safetensors: model-00002-of-00002.safetensors at byte 8: permission denied"},
		{"files read only from the start", streamFS{mapFS(tritonFiles(t))}, errors.ErrUnsupported,
			"m/1/model.onnx: unsupported operation: the file is neither an io.ReaderAt nor an io.Seeker"},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			_, err := LoadFS(test.fsys, "m")
			if !errors.Is(err, test.want) || err.Error() != test.text {
				t.Errorf("err = %v, want %q", err, test.text)
			}
		})
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	if unprivileged.Rerun(t) {
		return // root reads every file: checked as nobody
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{"1/saved_model.pb": "x"})
	if err := os.Chmod(filepath.Join(dir, "1", "saved_model.pb"), 0); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir, "m")
	if !errors.Is(err, fs.ErrPermission) || !strings.HasPrefix(err.Error(), "m/1/saved_model.pb:") {
		t.Fatalf("err = %v, want a permission error naming the file", err)
	}
}

func TestLoadFSLimits(t *testing.T) {
	defer func(limit int) { fileLimit = limit }(fileLimit)
	fileLimit = 3
	deep := strings.Repeat("d/", maxDepth+1) + "model.onnx"
	tests := map[string]struct {
		fsys fs.FS
		want string
	}{
		"too many files": {mapFS(map[string]string{"a.onnx": "", "b.onnx": "", "c.onnx": "", "d.onnx": ""}), "m: more than 3 files"},
		"too deep":       {mapFS(map[string]string{deep: ""}), fmt.Sprintf("m: directories nested deeper than %d", maxDepth)},
		"in .git only":   {mapFS(map[string]string{".git/a": "", ".git/b": "", ".git/c": "", ".git/d": "", "model.onnx": ""}), ""},
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := LoadFS(test.fsys, "m")
			if test.want == "" && err != nil || test.want != "" && (err == nil || !strings.HasPrefix(err.Error(), test.want)) {
				t.Errorf("err = %v, want %q", err, test.want)
			}
		})
	}
}

// noFollowFS is a MapFS whose Open does not follow links (a listing of
// tar headers may not), so files behind links must be opened by the
// names they resolve to.
type noFollowFS struct{ fstest.MapFS }

func (n noFollowFS) Open(name string) (fs.File, error) {
	for dir := name; dir != "."; dir = path.Dir(dir) {
		if file := n.MapFS[dir]; file != nil && file.Mode.Type() == fs.ModeSymlink {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
		}
	}
	return n.MapFS.Open(name)
}

var _ fs.ReadLinkFS = noFollowFS{}

func TestLoadFSSymlinks(t *testing.T) {
	fsys := mapFS(map[string]string{"real.onnx": "", "sub/data.bin": "1234", "store/v1/weights.bin": lfsPointer})
	links := map[string]string{
		"escape.safetensors": "/outside/blob",
		"up.bin":             "../outside/blob",
		"root":               "/",
		"dangling.bin":       "nothing",
		"loop":               ".",
		"sub/up":             "..",
		"alias.bin":          "sub/data.bin",
		"cycle-a.bin":        "cycle-b.bin",
		"cycle-b.bin":        "cycle-a.bin",
		"through-file":       "real.onnx/x",
		"model":              "store/./v1", // walked before store/, so listed here
	}
	for name, target := range links {
		fsys[name] = &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777}
	}
	m, err := LoadFS(noFollowFS{fsys}, "m")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, link := range m.Links {
		got = append(got, link.Path+" -> "+link.Target+dangling(link))
	}
	want := []string{"cycle-a.bin -> cycle-b.bin (dangling)", "cycle-b.bin -> cycle-a.bin (dangling)", "dangling.bin -> nothing (dangling)",
		"escape.safetensors -> /outside/blob", "root -> /", "through-file -> real.onnx/x (dangling)", "up.bin -> ../outside/blob"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links = %v, want %v", got, want)
	}
	var files []string
	for _, file := range m.Files {
		files = append(files, fmt.Sprintf("%s (%d bytes)", file.Path, file.Size))
	}
	wantFiles := []string{"alias.bin (4 bytes)", fmt.Sprintf("model/weights.bin (%d bytes)", len(lfsPointer)), "real.onnx (0 bytes)", "sub/data.bin (4 bytes)"}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Errorf("files = %v, want %v (links inside followed, loops and aliases once)", files, wantFiles)
	}
	if f := m.File("model/weights.bin"); f == nil || !f.LFSPointer {
		t.Errorf("model/weights.bin was not read through the link: %+v", f)
	}
}
