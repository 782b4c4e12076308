package elfinfo

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Limits that keep a hostile file from making the parser allocate or loop
// without bound. Real binaries stay far below them.
const (
	maxProgramHeaders = 256
	maxInterpLength   = 4096
	maxDynamicSize    = 1 << 20
	maxStringTable    = 64 << 20
	maxVersionEntries = 4096
	versionWindow     = 256 << 10 // bytes read from the start of a version table
)

// Info is what the loader will ask of one ELF file.
type Info struct {
	Class   elf.Class
	Machine elf.Machine
	Type    elf.Type
	// Interp is PT_INTERP, the loader path; empty for static binaries.
	Interp string
	// Dynamic says the file has a PT_DYNAMIC segment.
	Dynamic bool
	Needed  []string // DT_NEEDED sonames, in order
	Soname  string   // DT_SONAME
	RPath   []string // DT_RPATH, colon-split
	RunPath []string // DT_RUNPATH, colon-split
	// VersionNeeds are the symbol versions required per library
	// (.gnu.version_r), e.g. libc.so.6 → GLIBC_2.34.
	VersionNeeds []VersionNeed
	// VersionDefs are the versions this file defines (.gnu.version_d),
	// e.g. GLIBC_2.2.5 … GLIBC_2.36 for libc.so.6; the base entry (the
	// soname itself) is left out.
	VersionDefs []string
}

// VersionNeed is one library's entry of the version-needs table.
type VersionNeed struct {
	File     string
	Versions []string
}

// ErrNotELF means the file does not start with the ELF magic.
var ErrNotELF = errors.New("not an ELF file")

// IsELF reports whether a file's first bytes are the ELF magic.
func IsELF(prefix []byte) bool { return bytes.HasPrefix(prefix, []byte(elf.ELFMAG)) }

// layout is what the program headers say about the file.
type layout struct {
	class   elf.Class
	order   binary.ByteOrder
	header  elf.FileHeader
	loads   []elf.ProgHeader
	interp  *elf.ProgHeader
	dynamic *elf.ProgHeader
}

// Parse reads an ELF file's loader facts from r, which holds the file's
// bytes or some of them. When bytes it needs were not captured the error is
// a *MissingError naming them (errors.Is(err, ErrMissing)); Wanted says up
// front which ranges to capture.
func Parse(r *Sparse) (*Info, error) {
	l, err := readLayout(r)
	if err != nil {
		return nil, err
	}
	info := &Info{Class: l.class, Machine: l.header.Machine, Type: l.header.Type}
	if l.interp != nil {
		data, err := readRange(r, int64(l.interp.Off), int64(l.interp.Filesz), maxInterpLength, "PT_INTERP")
		if err != nil {
			return nil, err
		}
		info.Interp = string(bytes.TrimRight(data, "\x00"))
	}
	if l.dynamic == nil {
		return info, nil
	}
	info.Dynamic = true
	dyn, err := l.readDynamic(r)
	if err != nil {
		return nil, err
	}
	missing := &MissingError{}
	strtab, err := l.stringTable(r, dyn)
	if collectMissing(missing, err) {
		return nil, err
	}
	if err == nil {
		if err := l.fillNames(info, dyn, strtab); err != nil {
			return nil, err
		}
	}
	needs, err := l.versionNeeds(r, dyn, strtab)
	if collectMissing(missing, err) {
		return nil, err
	}
	defs, err := l.versionDefs(r, dyn, strtab)
	if collectMissing(missing, err) {
		return nil, err
	}
	if len(missing.Ranges) > 0 {
		return nil, missing
	}
	info.VersionNeeds, info.VersionDefs = needs, defs
	return info, nil
}

// collectMissing adds a *MissingError's ranges and reports whether err is
// some other, fatal error.
func collectMissing(missing *MissingError, err error) bool {
	if err == nil {
		return false
	}
	var m *MissingError
	if errors.As(err, &m) {
		missing.Ranges = append(missing.Ranges, m.Ranges...)
		return false
	}
	return true
}

// Wanted returns the ranges Parse needs that r does not hold yet, as far as
// can be told from what it holds: after the program headers, PT_INTERP and
// PT_DYNAMIC; after PT_DYNAMIC, the string and version tables.
func Wanted(r *Sparse) ([]Range, error) {
	_, err := Parse(r)
	var missing *MissingError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &missing):
		return missing.Ranges, nil
	}
	return nil, err
}

