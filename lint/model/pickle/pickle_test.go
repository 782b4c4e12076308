package pickle

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/model/modelfile"
)

const models = "../../../testdata/models"

func scan(t testing.TB, data []byte) (*Scan, error) {
	t.Helper()
	return ScanFile(bytes.NewReader(data), int64(len(data)))
}

func TestRealFiles(t *testing.T) {
	tests := map[string][]string{
		// PyTorch zip: archive/data.pkl, protocol 2 GLOBALs.
		"candle/test.pt": {"collections.OrderedDict", "torch.LongStorage", "torch._utils._rebuild_tensor_v2"},
		// scikit-learn model, protocol 3.
		"kserve/model.pkl": {"numpy.core.multiarray._reconstruct", "numpy.core.multiarray.scalar", "numpy.dtype", "numpy.ndarray", "sklearn.svm.classes.SVC"},
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(models + "/" + name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := scan(t, data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Imports, want) || got.Incomplete != "" {
				t.Errorf("imports %v (incomplete %q), want %v", got.Imports, got.Incomplete, want)
			}
		})
	}
}

// Hand-assembled opcode streams, as pickletools.dis would show them.
var (
	// protocol 0: cposix\nsystem\n(S'id'\ntR.
	protocol0 = []byte("cposix\nsystem\n(S'id'\ntR.")
	// protocol 4: module and name pushed with SHORT_BINUNICODE, memoized,
	// fetched back with BINGET, then STACK_GLOBAL.
	protocol4 = []byte("\x80\x04\x95\x20\x00\x00\x00\x00\x00\x00\x00" +
		"\x8c\x0asubprocess\x94\x8c\x05Popen\x94" + // MEMOIZE 0, 1
		"h\x00h\x01\x93" + // BINGET 0, BINGET 1, STACK_GLOBAL
		"\x8c\x02ls\x85R.")
	// STACK_GLOBAL whose module is the result of a call: unresolvable.
	computed = []byte("\x80\x04cbuiltins\ngetattr\n\x8c\x01x\x93N\x85R.")
	// instance creation with INST.
	inst = []byte("(S'x'\nios\nsystem\n.")
)

func TestOpcodeStreams(t *testing.T) {
	tests := map[string]struct {
		input []byte
		want  []string
	}{
		"protocol 0 GLOBAL":           {protocol0, []string{"posix.system"}},
		"protocol 4 STACK_GLOBAL":     {protocol4, []string{"subprocess.Popen"}},
		"computed STACK_GLOBAL":       {computed, []string{"?.x", "builtins.getattr"}},
		"INST":                        {inst, []string{"os.system"}},
		"two pickles in one file":     {append(append([]byte(nil), protocol4...), protocol4...), []string{"subprocess.Popen"}},
		"big binary argument skipped": {binbytes8(5 << 20), []string{"numpy.frombuffer"}},
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := scan(t, test.input)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Imports, test.want) {
				t.Errorf("imports %v, want %v", got.Imports, test.want)
			}
		})
	}
}

// binbytes8 is a pickle whose BINBYTES8 argument is n bytes long.
func binbytes8(n int) []byte {
	out := []byte("\x80\x04cnumpy\nfrombuffer\n\x8e")
	out = binary.LittleEndian.AppendUint64(out, uint64(n))
	out = append(out, make([]byte, n)...)
	return append(out, "\x85R."...)
}

func TestLegacyTorchFile(t *testing.T) {
	// torch.save's legacy format: five pickles, then raw storage bytes
	// that are not opcodes.
	var data []byte
	data = append(data, torchMagic...)
	data = append(data, "\x80\x02M\xe9\x03."...) // protocol 1001
	data = append(data, "\x80\x02}q\x00."...)    // sys_info
	data = append(data, "\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00."...)
	data = append(data, "\x80\x02]q\x00."...)                           // storage keys
	data = append(data, bytes.Repeat([]byte{0xff, 0x00, 0x13}, 100)...) // storages
	got, err := scan(t, data)
	if err != nil || !reflect.DeepEqual(got.Imports, []string{"torch._utils._rebuild_tensor_v2"}) {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestZip(t *testing.T) {
	var buf bytes.Buffer
	archive := zip.NewWriter(&buf)
	for name, content := range map[string][]byte{"model/data.pkl": protocol0, "model/data/0": make([]byte, 64), "model/version": []byte("3\n")} {
		w, err := archive.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(content)
	}
	archive.Close()
	got, err := scan(t, buf.Bytes())
	if err != nil || !reflect.DeepEqual(got.Imports, []string{"posix.system"}) || !reflect.DeepEqual(got.Members, []string{"model/data.pkl"}) {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestInvalid(t *testing.T) {
	huge := []byte("\x80\x04\x8e")
	huge = binary.LittleEndian.AppendUint64(huge, 1<<62)
	tests := map[string]struct {
		input []byte
		want  string
	}{
		"no STOP":             {[]byte("\x80\x04N"), "no STOP"},
		"argument past end":   {huge, "past the end"},
		"unknown opcode":      {[]byte("\x80\x04\xff."), "unknown opcode"},
		"zip without pickles": {emptyZip(), "without a .pkl"},
		"cut text argument":   {[]byte("cos\nsys"), "truncated"},
	}
	for name, test := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := scan(t, test.input)
			if !errors.Is(err, modelfile.ErrInvalid) || !strings.Contains(err.Error(), test.want) {
				t.Fatalf("err = %v, want a modelfile.ErrInvalid mentioning %q", err, test.want)
			}
		})
	}
}

func TestPartialScanKeepsWhatWasFound(t *testing.T) {
	// joblib writes raw array bytes after the pickle opcodes that describe them.
	data := append([]byte("\x80\x04cjoblib.numpy_pickle\nNumpyArrayWrapper\n)\x81N"), 0x00, 0x0c, 0x13)
	got, err := scan(t, data)
	if err != nil || got.Incomplete == "" || !reflect.DeepEqual(got.Imports, []string{"joblib.numpy_pickle.NumpyArrayWrapper"}) {
		t.Fatalf("got %+v, %v; want the import and an incomplete scan", got, err)
	}
}

func emptyZip() []byte {
	var buf bytes.Buffer
	archive := zip.NewWriter(&buf)
	w, _ := archive.Create("weights.bin")
	w.Write([]byte{1, 2, 3})
	archive.Close()
	return buf.Bytes()
}

func FuzzScan(f *testing.F) {
	for _, name := range []string{"candle/test.pt", "kserve/model.pkl"} {
		if data, err := os.ReadFile(models + "/" + name); err == nil {
			f.Add(data)
		}
	}
	f.Add(protocol0)
	f.Add(protocol4)
	f.Add(computed)
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ScanFile(bytes.NewReader(data), int64(len(data)))
		if err != nil && !errors.Is(err, modelfile.ErrInvalid) {
			t.Fatalf("non-content error: %v", err)
		}
		if err == nil && got == nil {
			t.Fatal("nil scan without an error")
		}
	})
}
