// Package safetensors reads the header of a .safetensors file — an 8-byte
// little-endian length and a JSON table of tensors — and checks it the way
// the safetensors library does on load, so a file that would fail there
// fails here with the same error name. It streams the 8 + length bytes of
// the header, keeping a few words per tensor, and never reads the tensor
// data; the JSON index of sharded checkpoints (model.safetensors.index.json)
// is read too.
package safetensors

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modellint/modellint/lint/model/modelfile"
)

// MaxHeader is the safetensors library's MAX_HEADER_SIZE: a longer header
// is refused with HeaderTooLarge (it is also what a Git LFS pointer or a
// truncated download decodes to).
const MaxHeader = 100_000_000

// MaxIndex bounds the JSON index read into memory.
const MaxIndex = 64 << 20

// FormatName starts the text of the modelfile.Error values this package
// returns.
const FormatName = "invalid safetensors file"

// dtypeBits are the element sizes of the dtypes the format defines.
var dtypeBits = map[string]uint64{
	"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8,
	"I16": 16, "U16": 16, "F16": 16, "BF16": 16,
	"I32": 32, "U32": 32, "F32": 32,
	"I64": 64, "U64": 64, "F64": 64, "C64": 64,
	"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}

// File is what a safetensors header says.
type File struct {
	HeaderLength uint64
	// Tensors are the tensor names, sorted.
	Tensors []string
	// Parameters is the number of elements of all tensors.
	Parameters int64
	// ParameterBytes is the size of the data buffer the tensors span.
	ParameterBytes int64
	// DTypes are the dtypes used, sorted.
	DTypes []string
}

// tensorInfo is one header entry: {"dtype": "F16", "shape": [2, 3],
// "data_offsets": [0, 12]}. The lists are folded as they are read, so a
// shape of millions of entries costs no more than one of two.
type tensorInfo struct {
	DType       string
	Shape       shape
	DataOffsets numbers
}

// shape is a tensor's shape folded into its element count, with the
// first entry that is not a dimension or overflows the count.
type shape struct {
	elements uint64
	numbers
	// bad is the first entry that is not an unsigned integer ("" if none);
	// overflow says the count passed 2^64 before it.
	bad      string
	overflow bool
}

func (s *shape) add(number []byte) {
	s.numbers.add(number)
	if s.bad != "" || s.overflow {
		return
	}
	size, ok := parseUint(number)
	if !ok {
		s.bad = clip(string(number))
		return
	}
	hi, lo := bits.Mul64(s.elements, size)
	s.elements, s.overflow = lo, hi != 0
}

// numbers are a JSON list of numbers as written: the first few, to show,
// and how many there are.
type numbers struct {
	first []string
	count int
}

// shownNumbers is how many entries of a list an error message shows.
const shownNumbers = 8

func (n *numbers) add(number []byte) {
	if n.count < shownNumbers {
		n.first = append(n.first, clip(string(number)))
	}
	n.count++
}

// join writes the list as the messages show it, the first few entries
// and how many more there are.
func (n numbers) join(separator string) string {
	shown := strings.Join(n.first, separator)
	if more := n.count - len(n.first); more > 0 {
		shown += fmt.Sprintf("%s... %d more", separator, more)
	}
	return shown
}

// String is the shape as the messages write it: [2 3].
func (s shape) String() string { return "[" + s.join(" ") + "]" }

// parseUint is strconv.ParseUint(number, 10, 64) on the bytes as read.
func parseUint(number []byte) (uint64, bool) {
	if len(number) == 0 {
		return 0, false
	}
	var value uint64
	for _, c := range number {
		if c < '0' || c > '9' {
			return 0, false
		}
		hi, lo := bits.Mul64(value, 10)
		sum, carry := bits.Add64(lo, uint64(c-'0'), 0)
		if hi != 0 || carry != 0 {
			return 0, false
		}
		value = sum
	}
	return value, true
}

// maxShown bounds a name or number as an error message quotes it.
const maxShown = 200

// clip shortens what a header holds to what a message shows of it.
func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:cut], len(s))
}

