package model

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrContentUnavailable is what an fs.FS given to LoadFS wraps when it
// lists a file but does not hold its content, or holds only a prefix of
// it and a read goes past that (a container image whose layers were
// captured in part). The file is then recorded in Model.Unread, and the
// facts its content would give are left unknown.
var ErrContentUnavailable = errors.New("content not available")

// content is what the header readers need of an open file.
type content interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// treeFile is an open file of a tree. It remembers whether a read met
// content the FS does not hold, because the header readers may turn that
// error into a format problem, or drop it: their result cannot tell.
type treeFile struct {
	content
	rel         string
	unavailable bool
}

func (f *treeFile) Read(p []byte) (int, error) {
	n, err := f.content.Read(p)
	f.note(err)
	return n, err
}

func (f *treeFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.content.ReadAt(p, off)
	f.note(err)
	return n, err
}

func (f *treeFile) note(err error) {
	if errors.Is(err, ErrContentUnavailable) {
		f.unavailable = true
	}
}

// open opens a file of the tree for reading. A file the FS cannot open
// for want of its content opens as one whose every read fails that way,
// so callers handle a missing capture in one place: after reading.
func (t *tree) open(rel string) (*treeFile, error) {
	if t.fsys == nil {
		f, err := os.Open(filepath.Join(t.root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		return &treeFile{content: f, rel: rel}, nil
	}
	name := rel
	if real, ok := t.fsNames[rel]; ok {
		name = real
	}
	f, err := t.fsys.Open(name)
	if errors.Is(err, ErrContentUnavailable) {
		return &treeFile{content: missingContent{err}, rel: rel}, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := asContent(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &treeFile{content: c, rel: rel}, nil
}

// asContent gives an fs.File the ReadAt the header readers need: its
// own, or one made by seeking.
func asContent(f fs.File) (content, error) {
	if c, ok := f.(content); ok {
		return c, nil
	}
	if seeker, ok := f.(io.Seeker); ok {
		return &seekingFile{File: f, seeker: seeker}, nil
	}
	return nil, fmt.Errorf("%w: the file is neither an io.ReaderAt nor an io.Seeker", errors.ErrUnsupported)
}

// seekingFile reads at an offset by seeking there and back, so that
// ReadAt leaves the offset of Read where it was (as io.ReaderAt asks).
type seekingFile struct {
	fs.File
	seeker io.Seeker
}

func (f *seekingFile) ReadAt(p []byte, off int64) (int, error) {
	current, err := f.seeker.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	if _, err := f.seeker.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	n, err := io.ReadFull(f.File, p)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF // a short read at the end, as ReadAt reports it
	}
	if _, seekErr := f.seeker.Seek(current, io.SeekStart); seekErr != nil && err == nil {
		err = seekErr
	}
	return n, err
}

// missingContent stands for a file the FS lists but could not open for
// want of its content.
type missingContent struct{ err error }

func (m missingContent) Read([]byte) (int, error)          { return 0, m.err }
func (m missingContent) ReadAt([]byte, int64) (int, error) { return 0, m.err }
func (m missingContent) Close() error                      { return nil }
