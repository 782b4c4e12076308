package fix

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// Roots are the PATH arguments of a run, each resolved once: --fix writes
// and moves files only inside them, through no symbolic link, so a link
// in a checked-out tree cannot send a write (or a model's files) outside
// it. Every write goes through an os.Root, which a path swapped for a
// link between the check and the write cannot leave either.
type Roots struct {
	roots []*root
}

type root struct {
	given string // the PATH argument, absolute
	real  string // given with its symbolic links resolved
	// file is the name of a file PATH in dir, the one file it lets --fix
	// write; "" for a dir.
	file string
	dir  *os.Root // real, or the dir of a file PATH
}

// target is a file inside a root.
type target struct {
	root *root
	rel  string // its path in root.dir
	// name is how diffs name it: its path in the working dir, or in its
	// root when it is outside the working dir; never an absolute path.
	name string
}

// OpenRoots resolves and opens each PATH argument; "-" (stdin) has none,
// nor has a PATH that does not exist (the run reported it).
func OpenRoots(paths []string) (*Roots, error) {
	roots := &Roots{}
	for _, path := range paths {
		if path == "-" {
			continue
		}
		r, err := openRoot(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			roots.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		roots.roots = append(roots.roots, r)
	}
	return roots, nil
}

func openRoot(path string) (*root, error) {
	given, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(given)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	r := &root{given: given, real: real}
	dir := real
	if !info.IsDir() {
		dir, r.file = filepath.Dir(real), filepath.Base(real)
	}
	if r.dir, err = os.OpenRoot(dir); err != nil {
		return nil, err
	}
	return r, nil
}

// Close closes the roots.
func (r *Roots) Close() {
	for _, root := range r.roots {
		root.dir.Close()
	}
}

var errOutside = errors.New("outside the PATHs linted; --fix writes only inside them")

// locate finds the root path lies in and checks that neither path nor a
// dir between the root and it is a symbolic link. A path that need not
// exist (a move's destination) may lack its last components, which --fix
// creates.
func (r *Roots) locate(path string, mustExist bool) (*target, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	for _, root := range r.roots {
		rel, ok := root.within(abs)
		if !ok {
			continue
		}
		if err := root.checkLinks(path, rel, mustExist); err != nil {
			return nil, err
		}
		name := filepath.ToSlash(rel)
		if root.file != "" {
			name = filepath.Base(root.given)
		}
		if wd, err := os.Getwd(); err == nil {
			if inWD, ok := inside(wd, abs); ok {
				name = filepath.ToSlash(inWD)
			}
		}
		return &target{root: root, rel: rel, name: name}, nil
	}
	return nil, errOutside
}

// within returns abs's path in the root when it is inside it, as the PATH
// argument spells it or after its links.
func (r *root) within(abs string) (string, bool) {
	for _, base := range []string{r.given, r.real} {
		if r.file != "" {
			if abs == base {
				return r.file, true
			}
			continue
		}
		if rel, ok := inside(base, abs); ok {
			return rel, true
		}
	}
	return "", false
}

// inside returns path relative to dir when it is below it.
func inside(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// checkLinks refuses rel when it, or a dir between the root and it, is a
// symbolic link, naming the link as path spells it.
func (r *root) checkLinks(path, rel string, mustExist bool) error {
	parts := strings.Split(rel, string(filepath.Separator))
	for i := range parts {
		info, err := r.dir.Lstat(filepath.Join(parts[:i+1]...))
		if errors.Is(err, fs.ErrNotExist) && !mustExist {
			return nil
		}
		if err != nil {
			return unwrapPathError(err)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if i == len(parts)-1 {
			return errors.New("it is a symbolic link; fix the file it points to")
		}
		link := path
		for range len(parts) - 1 - i {
			link = filepath.Dir(link)
		}
		return fmt.Errorf("%s is a symbolic link; --fix writes through none", link)
	}
	return nil
}

// locateMove checks a rename: its source and destination in one root,
// through no symbolic link.
func (r *Roots) locateMove(move lint.Move) (*Move, error) {
	from, err := r.locate(move.From, true)
	if err != nil {
		return nil, err
	}
	to, err := r.locate(move.To, false)
	if err != nil {
		return nil, err
	}
	if from.root != to.root {
		return nil, errors.New("the destination is in another PATH")
	}
	return &Move{Move: move, from: from, to: to}, nil
}

// read reads the target, a regular file of at most manifest.MaxFileSize
// bytes, and says what it is.
func (t *target) read() ([]byte, fs.FileInfo, error) {
	file, err := t.root.dir.OpenFile(t.rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, unwrapPathError(err)
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, &fileread.NotRegularError{Path: t.rel, Mode: info.Mode()}
	}
	data, err := fileread.ReadAll(file, t.rel, manifest.MaxFileSize)
	if err != nil {
		return nil, nil, unwrapPathError(err)
	}
	return data, info, nil
}

// replace writes data to a temporary file beside the target, with the
// target's mode and owner (a new file would take the owner of whoever
// runs modellint), and renames it over the target.
func (t *target) replace(data []byte, old fs.FileInfo) (err error) {
	dir, base := filepath.Split(t.rel)
	tempRel := filepath.Join(dir, "."+base+".modellint-"+rand.Text()[:12])
	temp, err := t.root.dir.OpenFile(tempRel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return unwrapPathError(err)
	}
	defer func() {
		if err != nil {
			temp.Close()
			t.root.dir.Remove(tempRel)
		}
	}()
	if _, err := temp.Write(data); err != nil {
		return err
	}
	if err := keepOwner(temp, old); err != nil {
		return err
	}
	if err := temp.Chmod(old.Mode().Perm()); err != nil {
		return err
	}
	if err := temp.Close(); err != nil {
		return err
	}
	return unwrapPathError(t.root.dir.Rename(tempRel, t.rel))
}

// apply makes the rename, creating the destination's dir. A source that
// is gone or a destination that exists is an error: nothing is
// overwritten.
func (m *Move) apply() error {
	dir := m.from.root.dir
	if _, err := dir.Lstat(m.from.rel); err != nil {
		return fmt.Errorf("%s: %w", m.From, unwrapPathError(err))
	}
	if _, err := dir.Lstat(m.to.rel); err == nil {
		return fmt.Errorf("%s exists; %s was not moved", m.To, m.From)
	}
	if err := dir.MkdirAll(filepath.Dir(m.to.rel), 0o755); err != nil {
		return fmt.Errorf("%s: %w", m.To, unwrapPathError(err))
	}
	if err := dir.Rename(m.from.rel, m.to.rel); err != nil {
		return fmt.Errorf("%s: %w", m.From, unwrapPathError(err))
	}
	return nil
}

// unwrapPathError drops the path an os.Root error repeats: callers name
// the file as the user wrote it.
func unwrapPathError(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	var linkErr *os.LinkError
	if errors.As(err, &linkErr) {
		return linkErr.Err
	}
	return err
}