// readTensor reads one header entry's object, refusing a field the
// library does not know (its serde struct denies unknown fields) and a
// missing one. A field given twice takes the later value.
func readTensor(decoder *jsontext.Decoder, name string) (tensorInfo, error) {
	var info tensorInfo
	fail := func(format string, args ...any) (tensorInfo, error) {
		return tensorInfo{}, invalid("InvalidHeaderDeserialization", "tensor %q: %s", clip(name), fmt.Sprintf(format, args...))
	}
	if kind := decoder.PeekKind(); kind != '{' {
		if err := decoder.SkipValue(); err != nil {
			return fail("%v", err)
		}
		return fail("want an object, got %s", kind)
	}
	if _, err := decoder.ReadToken(); err != nil {
		return fail("%v", err)
	}
	fields := []string{"dtype", "shape", "data_offsets"}
	seen := make([]bool, len(fields))
	for decoder.PeekKind() != '}' {
		token, err := decoder.ReadToken()
		if err != nil {
			return fail("%v", err)
		}
		field := token.String()
		switch field {
		case "dtype":
			value, err := decoder.ReadToken()
			if err != nil {
				return fail("%v", err)
			}
			if value.Kind() != '"' {
				return fail("dtype is %s, not a string", value.Kind())
			}
			info.DType = value.String()
		case "shape":
			info.Shape = shape{elements: 1}
			if err := readNumbers(decoder, info.Shape.add); err != nil {
				return fail("%s: %v", field, err)
			}
		case "data_offsets":
			info.DataOffsets = numbers{}
			if err := readNumbers(decoder, info.DataOffsets.add); err != nil {
				return fail("%s: %v", field, err)
			}
		default:
			return fail("unknown field %q", clip(field))
		}
		seen[slices.Index(fields, field)] = true
	}
	if _, err := decoder.ReadToken(); err != nil {
		return fail("%v", err)
	}
	for i, field := range fields {
		if !seen[i] {
			return fail("missing field %s", field)
		}
	}
	return info, nil
}

// readNumbers reads an array of numbers, passing each as written to add.
func readNumbers(decoder *jsontext.Decoder, add func(number []byte)) error {
	token, err := decoder.ReadToken()
	if err != nil {
		return err
	}
	if token.Kind() != '[' {
		return fmt.Errorf("%s, not a list", token.Kind())
	}
	for decoder.PeekKind() != ']' {
		if kind := decoder.PeekKind(); kind != '0' {
			if _, err := decoder.ReadToken(); err != nil {
				return err
			}
			return fmt.Errorf("holds %s, not a number", kind)
		}
		// A number as a raw value is a view of the decoder's buffer: no
		// copy is made of the millions a hostile list may hold.
		number, err := decoder.ReadValue()
		if err != nil {
			return err
		}
		add(number)
	}
	_, err = decoder.ReadToken()
	return err
}

// readMetadata checks that __metadata__ maps strings to strings (or is
// null), as the library's Option<HashMap<String, String>> does, without
// holding it: no rule reads it.
func readMetadata(decoder *jsontext.Decoder) error {
	fail := func(format string, args ...any) error {
		return invalid("InvalidHeaderDeserialization", "__metadata__ must map strings to strings: %s", fmt.Sprintf(format, args...))
	}
	switch kind := decoder.PeekKind(); kind {
	case 'n', '{':
		if _, err := decoder.ReadToken(); err != nil {
			return fail("%v", err)
		}
		if kind == 'n' {
			return nil
		}
	default:
		if err := decoder.SkipValue(); err != nil {
			return fail("%v", err)
		}
		return fail("it is %s, not an object", kind)
	}
	for decoder.PeekKind() != '}' {
		if err := decoder.SkipValue(); err != nil { // the key, a string
			return fail("%v", err)
		}
		if kind := decoder.PeekKind(); kind != '"' {
			if err := decoder.SkipValue(); err != nil {
				return fail("%v", err)
			}
			return fail("a value is %s, not a string", kind)
		}
		if err := decoder.SkipValue(); err != nil {
			return fail("%v", err)
		}
	}
	if _, err := decoder.ReadToken(); err != nil {
		return fail("%v", err)
	}
	return nil
}

