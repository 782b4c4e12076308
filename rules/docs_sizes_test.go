package rules_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/model/gguf"
	"github.com/modellint/modellint/lint/model/gguf/gguftest"
)

// sizeSuffix is a tree entry's size, NAME (27.5 GiB): the file is that
// big, its content (if any) followed by a hole, so an example can show a
// model of many GiB that the test writes as a sparse file.
var sizeSuffix = regexp.MustCompile(`^(.+) \(([0-9]+(?:\.[0-9]+)?) (B|KiB|MiB|GiB|TiB)\)$`)

var sizeUnits = map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}

// treeSize is a file's size as a tree entry states it: the bytes it
// stands for and how far they may be from it, half its last digit.
type treeSize struct {
	bytes, slack int64
}

// cutSize splits a tree entry written NAME (SIZE) into its name and size;
// sized says it had one.
func cutSize(entry string) (name string, size treeSize, sized bool, err error) {
	match := sizeSuffix.FindStringSubmatch(entry)
	if match == nil {
		return entry, treeSize{}, false, nil
	}
	name, number, unit := match[1], match[2], sizeUnits[match[3]]
	if strings.HasSuffix(name, "/") {
		return "", treeSize{}, false, fmt.Errorf("%q: a directory has no size", entry)
	}
	value, err := strconv.ParseFloat(number, 64)
	if err != nil {
		return "", treeSize{}, false, fmt.Errorf("%q: %w", entry, err)
	}
	_, fraction, _ := strings.Cut(number, ".")
	size = treeSize{bytes: int64(math.Round(value * unit)), slack: int64(unit / 2 / math.Pow10(len(fraction)))}
	return name, size, true, nil
}

// treeFile is the file a tree entry and its content stand for: a sized
// file is as long as its size says, or, a .safetensors file written by
// <<safetensors or a .gguf file written by <<gguf, as the header's
// tensors make it, which the size must round to; what its content does
// not fill is a hole.
func treeFile(entry, content string) (name, data string, size int64, err error) {
	name, stated, sized, err := cutSize(entry)
	if err != nil {
		return "", "", 0, err
	}
	data, size = content, int64(len(content))
	var headerSize int64
	var isHeader bool
	if header, ok := safetensorsHeader(name, content); ok {
		end, err := safetensorsDataEnd(header)
		if err != nil {
			return "", "", 0, fmt.Errorf("%s: %w", entry, err)
		}
		headerSize, isHeader = int64(len(data))+end, true
	} else if strings.HasSuffix(name, ".gguf") && strings.HasPrefix(content, "GGUF") {
		if headerSize, err = ggufSize([]byte(content)); err != nil {
			return "", "", 0, fmt.Errorf("%s: %w", entry, err)
		}
		isHeader = true
	}
	if isHeader {
		size = headerSize
		if sized && (size < stated.bytes-stated.slack || size > stated.bytes+stated.slack) {
			return "", "", 0, fmt.Errorf("%s: the header's tensors make the file %d bytes", entry, size)
		}
		return name, data, size, nil
	}
	if sized {
		if stated.bytes < size {
			return "", "", 0, fmt.Errorf("%s: its content is %d bytes, more than its size", entry, size)
		}
		size = stated.bytes
	}
	return name, data, size, nil
}

// safetensorsHeader is the JSON header of a .safetensors file that
// <<safetensors wrote (its 8-byte length, then the header, and no data).
func safetensorsHeader(name, content string) (string, bool) {
	if !strings.HasSuffix(name, ".safetensors") || len(content) < 9 || content[8] != '{' {
		return "", false
	}
	length := binary.LittleEndian.Uint64([]byte(content[:8]))
	return content[8:], length == uint64(len(content)-8)
}

