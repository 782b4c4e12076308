// Package pickle lists what a Python pickle imports — the GLOBAL, INST and
// STACK_GLOBAL opcodes that make the unpickler import a module attribute
// and, usually, call it — by walking the opcode stream. Nothing is ever
// executed or unpickled. PyTorch files (.pt, .pth, .bin) are zip archives
// whose data.pkl is scanned, or, in the legacy format, a few pickles in a
// row followed by raw tensor data.
package pickle

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint/model/modelfile"
)

// Limits that keep a hostile stream from making the scanner hold much.
const (
	maxLine    = 4 << 10 // text arguments (protocol 0)
	maxString  = 1 << 10 // strings kept for STACK_GLOBAL; longer ones are skipped
	maxStack   = 1 << 20
	maxMemo    = 1 << 20
	maxStreams = 16
	// MaxMember bounds a pickle inside a zip archive that is scanned.
	MaxMember = 256 << 20
)

// FormatName starts the text of the modelfile.Error values this package
// returns.
const FormatName = "not a valid pickle"

// Unknown stands for a module or name that the scanner could not resolve
// (built at run time by the pickle): as suspicious as a known bad import.
const Unknown = "?"

// Scan is what a pickle-based file imports.
type Scan struct {
	// Imports are "module.name" (module and name joined by a dot), sorted
	// and unique; Unknown parts are written as "?".
	Imports []string
	// Members are the archive members scanned, for zip-based files.
	Members []string
	// Incomplete says why part of the file could not be scanned ("" when
	// everything was).
	Incomplete string
}

// torchMagic starts a legacy torch.save file: the pickled magic number.
var torchMagic = []byte{0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, '.'}

// legacyTorchPickles is how many pickles a legacy torch.save file holds
// before its raw storages: magic, protocol, sys_info, the object, storage keys.
const legacyTorchPickles = 5

// ScanFile scans a pickle-based file of size bytes: a zip archive (PyTorch),
// a legacy torch.save file, or plain pickles.
func ScanFile(r io.ReaderAt, size int64) (*Scan, error) {
	head := make([]byte, len(torchMagic))
	n, err := r.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	head = head[:n]
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")) {
		return scanZip(r, size)
	}
	streams := maxStreams
	if bytes.Equal(head, torchMagic) {
		streams = legacyTorchPickles
	}
	scan := &Scan{}
	imports := map[string]bool{}
	err = scanStreams(r, size, streams, imports)
	scan.Imports = slices.Sorted(maps.Keys(imports))
	if err != nil {
		if len(imports) == 0 || !errors.Is(err, modelfile.ErrInvalid) {
			return nil, err
		}
		scan.Incomplete = err.Error()
	}
	return scan, nil
}

// scanZip scans every .pkl member of an archive (PyTorch writes
// <name>/data.pkl; some tools add more).
func scanZip(r io.ReaderAt, size int64) (*Scan, error) {
	archive, err := zip.NewReader(r, size)
	if err != nil {
		return nil, modelfile.Invalidf(FormatName, "zip archive: %v", err)
	}
	scan := &Scan{}
	imports := map[string]bool{}
	var incomplete []string
	for _, member := range archive.File {
		if path.Ext(member.Name) != ".pkl" {
			continue
		}
		if member.UncompressedSize64 > MaxMember {
			incomplete = append(incomplete, fmt.Sprintf("%s is %d bytes, more than the %d scanned", member.Name, member.UncompressedSize64, MaxMember))
			continue
		}
		reader, err := member.Open()
		if err != nil {
			incomplete = append(incomplete, fmt.Sprintf("%s: %v", member.Name, err))
			continue
		}
		data, err := io.ReadAll(io.LimitReader(reader, MaxMember+1))
		reader.Close()
		if err != nil {
			incomplete = append(incomplete, fmt.Sprintf("%s: %v", member.Name, err))
			continue
		}
		scan.Members = append(scan.Members, member.Name)
		if err := scanStreams(bytes.NewReader(data), int64(len(data)), 1, imports); err != nil {
			incomplete = append(incomplete, fmt.Sprintf("%s: %v", member.Name, err))
		}
	}
	if len(scan.Members) == 0 && len(incomplete) == 0 {
		return nil, modelfile.Invalidf(FormatName, "zip archive without a .pkl member")
	}
	scan.Imports = slices.Sorted(maps.Keys(imports))
	scan.Incomplete = strings.Join(incomplete, "; ")
	sort.Strings(scan.Members)
	return scan, nil
}

// scanStreams scans up to streams pickles in a row, stopping at the end of
// the data or at bytes that do not start a pickle.
func scanStreams(r io.ReaderAt, size int64, streams int, imports map[string]bool) error {
	c := newCountingReader(r, size)
	for i := 0; i < streams && c.n < size; i++ {
		if i > 0 {
			next, err := c.buf.Peek(1)
			if err != nil || next[0] != proto {
				return nil // trailing data that is not a pickle (tensor storages)
			}
		}
		if err := scanStream(c, size, imports); err != nil {
			return err
		}
	}
	return nil
}