// Read checks the header of a file of size bytes. When the header itself
// is sound but the file's size does not match it (MetadataIncompleteBuffer),
// the header's facts are returned with the error.
func Read(r io.ReaderAt, size int64) (*File, error) {
	if size < 8 {
		return nil, invalid("HeaderTooSmall", "the file is %d bytes, fewer than the 8-byte header length", size)
	}
	var prefix [8]byte
	if _, err := io.ReadFull(io.NewSectionReader(r, 0, int64(len(prefix[:]))), prefix[:]); err != nil {
		return nil, err
	}
	length := binary.LittleEndian.Uint64(prefix[:])
	if length > MaxHeader {
		return nil, invalid("HeaderTooLarge", "the header length is %d bytes, more than the %d the library accepts (a Git LFS pointer or a truncated download?)", length, MaxHeader)
	}
	if length > uint64(size-8) {
		return nil, invalid("InvalidHeaderLength", "the header length is %d bytes but the file has only %d after it (truncated file?)", length, size-8)
	}
	header := io.NewSectionReader(r, 8, int64(length))
	if length <= headerBuffer {
		// A header of a few KiB is read at once rather than in the
		// passes below, each a read of the file.
		data := make([]byte, length)
		if _, err := io.ReadFull(header, data); err != nil {
			return nil, err
		}
		header = io.NewSectionReader(bytes.NewReader(data), 0, int64(length))
	}
	file, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	file.HeaderLength = length
	if end := 8 + int64(length) + file.ParameterBytes; end != size {
		return file, invalid("MetadataIncompleteBuffer", "the header describes %d bytes of tensor data, so the file should be %d bytes, but it is %d (truncated or padded file?)", file.ParameterBytes, end, size)
	}
	return file, nil
}

// span is one tensor's place in the data buffer; dtype indexes dtypeNames.
type span struct {
	name       string
	begin, end uint64
	dtype      uint8
}

// dtypeNames are dtypeBits' keys, sorted, so a span keeps its dtype in a byte.
var dtypeNames = slices.Sorted(maps.Keys(dtypeBits))

// headerBuffer is how much of the header is read at a time: a header may
// be as long as MaxHeader, so it is streamed rather than held.
const headerBuffer = 1 << 20

// parseHeader decodes the JSON header one tensor at a time, keeping what
// each says in a few machine words.
func parseHeader(header *io.SectionReader) (*File, error) {
	// Most headers are a few KiB: the buffers are no larger than the header.
	bufferSize := int(min(header.Size(), headerBuffer))
	valid, err := validUTF8(io.NewSectionReader(header, 0, header.Size()), bufferSize)
	if err != nil {
		return nil, err
	}
	if !valid {
		return nil, invalid("InvalidHeader", "the header is not UTF-8")
	}
	var first [1]byte
	if header.Size() == 0 {
		return nil, invalid("InvalidHeaderStart", "the header does not start with '{'")
	}
	if _, err := header.ReadAt(first[:], 0); err != nil {
		return nil, err
	}
	if first[0] != '{' {
		return nil, invalid("InvalidHeaderStart", "the header does not start with '{'")
	}
	guard := &tokenGuard{r: io.NewSectionReader(header, 0, header.Size())}
	decoder := jsontext.NewDecoder(bufio.NewReaderSize(guard, bufferSize),
		// Names are not tracked for duplicates: a million of them would
		// be held at once, and a repeated one is handled below.
		jsontext.AllowDuplicateNames(true))
	spans, err := readEntries(decoder, header.Size())
	if guard.err != nil {
		// The decoder stopped at the token too long to hold, whatever it
		// made of the cut input.
		return nil, guard.err
	}
	if err != nil {
		return nil, err
	}
	end := decoder.InputOffset()
	if rest, err := trailing(io.NewSectionReader(header, end, header.Size()-end)); err != nil {
		return nil, err
	} else if rest > 0 {
		return nil, invalid("InvalidHeaderDeserialization", "%d bytes of non-space after the JSON header", rest)
	}
	return summarize(spans)
}

// minEntry is the fewest bytes a tensor entry takes in a header,
// "":{"dtype":"U8","shape":[],"data_offsets":[0,1]} and a comma, so a
// header of n bytes lists at most n/minEntry tensors.
const minEntry = 50

// readEntries decodes the header's entries, checking each tensor's on its
// own, and returns the tensors' spans in the order listed.
func readEntries(decoder *jsontext.Decoder, size int64) ([]span, error) {
	if _, err := decoder.ReadToken(); err != nil {
		return nil, invalid("InvalidHeaderDeserialization", "%v", err)
	}
	// Sized once for the most entries the header can hold rather than
	// grown by copying: the pages of the part left unused are never touched.
	spans := make([]span, 0, size/minEntry+1)
	for decoder.PeekKind() != '}' {
		token, err := decoder.ReadToken()
		if err != nil {
			return nil, invalid("InvalidHeaderDeserialization", "%v", err)
		}
		name := token.String()
		if name == "__metadata__" {
			if err := readMetadata(decoder); err != nil {
				return nil, err
			}
			continue
		}
		info, err := readTensor(decoder, name)
		if err != nil {
			return nil, err
		}
		tensor, err := check(name, info)
		if err != nil {
			return nil, err
		}
		spans = append(spans, tensor)
	}
	if _, err := decoder.ReadToken(); err != nil {
		return nil, invalid("InvalidHeaderDeserialization", "%v", err)
	}
	return spans, nil
}

