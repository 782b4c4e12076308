package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modellint/modellint/internal/message"
)

// The repository's config is written by whoever opened the pull request, so
// the files it names must lie in the tree it came with: a path in it that
// leads outside the config file's directory (absolute, "..", or through a
// symlink) is refused. The job names outside files with flags instead.

// checkConfined returns an error when path, resolved against base as the
// engine resolves it, leads outside the config file's directory.
func (c *Config) checkConfined(field, path, base string) error {
	root, err := filepath.Abs(filepath.Dir(c.Path))
	if err != nil {
		return fmt.Errorf("%s: %w", c.Path, err)
	}
	resolved := filepath.FromSlash(path)
	if !filepath.IsAbs(resolved) {
		resolved = filepath.Join(base, resolved)
	}
	if resolved, err = filepath.Abs(resolved); err != nil {
		return fmt.Errorf("%s: %s: %w", c.Path, field, err)
	}
	if !inside(root, resolved) || !inside(realOrSelf(root), realOrSelf(resolved)) {
		return fmt.Errorf("%s: %s: %s is outside the config file's directory; a repository's config names only files "+
			"in its own tree (name an outside file with a flag: --model, --image or --cluster)", c.Path, field, message.Quote(path))
	}
	return nil
}

// realOrSelf resolves path's symlinks as far as it exists: a file not
// created yet is judged by the real path of its nearest existing parent.
func realOrSelf(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	parent := filepath.Dir(path)
	if parent == path {
		return path
	}
	return filepath.Join(realOrSelf(parent), filepath.Base(path))
}

// inside reports whether path is root or below it.
func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkPathsConfined checks every file the config names: model dirs
// (relative to the working directory, as --model's are), image sources and
// the cluster's nodes (relative to the config file).
func (c *Config) checkPathsConfined() error {
	workingDir, err := os.Getwd()
	if err != nil {
		return err
	}
	configDir := filepath.Dir(c.Path)
	for i, mapping := range c.Models {
		if err := c.checkConfined(fmt.Sprintf("models[%d].path", i), mapping.Path, workingDir); err != nil {
			return err
		}
	}
	for i, mapping := range c.Images {
		if mapping.Source == "registry" || strings.HasPrefix(mapping.Source, "docker://") {
			continue
		}
		if err := c.checkConfined(fmt.Sprintf("images[%d].source", i), mapping.Source, configDir); err != nil {
			return err
		}
	}
	if c.Cluster.Nodes != "" {
		if err := c.checkConfined("cluster.nodes", c.Cluster.Nodes, configDir); err != nil {
			return err
		}
	}
	return nil
}