func readLayout(r *Sparse) (*layout, error) {
	var ident [elf.EI_NIDENT]byte
	if _, err := r.ReadAt(ident[:], 0); err != nil {
		if r.Size < elf.EI_NIDENT {
			return nil, ErrNotELF
		}
		return nil, err
	}
	if !IsELF(ident[:]) {
		return nil, ErrNotELF
	}
	l := &layout{class: elf.Class(ident[elf.EI_CLASS])}
	switch elf.Data(ident[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		l.order = binary.LittleEndian
	case elf.ELFDATA2MSB:
		l.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("ELF: unknown byte order %d", ident[elf.EI_DATA])
	}
	var phoff int64
	var phentsize, phnum int
	switch l.class {
	case elf.ELFCLASS64:
		var h elf.Header64
		if err := l.read(r, 0, &h); err != nil {
			return nil, err
		}
		l.header = elf.FileHeader{Class: l.class, Type: elf.Type(h.Type), Machine: elf.Machine(h.Machine)}
		phoff, phentsize, phnum = int64(h.Phoff), int(h.Phentsize), int(h.Phnum)
		if phnum > 0 && phentsize != binary.Size(elf.Prog64{}) {
			return nil, fmt.Errorf("ELF: program header size %d, want %d", phentsize, binary.Size(elf.Prog64{}))
		}
	case elf.ELFCLASS32:
		var h elf.Header32
		if err := l.read(r, 0, &h); err != nil {
			return nil, err
		}
		l.header = elf.FileHeader{Class: l.class, Type: elf.Type(h.Type), Machine: elf.Machine(h.Machine)}
		phoff, phentsize, phnum = int64(h.Phoff), int(h.Phentsize), int(h.Phnum)
		if phnum > 0 && phentsize != binary.Size(elf.Prog32{}) {
			return nil, fmt.Errorf("ELF: program header size %d, want %d", phentsize, binary.Size(elf.Prog32{}))
		}
	default:
		return nil, fmt.Errorf("ELF: unknown class %d", ident[elf.EI_CLASS])
	}
	if phnum > maxProgramHeaders {
		return nil, fmt.Errorf("ELF: %d program headers (more than %d)", phnum, maxProgramHeaders)
	}
	if phoff < 0 || phoff+int64(phnum*phentsize) > r.Size {
		return nil, fmt.Errorf("ELF: program headers beyond the end of the file")
	}
	// Ask for the whole table at once, so a capture gets it in one go.
	if _, err := readRange(r, phoff, int64(phnum*phentsize), int64(maxProgramHeaders*phentsize), "program headers"); err != nil {
		return nil, err
	}
	for i := 0; i < phnum; i++ {
		offset := phoff + int64(i*phentsize)
		var p elf.ProgHeader
		if l.class == elf.ELFCLASS64 {
			var raw elf.Prog64
			if err := l.read(r, offset, &raw); err != nil {
				return nil, err
			}
			p = elf.ProgHeader{Type: elf.ProgType(raw.Type), Flags: elf.ProgFlag(raw.Flags), Off: raw.Off, Vaddr: raw.Vaddr,
				Filesz: raw.Filesz, Memsz: raw.Memsz}
		} else {
			var raw elf.Prog32
			if err := l.read(r, offset, &raw); err != nil {
				return nil, err
			}
			p = elf.ProgHeader{Type: elf.ProgType(raw.Type), Flags: elf.ProgFlag(raw.Flags), Off: uint64(raw.Off),
				Vaddr: uint64(raw.Vaddr), Filesz: uint64(raw.Filesz), Memsz: uint64(raw.Memsz)}
		}
		switch p.Type {
		case elf.PT_LOAD:
			l.loads = append(l.loads, p)
		case elf.PT_INTERP:
			if l.interp == nil {
				l.interp = &p
			}
		case elf.PT_DYNAMIC:
			if l.dynamic == nil {
				l.dynamic = &p
			}
		}
	}
	return l, nil
}

// ProgramHeaderEnd is how many leading bytes hold the ELF and program
// headers, so a capture can keep them; 0 when the prefix is not ELF.
func ProgramHeaderEnd(prefix []byte) int64 {
	if !IsELF(prefix) || len(prefix) < elf.EI_NIDENT {
		return 0
	}
	var order binary.ByteOrder = binary.LittleEndian
	if elf.Data(prefix[elf.EI_DATA]) == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	switch elf.Class(prefix[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		if len(prefix) < 64 {
			return 64
		}
		return int64(order.Uint64(prefix[32:40])) + int64(order.Uint16(prefix[54:56]))*int64(order.Uint16(prefix[56:58]))
	case elf.ELFCLASS32:
		if len(prefix) < 52 {
			return 52
		}
		return int64(order.Uint32(prefix[28:32])) + int64(order.Uint16(prefix[42:44]))*int64(order.Uint16(prefix[44:46]))
	}
	return 0
}

// FirstSegmentEnd is where the first loadable segment ends when it is not
// executable: with -z separate-code (the default of GNU ld on x86-64) that
// segment holds the dynamic symbols, strings and version tables, so keeping
// it usually spares a second read.
func FirstSegmentEnd(r *Sparse) int64 {
	l, err := readLayout(r)
	if err != nil || len(l.loads) == 0 {
		return 0
	}
	first := l.loads[0]
	if first.Flags&elf.PF_X != 0 || first.Off != 0 {
		return 0
	}
	return int64(first.Filesz)
}

// SegmentRanges are the PT_INTERP and PT_DYNAMIC ranges, known once the
// program headers are.
func SegmentRanges(r *Sparse) []Range {
	l, err := readLayout(r)
	if err != nil {
		return nil
	}
	var ranges []Range
	if l.interp != nil && l.interp.Filesz <= maxInterpLength {
		ranges = append(ranges, Range{int64(l.interp.Off), int64(l.interp.Filesz)})
	}
	if l.dynamic != nil && l.dynamic.Filesz <= maxDynamicSize {
		ranges = append(ranges, Range{int64(l.dynamic.Off), int64(l.dynamic.Filesz)})
	}
	return ranges
}

func (l *layout) read(r io.ReaderAt, offset int64, value any) error {
	size := binary.Size(value)
	buf := make([]byte, size)
	if _, err := r.ReadAt(buf, offset); err != nil {
		return err
	}
	return binary.Read(bytes.NewReader(buf), l.order, value)
}

func readRange(r *Sparse, offset, length, limit int64, what string) ([]byte, error) {
	if length < 0 || length > limit {
		return nil, fmt.Errorf("ELF: %s is %d bytes (limit %d)", what, length, limit)
	}
	if offset < 0 || offset+length > r.Size {
		return nil, fmt.Errorf("ELF: %s beyond the end of the file", what)
	}
	buf := make([]byte, length)
	if _, err := r.ReadAt(buf, offset); err != nil {
		return nil, err
	}
	return buf, nil
}

// dynamic is the parsed PT_DYNAMIC: tags in order.
type dynamic []dynEntry

type dynEntry struct {
	tag   elf.DynTag
	value uint64
}

func (d dynamic) first(tag elf.DynTag) (uint64, bool) {
	for _, e := range d {
		if e.tag == tag {
			return e.value, true
		}
	}
	return 0, false
}

func (l *layout) readDynamic(r *Sparse) (dynamic, error) {
	data, err := readRange(r, int64(l.dynamic.Off), int64(l.dynamic.Filesz), maxDynamicSize, "PT_DYNAMIC")
	if err != nil {
		return nil, err
	}
	var d dynamic
	entrySize := 16
	if l.class == elf.ELFCLASS32 {
		entrySize = 8
	}
	for i := 0; i+entrySize <= len(data); i += entrySize {
		var e dynEntry
		if l.class == elf.ELFCLASS64 {
			e = dynEntry{elf.DynTag(l.order.Uint64(data[i:])), l.order.Uint64(data[i+8:])}
		} else {
			e = dynEntry{elf.DynTag(l.order.Uint32(data[i:])), uint64(l.order.Uint32(data[i+4:]))}
		}
		if e.tag == elf.DT_NULL {
			break
		}
		d = append(d, e)
	}
	return d, nil
}

// offsetOf maps a virtual address to a file offset through the PT_LOAD
// segments, as the loader lays the file out.
func (l *layout) offsetOf(vaddr uint64) (int64, int64, bool) {
	for _, p := range l.loads {
		if vaddr >= p.Vaddr && vaddr < p.Vaddr+p.Filesz {
			offset := p.Off + (vaddr - p.Vaddr)
			return int64(offset), int64(p.Off + p.Filesz - offset), true
		}
	}
	return 0, 0, false
}

func (l *layout) stringTable(r *Sparse, d dynamic) ([]byte, error) {
	address, ok := d.first(elf.DT_STRTAB)
	if !ok {
		return nil, errors.New("ELF: dynamic section without DT_STRTAB")
	}
	size, ok := d.first(elf.DT_STRSZ)
	if !ok {
		return nil, errors.New("ELF: dynamic section without DT_STRSZ")
	}
	offset, room, ok := l.offsetOf(address)
	if !ok || int64(size) > room {
		return nil, errors.New("ELF: DT_STRTAB outside the loaded segments")
	}
	return readRange(r, offset, int64(size), maxStringTable, "the dynamic string table")
}

func stringAt(table []byte, offset uint64) (string, error) {
	if offset >= uint64(len(table)) {
		return "", fmt.Errorf("ELF: string offset %d beyond the string table", offset)
	}
	end := bytes.IndexByte(table[offset:], 0)
	if end < 0 {
		return "", errors.New("ELF: unterminated string in the string table")
	}
	return string(table[offset : offset+uint64(end)]), nil
}

func (l *layout) fillNames(info *Info, d dynamic, strtab []byte) error {
	for _, e := range d {
		var target *[]string
		switch e.tag {
		case elf.DT_NEEDED:
			target = &info.Needed
		case elf.DT_RPATH:
			target = &info.RPath
		case elf.DT_RUNPATH:
			target = &info.RunPath
		case elf.DT_SONAME:
		default:
			continue
		}
		value, err := stringAt(strtab, e.value)
		if err != nil {
			return err
		}
		switch {
		case e.tag == elf.DT_SONAME:
			info.Soname = value
		case e.tag == elf.DT_NEEDED:
			*target = append(*target, value)
		default:
			*target = append(*target, splitList(value)...)
		}
	}
	return nil
}

func splitList(value string) []string {
	var parts []string
	for _, part := range bytes.Split([]byte(value), []byte(":")) {
		if len(part) > 0 {
			parts = append(parts, string(part))
		}
	}
	return parts
}

// versionTable returns the window of bytes a version table may occupy. The
// tables have no size of their own in the dynamic section; entries link to
// each other by offset inside it.
func (l *layout) versionTable(r *Sparse, d dynamic, tag elf.DynTag) ([]byte, bool, error) {
	address, ok := d.first(tag)
	if !ok {
		return nil, false, nil
	}
	offset, room, ok := l.offsetOf(address)
	if !ok {
		return nil, false, fmt.Errorf("ELF: %v outside the loaded segments", tag)
	}
	length := min(room, versionWindow)
	data, err := readRange(r, offset, length, versionWindow, tag.String())
	return data, true, err
}

func (l *layout) versionNeeds(r *Sparse, d dynamic, strtab []byte) ([]VersionNeed, error) {
	table, ok, err := l.versionTable(r, d, elf.DT_VERNEED)
	if !ok || err != nil {
		return nil, err
	}
	if strtab == nil {
		return nil, nil // the string table is missing; Parse reports it
	}
	count, _ := d.first(elf.DT_VERNEEDNUM)
	var needs []VersionNeed
	offset := uint64(0)
	seen := 0
	for i := uint64(0); i < count; i++ {
		if offset+16 > uint64(len(table)) {
			return nil, errors.New("ELF: version needs run past their table")
		}
		entry := table[offset:]
		auxCount := l.order.Uint16(entry[2:])
		file, err := stringAt(strtab, uint64(l.order.Uint32(entry[4:])))
		if err != nil {
			return nil, err
		}
		need := VersionNeed{File: file}
		auxOffset := offset + uint64(l.order.Uint32(entry[8:]))
		for j := uint16(0); j < auxCount; j++ {
			if seen++; seen > maxVersionEntries {
				return nil, errors.New("ELF: too many version needs")
			}
			if auxOffset+16 > uint64(len(table)) {
				return nil, errors.New("ELF: version need entry runs past its table")
			}
			aux := table[auxOffset:]
			name, err := stringAt(strtab, uint64(l.order.Uint32(aux[8:])))
			if err != nil {
				return nil, err
			}
			need.Versions = append(need.Versions, name)
			next := uint64(l.order.Uint32(aux[12:]))
			if next == 0 {
				break
			}
			auxOffset += next
		}
		needs = append(needs, need)
		next := uint64(l.order.Uint32(entry[12:]))
		if next == 0 {
			break
		}
		offset += next
	}
	return needs, nil
}

func (l *layout) versionDefs(r *Sparse, d dynamic, strtab []byte) ([]string, error) {
	table, ok, err := l.versionTable(r, d, elf.DT_VERDEF)
	if !ok || err != nil {
		return nil, err
	}
	if strtab == nil {
		return nil, nil
	}
	count, _ := d.first(elf.DT_VERDEFNUM)
	if count > maxVersionEntries {
		return nil, errors.New("ELF: too many version definitions")
	}
	var defs []string
	offset := uint64(0)
	for i := uint64(0); i < count; i++ {
		if offset+20 > uint64(len(table)) {
			return nil, errors.New("ELF: version definitions run past their table")
		}
		entry := table[offset:]
		flags := l.order.Uint16(entry[2:])
		auxOffset := offset + uint64(l.order.Uint32(entry[12:]))
		if auxOffset+8 > uint64(len(table)) {
			return nil, errors.New("ELF: version definition runs past its table")
		}
		name, err := stringAt(strtab, uint64(l.order.Uint32(table[auxOffset:])))
		if err != nil {
			return nil, err
		}
		if flags&1 == 0 { // VER_FLG_BASE names the file itself
			defs = append(defs, name)
		}
		next := uint64(l.order.Uint32(entry[16:]))
		if next == 0 {
			break
		}
		offset += next
	}
	return defs, nil
}
