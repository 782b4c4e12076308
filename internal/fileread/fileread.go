// Package fileread opens and reads the files modellint is pointed at
// (manifests, values, configs, baselines, model files, images) so that no
// input can block a run or exhaust its memory: only regular files are
// opened, and every read is bounded.
package fileread

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is a path that names a FIFO, a device, a socket or a
// directory where a file was expected. Opening a FIFO blocks until a
// writer appears and a device such as /dev/zero never ends, so they are
// refused before open.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// Error leaves the path out: readers wrap it in an *fs.PathError, which
// callers already unwrap or print once.
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s, not a regular file", Kind(e.Mode))
}

// Kind names a file mode's type as a person would ("a named pipe (FIFO)").
func Kind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSymlink != 0:
		return "a symlink"
	case mode.IsRegular():
		return "a regular file"
	}
	return "an irregular file"
}

// TooLargeError is a file over the bound its reader sets.
type TooLargeError struct {
	Path  string
	Size  int64 // at least this many bytes
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("file is %s, more than the %s it may hold", Size(e.Size), Size(e.Limit))
}

func pathError(path string, err error) error { return &fs.PathError{Op: "read", Path: path, Err: err} }

// Size writes a byte count the way the messages do (MiB above 1 MiB).
func Size(bytes int64) string {
	if bytes >= 1<<20 {
		return fmt.Sprintf("%d MiB", bytes>>20)
	}
	return fmt.Sprintf("%d bytes", bytes)
}

// CheckRegular returns a *NotRegularError unless path (after symlinks) is
// a regular file, and the stat error when it cannot be looked at.
func CheckRegular(path string) (fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, pathError(path, &NotRegularError{Path: path, Mode: info.Mode()})
	}
	return info, nil
}

// Open opens a regular file for reading. The file is checked before the
// open and again on the descriptor, and opened non-blocking, so a path
// swapped for a FIFO in between cannot block either.
func Open(path string) (*os.File, error) {
	if _, err := CheckRegular(path); err != nil {
		return nil, err
	}
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		file.Close()
		return nil, pathError(path, &NotRegularError{Path: path, Mode: info.Mode()})
	}
	return file, nil
}

// Regular reads a regular file of at most limit bytes whole. A file over
// the limit is a *TooLargeError before anything is read; one that grows
// past it while read is one too.
func Regular(path string, limit int64) ([]byte, error) {
	file, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return ReadAll(file, path, limit)
}

// ReadAll reads an opened file (or stream) of at most limit bytes.
func ReadAll(file io.Reader, path string, limit int64) ([]byte, error) {
	var buffer bytes.Buffer
	if f, ok := file.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
			if info.Size() > limit {
				return nil, pathError(path, &TooLargeError{Path: path, Size: info.Size(), Limit: limit})
			}
			// Room for the whole file and the read that finds its end, so
			// it is read into one allocation.
			buffer.Grow(int(info.Size()) + bytes.MinRead)
		}
	}
	if _, err := buffer.ReadFrom(io.LimitReader(file, limit+1)); err != nil {
		return nil, err
	}
	data := buffer.Bytes()
	if int64(len(data)) > limit {
		return nil, pathError(path, &TooLargeError{Path: path, Size: int64(len(data)), Limit: limit})
	}
	return data, nil
}

// IsNotRegular reports whether err is (or wraps) a *NotRegularError.
func IsNotRegular(err error) bool {
	var notRegular *NotRegularError
	return errors.As(err, &notRegular)
}

// Cause drops the path a *fs.PathError repeats, for messages that name
// the file already.
func Cause(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}