// countingReader reads a stream through a buffer and knows its offset, so
// that large arguments (tensor bytes) are skipped by seeking, not read.
type countingReader struct {
	src *io.SectionReader
	buf *bufio.Reader
	n   int64
}

func newCountingReader(r io.ReaderAt, size int64) *countingReader {
	src := io.NewSectionReader(r, 0, size)
	return &countingReader{src: src, buf: bufio.NewReaderSize(src, 64<<10)}
}

func (c *countingReader) byte() (byte, error) {
	b, err := c.buf.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

func (c *countingReader) read(n int) ([]byte, error) {
	b := make([]byte, n)
	m, err := io.ReadFull(c.buf, b)
	c.n += int64(m)
	return b, err
}

// skip passes over n bytes, which must exist before size.
func (c *countingReader) skip(n uint64, size int64) error {
	if n > uint64(size-c.n) {
		return invalid(c.n, "argument of %d bytes reaches past the end", n)
	}
	if n <= uint64(c.buf.Buffered()) {
		m, err := c.buf.Discard(int(n))
		c.n += int64(m)
		return err
	}
	c.n += int64(n)
	if _, err := c.src.Seek(c.n, io.SeekStart); err != nil {
		return err
	}
	c.buf.Reset(c.src)
	return nil
}

func (c *countingReader) line(size int64) (string, error) {
	var out []byte
	for {
		b, err := c.byte()
		if err != nil {
			return "", truncated(c.n, err)
		}
		if b == '\n' {
			return string(out), nil
		}
		if len(out) == maxLine {
			return "", invalid(c.n, "text argument longer than %d bytes", maxLine)
		}
		out = append(out, b)
	}
}

// value is what the scanner knows about a stack entry: a string (when
// known), something else, or a MARK.
type value struct {
	text   string
	isText bool
	mark   bool
}

// Opcodes (Python's Lib/pickletools.py).
const (
	proto = 0x80
)

func scanStream(c *countingReader, size int64, imports map[string]bool) error {
	var stack []value
	memo := map[uint64]value{}
	push := func(v value) error {
		if len(stack) == maxStack {
			return invalid(c.n, "stack deeper than %d", maxStack)
		}
		stack = append(stack, v)
		return nil
	}
	pop := func(n int) {
		if n > len(stack) {
			n = len(stack)
		}
		stack = stack[:len(stack)-n]
	}
	popMark := func() {
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.mark {
				return
			}
		}
	}
	top := func() value {
		if len(stack) == 0 {
			return value{}
		}
		return stack[len(stack)-1]
	}
	remember := func(key uint64) error {
		if _, ok := memo[key]; !ok && len(memo) == maxMemo {
			return invalid(c.n, "memo larger than %d", maxMemo)
		}
		memo[key] = top()
		return nil
	}
	other := value{}
	text := func(n uint64) error {
		if n > maxString {
			if err := c.skip(n, size); err != nil {
				return err
			}
			return push(other)
		}
		if n > uint64(size-c.n) {
			return invalid(c.n, "string of %d bytes reaches past the end", n)
		}
		b, err := c.read(int(n))
		if err != nil {
			return truncated(c.n, err)
		}
		return push(value{text: string(b), isText: true})
	}
	for {
		if c.n >= size {
			return invalid(c.n, "no STOP opcode (truncated file?)")
		}
		op, err := c.byte()
		if err != nil {
			return truncated(c.n, err)
		}
		var arg []byte
		if width := fixedArg[op]; width > 0 {
			if arg, err = c.read(width); err != nil {
				return truncated(c.n, err)
			}
		}
		switch op {
		case '.': // STOP
			return nil
		case '(': // MARK
			err = push(value{mark: true})
		case '0': // POP
			pop(1)
		case '1': // POP_MARK
			popMark()
		case '2': // DUP
			err = push(top())
		case 'F', 'I', 'L', 'P': // FLOAT, INT, LONG, PERSID: a text line
			if _, err = c.line(size); err == nil {
				err = push(other)
			}
		case 'S', 'V': // STRING, UNICODE: a text line
			var line string
			if line, err = c.line(size); err == nil {
				err = push(value{text: strings.Trim(line, `'"`), isText: true})
			}
		case 'g': // GET
			var line string
			if line, err = c.line(size); err == nil {
				err = push(memo[hashLine(line)])
			}
		case 'p': // PUT
			var line string
			if line, err = c.line(size); err == nil {
				err = remember(hashLine(line))
			}
		case 'c', 'i': // GLOBAL, INST: module and name lines
			var module, name string
			if module, err = c.line(size); err == nil {
				if name, err = c.line(size); err == nil {
					imports[module+"."+name] = true
					if op == 'i' {
						popMark()
					}
					err = push(other)
				}
			}
		case 0x93: // STACK_GLOBAL
			name, module := value{}, value{}
			if len(stack) > 0 {
				name = stack[len(stack)-1]
			}
			if len(stack) > 1 {
				module = stack[len(stack)-2]
			}
			pop(2)
			imports[textOr(module)+"."+textOr(name)] = true
			err = push(other)
		case 'J', 'K', 'M', 'N', 'G', 0x88, 0x89, 0x82, 0x83, 0x84, '}', ']', ')', 0x8f, 0x97:
			err = push(other) // numbers, constants, extension codes, empty containers, buffers
		case 'h', 'j': // BINGET, LONG_BINGET
			err = push(memo[littleEndian(arg)])
		case 'q', 'r': // BINPUT, LONG_BINPUT
			err = remember(littleEndian(arg))
		case 0x94: // MEMOIZE
			err = remember(uint64(len(memo)))
		case 'U', 'C': // SHORT_BINSTRING, SHORT_BINBYTES
			err = sized(c, size, 1, op == 'U', text, push)
		case 0x8c: // SHORT_BINUNICODE
			err = sized(c, size, 1, true, text, push)
		case 'T', 'X', 'B': // BINSTRING, BINUNICODE, BINBYTES
			err = sized(c, size, 4, op != 'B', text, push)
		case 0x8d: // BINUNICODE8
			err = sized(c, size, 8, true, text, push)
		case 0x8e, 0x96: // BINBYTES8, BYTEARRAY8
			err = sized(c, size, 8, false, text, push)
		case 0x8a, 0x8b: // LONG1, LONG4
			width := 1
			if op == 0x8b {
				width = 4
			}
			err = sized(c, size, width, false, text, push)
		case 'R', 0x81: // REDUCE, NEWOBJ: callable and args -> object
			pop(2)
			err = push(other)
		case 0x92: // NEWOBJ_EX
			pop(3)
			err = push(other)
		case 'Q': // BINPERSID
			pop(1)
			err = push(other)
		case 'b', 'a': // BUILD, APPEND
			pop(1)
		case 's': // SETITEM
			pop(2)
		case 'e', 'u', 0x90: // APPENDS, SETITEMS, ADDITEMS
			popMark()
		case 't', 'l', 'd', 'o', 0x91: // TUPLE, LIST, DICT, OBJ, FROZENSET
			popMark()
			err = push(other)
		case 0x85, 0x86, 0x87: // TUPLE1..3
			pop(int(op - 0x84))
			err = push(other)
		case 0x95: // FRAME: the unpickler reads the whole frame first
			if length := littleEndian(arg); length > uint64(size-c.n) {
				return invalid(c.n-9, "FRAME of %d bytes reaches past the end (%d bytes left)", length, size-c.n)
			}
		case proto, 0x98: // PROTO (argument read above), READONLY_BUFFER
		default:
			return invalid(c.n-1, "unknown opcode %#x", op)
		}
		if err != nil {
			return err
		}
	}
}