// safetensorsDataEnd is where a safetensors header's tensor data ends.
func safetensorsDataEnd(header string) (int64, error) {
	var tensors map[string]json.RawMessage
	if err := json.Unmarshal([]byte(header), &tensors); err != nil {
		return 0, fmt.Errorf("the safetensors header is not JSON: %w", err)
	}
	end := int64(0)
	for name, raw := range tensors {
		if name == "__metadata__" {
			continue
		}
		var tensor struct {
			DataOffsets []int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(raw, &tensor); err != nil || len(tensor.DataOffsets) != 2 {
			return 0, fmt.Errorf("tensor %q has no data_offsets", name)
		}
		end = max(end, tensor.DataOffsets[1])
	}
	return end, nil
}

// ggufSize is the size of the GGUF file a header starts: the header and
// the tensor data it describes.
func ggufSize(header []byte) (int64, error) {
	file, err := gguf.Read(zerosAfter(header), math.MaxInt64)
	if err != nil {
		return 0, err
	}
	return max(file.Size, int64(len(header))), nil
}

// zerosAfter reads as data followed by zeros without end.
type zerosAfter []byte

func (z zerosAfter) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	if off < int64(len(z)) {
		n = copy(p, z[off:])
	}
	clear(p[n:])
	return len(p), nil
}

// writeTreeFile writes a tree's file entry to path (its name cut from the
// entry): its content, then a hole up to its size.
func writeTreeFile(path, content string, size int64) error {
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return err
	}
	if size > int64(len(content)) {
		return os.Truncate(path, size)
	}
	return nil
}

func TestTreeFile(t *testing.T) {
	header := `{"w": {"dtype": "BF16", "shape": [1073741824], "data_offsets": [0, 2147483648]}}`
	written := func(header string) string { // as <<safetensors writes it
		return string(binary.LittleEndian.AppendUint64(nil, uint64(len(header)))) + header
	}
	ggufBytes, _ := gguftest.File{Tensors: []gguftest.Tensor{{Name: "w", Dims: []uint64{1 << 29}, Type: gguftest.F16}}}.Header()
	ggufHeader := string(ggufBytes) // and 1 GiB of tensor data
	for _, test := range []struct {
		entry, content string
		name           string
		size           int64 // -1: an error
	}{
		{"models/m/config.json", "{}\n", "models/m/config.json", 3},
		{"models/m/w.bin (1.4 GiB)", "", "models/m/w.bin", 1503238554},
		{"models/m/w.bin (134 B)", "version https://git-lfs.github.com/spec/v1\n", "models/m/w.bin", 134},
		{"models/m/w.bin (2 B)", "longer\n", "", -1},
		{"models/m/ (2 GiB)", "", "", -1},
		{"models/m/model.safetensors (2.0 GiB)", written(header), "models/m/model.safetensors", 8 + int64(len(header)) + 2<<30},
		{"models/m/model.safetensors", written(header), "models/m/model.safetensors", 8 + int64(len(header)) + 2<<30},
		{"models/m/model.safetensors (2.1 GiB)", written(header), "", -1},
		{"models/m/model.safetensors (2 GiB)", written(`{"w": {}}`), "", -1},
		{"models/m/model.gguf (1.0 GiB)", ggufHeader, "models/m/model.gguf", int64(len(ggufHeader)) + 1<<30},
		{"models/m/model.gguf", ggufHeader, "models/m/model.gguf", int64(len(ggufHeader)) + 1<<30},
		{"models/m/model.gguf (1.1 GiB)", ggufHeader, "", -1},
	} {
		name, data, size, err := treeFile(test.entry, test.content)
		switch {
		case test.size < 0:
			if err == nil {
				t.Errorf("%s: no error", test.entry)
			}
		case err != nil:
			t.Errorf("%s: %v", test.entry, err)
		case name != test.name || size != test.size:
			t.Errorf("%s: got %s of %d bytes, want %s of %d", test.entry, name, size, test.name, test.size)
		case strings.HasSuffix(name, ".safetensors") && data[8:] != header:
			t.Errorf("%s: the file starts %q", test.entry, data)
		}
	}
}
