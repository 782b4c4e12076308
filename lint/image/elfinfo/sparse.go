package elfinfo

import (
	"errors"
	"fmt"
	"sort"
)

// Range is a byte range of a file: [Offset, Offset+Length).
type Range struct {
	Offset, Length int64
}

// End is the first offset after the range.
func (r Range) End() int64 { return r.Offset + r.Length }

// MissingError says which bytes a parse needed that were not captured.
type MissingError struct {
	Ranges []Range
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%d byte range(s) of the file were not captured", len(e.Ranges))
}

// ErrMissing matches a *MissingError with errors.Is.
var ErrMissing = errors.New("bytes not captured")

func (e *MissingError) Is(target error) bool { return target == ErrMissing }

// Sparse holds some byte ranges of a file of known size.
type Sparse struct {
	Size   int64
	chunks []chunk // sorted by offset, not overlapping
}

type chunk struct {
	offset int64
	data   []byte
}

// Add records bytes at an offset. Overlaps with earlier chunks are fine.
func (s *Sparse) Add(offset int64, data []byte) {
	if len(data) == 0 {
		return
	}
	s.chunks = append(s.chunks, chunk{offset, append([]byte(nil), data...)})
	s.normalize()
}

// normalize sorts chunks and merges overlapping or touching ones.
func (s *Sparse) normalize() {
	sort.Slice(s.chunks, func(i, j int) bool { return s.chunks[i].offset < s.chunks[j].offset })
	merged := s.chunks[:0]
	for _, c := range s.chunks {
		if n := len(merged); n > 0 {
			last := &merged[n-1]
			lastEnd := last.offset + int64(len(last.data))
			if c.offset <= lastEnd {
				if end := c.offset + int64(len(c.data)); end > lastEnd {
					last.data = append(last.data, c.data[lastEnd-c.offset:]...)
				}
				continue
			}
		}
		merged = append(merged, c)
	}
	s.chunks = merged
}

// Captured is the number of bytes held.
func (s *Sparse) Captured() int64 {
	var n int64
	for _, c := range s.chunks {
		n += int64(len(c.data))
	}
	return n
}

// Has reports whether the whole range is captured.
func (s *Sparse) Has(r Range) bool {
	_, ok := s.slice(r.Offset, r.Length)
	return ok
}

// ReadAt implements io.ReaderAt over the captured bytes; reading bytes that
// were not captured returns a *MissingError naming them.
func (s *Sparse) ReadAt(p []byte, offset int64) (int, error) {
	if offset < 0 || offset+int64(len(p)) > s.Size {
		return 0, fmt.Errorf("read of %d bytes at %d beyond the file's %d bytes", len(p), offset, s.Size)
	}
	data, ok := s.slice(offset, int64(len(p)))
	if !ok {
		return 0, &MissingError{Ranges: []Range{{offset, int64(len(p))}}}
	}
	return copy(p, data), nil
}

func (s *Sparse) slice(offset, length int64) ([]byte, bool) {
	i := sort.Search(len(s.chunks), func(i int) bool {
		return s.chunks[i].offset+int64(len(s.chunks[i].data)) > offset
	})
	if i == len(s.chunks) || s.chunks[i].offset > offset {
		return nil, length == 0
	}
	c := s.chunks[i]
	start := offset - c.offset
	if start+length > int64(len(c.data)) {
		return nil, false
	}
	return c.data[start : start+length], true
}

// Full returns a Sparse holding a whole file.
func Full(data []byte) *Sparse {
	s := &Sparse{Size: int64(len(data))}
	if len(data) > 0 {
		s.chunks = []chunk{{0, data}}
	}
	return s
}