// fixedArg is the width of opcodes' fixed-size arguments.
var fixedArg = [256]int{
	'J': 4, 'K': 1, 'M': 2, 'G': 8, 'h': 1, 'j': 4, 'q': 1, 'r': 4,
	proto: 1, 0x82: 1, 0x83: 2, 0x84: 4, 0x95: 8,
}

// sized reads a length of width bytes and then that many bytes, kept as a
// string when asText (for STACK_GLOBAL) and skipped otherwise.
func sized(c *countingReader, size int64, width int, asText bool, text func(uint64) error, push func(value) error) error {
	b, err := c.read(width)
	if err != nil {
		return truncated(c.n, err)
	}
	n := littleEndian(b)
	if width == 4 && int32(n) < 0 {
		return invalid(c.n, "negative length")
	}
	if asText {
		return text(n)
	}
	if err := c.skip(n, size); err != nil {
		return err
	}
	return push(value{})
}

func littleEndian(b []byte) uint64 {
	var full [8]byte
	copy(full[:], b)
	return binary.LittleEndian.Uint64(full[:])
}

// hashLine turns a protocol-0 memo key into a memo index; keys are
// decimal text, and distinct text must stay distinct.
func hashLine(line string) uint64 {
	h := uint64(1469598103934665603)
	for i := 0; i < len(line); i++ {
		h = (h ^ uint64(line[i])) * 1099511628211
	}
	return h | 1<<63
}

func textOr(v value) string {
	if v.isText && v.text != "" && !strings.ContainsAny(v.text, "\n\x00") {
		return v.text
	}
	return Unknown
}

func invalid(off int64, format string, args ...any) error {
	return modelfile.InvalidAt(FormatName, int64(off), "%s", fmt.Sprintf(format, args...))
}

func truncated(off int64, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return invalid(off, "ends in the middle of an opcode (truncated file?)")
	}
	return err
}
