package engine

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreFileNames are read in every directory a walk enters, as git and
// ripgrep read .gitignore: a pattern applies below the directory it is in.
var ignoreFileNames = []string{".gitignore", ".modellintignore"}

// maxIgnoreFileSize bounds one ignore file; real ones are a few KiB.
const maxIgnoreFileSize = 1 << 20

// ignorer decides which paths a directory walk leaves out: the config's
// exclude: globs (relative to the config file), --exclude globs (relative to
// the working directory) and the .gitignore/.modellintignore files of the
// walked tree. Patterns use .gitignore syntax, matched by go-git's matcher.
type ignorer struct {
	// base are the exclude patterns; a walk adds the ignore files it meets.
	base []gitignore.Pattern
}

// newIgnorer parses exclude patterns, each relative to its own directory.
func newIgnorer(excludes []Exclude) *ignorer {
	ig := &ignorer{}
	for _, exclude := range excludes {
		domain := pathParts(exclude.Dir)
		for _, pattern := range exclude.Patterns {
			if pattern = strings.TrimSpace(pattern); pattern != "" {
				ig.base = append(ig.base, gitignore.ParsePattern(pattern, domain))
			}
		}
	}
	return ig
}

// Exclude is a list of exclude patterns and the directory they are relative to.
type Exclude struct {
	Dir      string
	Patterns []string
}

// dirPatterns reads the ignore files of dir into patterns for its subtree.
// An unreadable ignore file is left out: it is not an input of the lint.
func dirPatterns(dir string) []gitignore.Pattern {
	var patterns []gitignore.Pattern
	domain := pathParts(dir)
	for _, name := range ignoreFileNames {
		file := filepath.Join(dir, name)
		info, err := os.Stat(file)
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxIgnoreFileSize {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		scanner := bufio.NewScanner(bytes.NewReader(data))
		for scanner.Scan() {
			line := strings.TrimRight(scanner.Text(), "\r")
			if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
				continue
			}
			patterns = append(patterns, gitignore.ParsePattern(line, domain))
		}
	}
	return patterns
}

// ignored reports whether path is left out, given the patterns of the
// directories above it (later patterns win, as in git).
func (ig *ignorer) ignored(path string, isDir bool, walked []gitignore.Pattern) bool {
	parts := pathParts(path)
	if len(ig.base) > 0 && gitignore.NewMatcher(ig.base).Match(parts, isDir) {
		return true
	}
	return len(walked) > 0 && gitignore.NewMatcher(walked).Match(parts, isDir)
}

// pathParts splits an absolute, cleaned path into its elements, the form
// go-git's patterns and domains are written in.
func pathParts(path string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	var parts []string
	for _, part := range strings.Split(filepath.ToSlash(abs), "/") {
		if part != "" {
			parts = append(parts, part)
		}
	}
	return parts
}
