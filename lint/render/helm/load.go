package helm

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/internal/message"
)

// maxChartEntries bounds the files and directories a chart directory walk
// visits: symbolic links inside a chart may repeat its directories, each
// one doubling what a walk sees, with no loop to stop it.
const maxChartEntries = 10000

// loadChart loads a chart directory or packaged .tgz as Helm's loader.Load
// does, except that nothing outside the chart is read: Helm's loader follows
// every symbolic link in a chart directory, so a chart from a pull request
// could put any file of the runner (a credentials file, through
// `.Files.Get`) into its rendered output.
func loadChart(chartPath, display string) (*chart.Chart, error) {
	info, err := os.Stat(chartPath)
	if err != nil {
		return nil, fmt.Errorf("%s: not a loadable Helm chart: %w", display, fileread.Cause(err))
	}
	if !info.IsDir() {
		return loadArchive(chartPath, display)
	}
	files, err := readChartDir(chartPath, display)
	if err != nil {
		return nil, err
	}
	top, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("%s: not a loadable Helm chart: %w", display, err)
	}
	return top, nil
}

// loadArchive loads a packaged chart. Its subcharts and files are read from
// the archive in memory; Helm's archive reader refuses names that leave it
// and bounds what it decompresses, and a symbolic link in it is an empty file.
func loadArchive(chartPath, display string) (*chart.Chart, error) {
	file, err := fileread.Open(chartPath)
	if err != nil {
		return nil, fmt.Errorf("%s: not a loadable Helm chart: %w", display, fileread.Cause(err))
	}
	defer file.Close()
	top, err := loader.LoadArchive(file)
	if errors.Is(err, gzip.ErrHeader) {
		return nil, fmt.Errorf("%s: not a loadable Helm chart: not a gzipped chart archive", display)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: not a loadable Helm chart: %w", display, err)
	}
	return top, nil
}

// chartWalk reads the files of a chart directory as Helm's directory loader
// does (.helmignore and its defaults applied, names in sorted order,
// symbolic links followed), from an os.Root at the chart's real directory.
// A link is followed only when it resolves inside that directory, checked
// by name first for a clear error; the os.Root keeps every open inside it
// even if the chart changes while it is read.
type chartWalk struct {
	display  string // the chart as users name it
	realRoot string // the chart directory, symbolic links resolved
	root     *os.Root
	rules    *ignore.Rules
	files    []*loader.BufferedFile
	entries  int
	size     int64 // bytes read so far, bounded as Helm bounds an archive
}

func readChartDir(chartPath, display string) ([]*loader.BufferedFile, error) {
	absolute, err := filepath.Abs(chartPath)
	if err != nil {
		return nil, fmt.Errorf("%s: not a loadable Helm chart: %w", display, err)
	}
	realRoot, err := filepath.EvalSymlinks(absolute)
	if err != nil {
		return nil, fmt.Errorf("%s: not a loadable Helm chart: %w", display, fileread.Cause(err))
	}
	root, err := os.OpenRoot(realRoot)
	if err != nil {
		return nil, fmt.Errorf("%s: not a loadable Helm chart: %w", display, fileread.Cause(err))
	}
	defer root.Close()
	w := &chartWalk{display: display, realRoot: realRoot, root: root}
	if err := w.readIgnoreRules(); err != nil {
		return nil, err
	}
	if err := w.walkDir("", ".", []string{"."}); err != nil {
		return nil, err
	}
	return w.files, nil
}

// readIgnoreRules reads .helmignore, itself confined like every chart file.
func (w *chartWalk) readIgnoreRules() error {
	w.rules = ignore.Empty()
	name, info, err := w.resolve("", ".", ignore.HelmIgnore)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case !info.Mode().IsRegular():
		return w.irregular(ignore.HelmIgnore, info.Mode())
	default:
		data, err := w.read(ignore.HelmIgnore, name)
		if err != nil {
			return err
		}
		if w.rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return fmt.Errorf("%s: %w", w.shown(ignore.HelmIgnore), err)
		}
	}
	w.rules.AddDefaults()
	return nil
}