// summarize checks the tensors together, as the library does, and counts
// their parameters.
func summarize(spans []span) (*File, error) {
	file := &File{}
	// A name listed twice is one tensor, the later entry's, as when the
	// library reads the header into a map.
	slices.SortStableFunc(spans, func(a, b span) int { return strings.Compare(a.name, b.name) })
	kept := spans[:0]
	for i, s := range spans {
		if i+1 < len(spans) && spans[i+1].name == s.name {
			continue
		}
		kept = append(kept, s)
	}
	spans = kept
	file.Tensors = make([]string, len(spans))
	var dtypes [256]bool
	for i, s := range spans {
		file.Tensors[i] = s.name
		dtypes[s.dtype] = true
		file.Parameters += int64((s.end - s.begin) * 8 / dtypeBits[dtypeNames[s.dtype]])
		if file.Parameters < 0 {
			return nil, invalid("ValidationOverflow", "more than 2^63 parameters")
		}
	}
	for i, name := range dtypeNames {
		if dtypes[i] {
			file.DTypes = append(file.DTypes, name)
		}
	}
	// The library requires the tensors, sorted by offset, to tile the data
	// buffer from 0 without gaps or overlaps.
	slices.SortFunc(spans, func(a, b span) int {
		if a.begin != b.begin {
			return cmp.Compare(a.begin, b.begin)
		}
		return strings.Compare(a.name, b.name)
	})
	next := uint64(0)
	for _, s := range spans {
		if s.begin != next {
			return nil, invalid("InvalidOffset", "tensor %q starts at byte %d of the data buffer, expected %d (a gap or an overlap)", clip(s.name), s.begin, next)
		}
		next = s.end
	}
	if next > math.MaxInt64 {
		return nil, invalid("ValidationOverflow", "the data buffer is larger than 2^63 bytes")
	}
	file.ParameterBytes = int64(next)
	return file, nil
}

// MaxToken bounds one string or number of a header. Real tensor names are
// a few hundred bytes and metadata values at most a few MB; the library
// would take one of nearly MaxHeader, which held by the JSON decoder, which
// needs a token whole, and copied would cost several times that.
const MaxToken = 16 << 20

// tokenGuard passes the header through, failing the read once a string
// or another token runs longer than MaxToken, before the decoder buffers it.
type tokenGuard struct {
	r        io.Reader
	inString bool
	escaped  bool
	run      int
	err      error
}

func (g *tokenGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	for _, c := range p[:n] {
		switch {
		case g.escaped:
			g.escaped = false
		case g.inString && c == '\\':
			g.escaped = true
		case c == '"':
			g.inString = !g.inString
			g.run = 0
		case !g.inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' ||
			c == '{' || c == '}' || c == '[' || c == ']'):
			g.run = 0
			continue
		}
		g.run++
		if g.run > MaxToken {
			g.err = fmt.Errorf("the header holds a string or number longer than the %d MiB modellint reads (real tensor names and metadata are far shorter)", MaxToken>>20)
			return 0, g.err
		}
	}
	return n, err
}

