package kustomize

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// An overlay may come from a pull request, built on a runner that holds
// credentials. Everything its kustomizations name must therefore lie in the
// tree it came with: its root. The root of a PATH argument is the git work
// tree holding it (the nearest directory above it with a .git entry), so an
// overlay's ../../base in the same repository is read; outside a work tree,
// or when that work tree is the home directory or above it (a dotfiles
// repository), it is the PATH itself. Nothing under a .git directory is
// read: a checkout keeps its fetch token in .git/config.

// Root returns the root of the PATH argument path, its real path with
// symlinks resolved.
func Root(path string) (string, error) {
	real, err := realPath(path)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(real); err == nil && !info.IsDir() {
		real = filepath.Dir(real)
	}
	home := ""
	if dir, err := os.UserHomeDir(); err == nil {
		home, _ = realPath(dir)
	}
	for dir := real; ; dir = filepath.Dir(dir) {
		if home != "" && inside(dir, home) {
			return real, nil // a work tree at or above the home directory is not the repository's
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return real, nil
		}
	}
}

// Confine returns an error when path, once its symlinks are resolved, lies
// outside root or under a .git directory; root is a Root.
func Confine(root, path string) error {
	real, err := realPath(path)
	if err != nil {
		return err
	}
	if !inside(root, real) {
		return fmt.Errorf("leads outside %s, the tree being linted, which is all modellint reads", root)
	}
	relative, _ := filepath.Rel(root, real)
	for _, part := range strings.Split(relative, string(filepath.Separator)) {
		if part == ".git" {
			return errors.New("leads into a .git directory, which holds the checkout's credentials and is never read")
		}
	}
	return nil
}

// realPath is path made absolute with its symlinks resolved as far as it
// exists: a missing file is judged by the real path of its nearest existing
// parent, so a link cannot hide where a name would lead.
func realPath(path string) (string, error) {
	absolute, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(absolute); err == nil {
		return real, nil
	}
	parent := filepath.Dir(absolute)
	if parent == absolute {
		return absolute, nil
	}
	real, err := realPath(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(real, filepath.Base(absolute)), nil
}

// inside reports whether path is root or below it; both are clean and absolute.
func inside(root, path string) bool {
	relative, err := filepath.Rel(root, path)
	return err == nil && relative != ".." && !strings.HasPrefix(relative, ".."+string(filepath.Separator))
}