// walkDir reads the directory the chart names dir ("" at the top), which
// is real inside the chart's real directory; stack holds the real paths of
// the directories being walked, to refuse a link back into one of them.
func (w *chartWalk) walkDir(dir, real string, stack []string) error {
	entries, err := fs.ReadDir(w.root.FS(), real)
	if err != nil {
		return fmt.Errorf("%s: %w", w.shown(dir), fileread.Cause(err))
	}
	for _, entry := range entries { // sorted by name, as Helm walks
		if w.entries++; w.entries > maxChartEntries {
			return fmt.Errorf("%s: the chart has more than %d files and directories", w.display, maxChartEntries)
		}
		name := path.Join(dir, entry.Name())
		childReal, info, err := w.resolve(dir, real, entry.Name())
		if err != nil {
			return err
		}
		if info.IsDir() {
			if w.rules.Ignore(name, info) {
				continue
			}
			for _, open := range stack {
				if childReal == open || isWithin(open, childReal) {
					return fmt.Errorf("%s: symbolic link loop back to %s: refused", w.shown(name), w.shown(childReal))
				}
			}
			if err := w.walkDir(name, childReal, append(stack, childReal)); err != nil {
				return err
			}
			continue
		}
		if w.rules.Ignore(name, info) {
			continue
		}
		if !info.Mode().IsRegular() {
			return w.irregular(name, info.Mode())
		}
		data, err := w.read(name, childReal)
		if err != nil {
			return err
		}
		w.files = append(w.files, &loader.BufferedFile{Name: name, Data: bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))})
	}
	return nil
}

// resolve finds the real path inside the chart (relative to its real
// directory) of the entry base of the directory the chart names dir, real
// inside it, and what it is: the entry itself, or for a symbolic link, what
// the link resolves to, when that is inside the chart.
func (w *chartWalk) resolve(dir, real, base string) (string, fs.FileInfo, error) {
	name, childReal := path.Join(dir, base), path.Join(real, base)
	info, err := w.root.Lstat(childReal)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, err
		}
		return "", nil, fmt.Errorf("%s: %w", w.shown(name), fileread.Cause(err))
	}
	if info.Mode()&fs.ModeSymlink == 0 {
		return childReal, info, nil
	}
	target, _ := w.root.Readlink(childReal)
	resolved, err := filepath.EvalSymlinks(filepath.Join(w.realRoot, filepath.FromSlash(childReal)))
	if err != nil {
		return "", nil, fmt.Errorf("%s: symbolic link to %s, which cannot be followed: %w", w.shown(name), message.Quote(target), fileread.Cause(err))
	}
	inside, err := filepath.Rel(w.realRoot, resolved)
	if err != nil || !filepath.IsLocal(inside) {
		return "", nil, fmt.Errorf("%s: symbolic link to %s, outside the chart %s: refused (only the chart's own files are read; copy the file into the chart, or package a dependency into charts/)",
			w.shown(name), message.Quote(target), w.display)
	}
	childReal = filepath.ToSlash(inside)
	if info, err = w.root.Stat(childReal); err != nil {
		return "", nil, fmt.Errorf("%s: symbolic link to %s: %w", w.shown(name), message.Quote(target), fileread.Cause(err))
	}
	return childReal, info, nil
}

// read reads the chart file the chart names name, real inside it, under
// Helm's bounds for a file and for a whole chart. It is opened non-blocking
// and checked on the descriptor, so a file swapped for a FIFO cannot block.
func (w *chartWalk) read(name, real string) ([]byte, error) {
	file, err := w.root.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.shown(name), fileread.Cause(err))
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.shown(name), fileread.Cause(err))
	}
	if !info.Mode().IsRegular() {
		return nil, w.irregular(name, info.Mode())
	}
	data, err := fileread.ReadAll(file, name, min(loader.MaxDecompressedFileSize, loader.MaxDecompressedChartSize-w.size))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.shown(name), fileread.Cause(err))
	}
	w.size += int64(len(data))
	return data, nil
}

func (w *chartWalk) irregular(name string, mode fs.FileMode) error {
	return fmt.Errorf("%s: %s, not a regular file: refused", w.shown(name), fileread.Kind(mode))
}

// shown is a chart file as users name it.
func (w *chartWalk) shown(name string) string {
	if name == "" || name == "." {
		return w.display
	}
	return path.Join(w.display, name)
}

// isWithin reports whether the slash path inner is below outer ("." is the
// chart's top).
func isWithin(inner, outer string) bool {
	return outer == "." || strings.HasPrefix(inner, outer+"/")
}