// check validates one tensor entry as the library does.
func check(name string, info tensorInfo) (span, error) {
	shown := clip(name)
	bitsPerElement, ok := dtypeBits[info.DType]
	if !ok {
		return span{}, invalid("InvalidHeaderDeserialization", "tensor %q has unknown dtype %q", shown, clip(info.DType))
	}
	if info.Shape.bad != "" {
		return span{}, invalid("InvalidHeaderDeserialization", "tensor %q has shape entry %s", shown, info.Shape.bad)
	}
	if info.Shape.overflow {
		return span{}, invalid("ValidationOverflow", "tensor %q has more elements than fit in 64 bits", shown)
	}
	elements := info.Shape.elements
	hi, totalBits := bits.Mul64(elements, bitsPerElement)
	if hi != 0 || elements > math.MaxInt64 {
		return span{}, invalid("ValidationOverflow", "tensor %q is larger than 2^64 bits", shown)
	}
	if totalBits%8 != 0 {
		return span{}, invalid("MisalignedSlice", "tensor %q (%s %v) is %d bits, not a whole number of bytes", shown, info.DType, info.Shape, totalBits)
	}
	offsets := info.DataOffsets
	if offsets.count != 2 {
		return span{}, invalid("InvalidOffset", "tensor %q has data_offsets [%s], not [begin, end]", shown, offsets.join(", "))
	}
	begin, ok1 := parseUint([]byte(offsets.first[0]))
	end, ok2 := parseUint([]byte(offsets.first[1]))
	if !ok1 || !ok2 || begin > end {
		return span{}, invalid("InvalidOffset", "tensor %q has data_offsets [%s, %s]", shown, offsets.first[0], offsets.first[1])
	}
	if end-begin != totalBits/8 {
		return span{}, invalid("TensorInvalidInfo", "tensor %q is %s %v, %d bytes, but its data_offsets span %d bytes", shown, info.DType, info.Shape, totalBits/8, end-begin)
	}
	dtype, _ := slices.BinarySearch(dtypeNames, info.DType)
	return span{name: name, begin: begin, end: end, dtype: uint8(dtype)}, nil
}

// validUTF8 reports whether r's bytes are UTF-8, read a buffer at a time.
func validUTF8(r io.Reader, size int) (bool, error) {
	buffer := make([]byte, max(size, 2*utf8.UTFMax))
	carry := 0 // bytes of a rune cut by the end of the last read
	for {
		n, err := io.ReadFull(r, buffer[carry:])
		chunk := buffer[:carry+n]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return utf8.Valid(chunk), nil
		}
		if err != nil {
			return false, err
		}
		cut := len(chunk)
		for back := 1; back <= utf8.UTFMax && back <= len(chunk); back++ {
			if utf8.RuneStart(chunk[len(chunk)-back]) {
				if !utf8.FullRune(chunk[len(chunk)-back:]) {
					cut = len(chunk) - back
				}
				break
			}
		}
		if !utf8.Valid(chunk[:cut]) {
			return false, nil
		}
		carry = copy(buffer, chunk[cut:])
	}
}

// trailing counts the bytes after the JSON header up to its last
// non-space: the library allows only spaces there (writers pad with them).
func trailing(r io.Reader) (int, error) {
	buffer := make([]byte, 512)
	read, last := 0, 0
	for {
		n, err := r.Read(buffer)
		for i, c := range buffer[:n] {
			if c != ' ' {
				last = read + i + 1
			}
		}
		read += n
		if err == io.EOF {
			return last, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// Index is a sharded checkpoint's model.safetensors.index.json.
type Index struct {
	// TotalSize is metadata.total_size, -1 when absent.
	TotalSize int64
	// WeightMap maps each tensor to the shard file holding it.
	WeightMap map[string]string
}

// Shards are the distinct shard files the index names, sorted.
func (index *Index) Shards() []string {
	set := map[string]bool{}
	for _, shard := range index.WeightMap {
		set[shard] = true
	}
	shards := make([]string, 0, len(set))
	for shard := range set {
		shards = append(shards, shard)
	}
	sort.Strings(shards)
	return shards
}

// ReadIndex parses an index file's contents.
func ReadIndex(data []byte) (*Index, error) {
	var raw struct {
		Metadata  map[string]json.RawMessage `json:"metadata"`
		WeightMap map[string]string          `json:"weight_map"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, modelfile.Invalidf(FormatName, "index: %v", err)
	}
	if raw.WeightMap == nil {
		return nil, modelfile.Invalidf(FormatName, "index has no weight_map")
	}
	index := &Index{TotalSize: -1, WeightMap: raw.WeightMap}
	if total, ok := raw.Metadata["total_size"]; ok {
		// Writers differ (an integer, sometimes a float); any number will do.
		value, err := strconv.ParseFloat(string(bytes.TrimSpace(total)), 64)
		if err == nil && value >= 0 && value < math.MaxInt64 {
			index.TotalSize = int64(value)
		}
	}
	return index, nil
}

func invalid(name, format string, args ...any) error {
	return modelfile.Invalidf(FormatName, "%s: %s", name, fmt.Sprintf(format, args...))
}
