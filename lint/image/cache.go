package image

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modellint/modellint/internal/fileread"
)

// Cache keeps what one pass over a layer found (its entries and captured
// file facts), by the layer's diff ID as computed over the bytes read (an
// entry is written only after the whole layer verified against it), so a re-lint of an image whose base
// layers did not change streams only the new ones. Entries are written to a
// temporary file and renamed into place, so concurrent runs never see half
// an entry; the directory is trimmed to MaxBytes, least recently used first.
type Cache struct {
	Dir      string
	MaxBytes int64
}

// DefaultCacheBytes bounds the cache directory: an index of 50,000 files
// takes a few MiB.
const DefaultCacheBytes = 512 << 20

// cacheFormat changes whenever what a layer pass records changes; older
// entries are then ignored and trimmed away in time.
const cacheFormat = "v3"

// cacheMagic starts every entry, so a foreign file is not decoded; the
// sha256 of the encoded index follows it, so a torn or altered one is not
// trusted either.
const cacheMagic = "modellint layer index " + cacheFormat + "\n"

// maxCacheEntry bounds one entry read back: a layer of maxEntriesPerLayer
// entries and its captured files encode to well under it.
const maxCacheEntry = 256 << 20

// DefaultCacheDir is $XDG_CACHE_HOME/modellint (~/.cache/modellint).
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "modellint")
}

func (c *Cache) entryPath(diffID string) (string, bool) {
	algorithm, hex, ok := strings.Cut(diffID, ":")
	if !ok || hex == "" || strings.ContainsAny(hex, "/\\.") || strings.ContainsAny(algorithm, "/\\.") {
		return "", false
	}
	return filepath.Join(c.Dir, "layers", algorithm+"-"+hex+"."+cacheFormat), true
}

// load returns the cached index of a layer. A missing, torn or foreign
// entry is a miss, never an error: the layer is simply read again.
func (c *Cache) load(diffID string) (*layerIndex, bool) {
	if c == nil || c.Dir == "" {
		return nil, false
	}
	file, ok := c.entryPath(diffID)
	if !ok {
		return nil, false
	}
	data, err := fileread.Regular(file, maxCacheEntry)
	if err != nil || !bytes.HasPrefix(data, []byte(cacheMagic)) {
		return nil, false
	}
	data = data[len(cacheMagic):]
	if len(data) < sha256.Size {
		return nil, false
	}
	sum, payload := data[:sha256.Size], data[sha256.Size:]
	if computed := sha256.Sum256(payload); !bytes.Equal(computed[:], sum) {
		return nil, false
	}
	index := &layerIndex{}
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(index); err != nil {
		return nil, false
	}
	if index.Files == nil {
		index.Files = map[string]*FileFacts{}
	}
	now := time.Now()
	os.Chtimes(file, now, now) // recency for trimming; a failure only ages the entry
	return index, true
}

// store writes a layer's index. Failures are ignored: the cache is an
// optimisation, and a read-only home must not fail a lint.
func (c *Cache) store(diffID string, index *layerIndex) {
	if c == nil || c.Dir == "" {
		return
	}
	file, ok := c.entryPath(diffID)
	if !ok {
		return
	}
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	temp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	var payload bytes.Buffer
	err = gob.NewEncoder(&payload).Encode(index)
	if err == nil {
		sum := sha256.Sum256(payload.Bytes())
		writer := bufio.NewWriterSize(temp, 1<<20)
		writer.WriteString(cacheMagic)
		writer.Write(sum[:])
		writer.Write(payload.Bytes())
		err = writer.Flush()
	}
	if closeErr := temp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(temp.Name(), file)
	}
	if err != nil {
		os.Remove(temp.Name())
		return
	}
	c.trim(dir)
}

// trim deletes the least recently used entries while the directory holds
// more than MaxBytes.
func (c *Cache) trim(dir string) {
	limit := c.MaxBytes
	if limit <= 0 {
		limit = DefaultCacheBytes
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type cached struct {
		name string
		size int64
		used time.Time
	}
	var files []cached
	var total int64
	for _, entry := range entries {
		info, err := entry.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if strings.HasPrefix(entry.Name(), ".tmp-") && time.Since(info.ModTime()) < time.Hour {
			continue // another run is writing it
		}
		files = append(files, cached{entry.Name(), info.Size(), info.ModTime()})
		total += info.Size()
	}
	if total <= limit {
		return
	}
	sort.Slice(files, func(i, j int) bool { return files[i].used.Before(files[j].used) })
	for _, file := range files {
		if total <= limit*8/10 {
			break
		}
		if os.Remove(filepath.Join(dir, file.name)) == nil {
			total -= file.size
		}
	}
}

// ImagesFile names the file in the cache directory that lists the images
// the last run read, one "DIGEST REFERENCE PLATFORM" line each, sorted. A CI
// cache keys on its hash: the layer entries a run needs change only when
// the images do.
const ImagesFile = "images.txt"

// RecordImages writes ImagesFile for the images read. The digest is the
// one the registry resolved the reference to, else the manifest's, else a
// sha256 over the layers' diff IDs (a tarball or layout without a manifest
// digest). Like store, it never fails a lint.
func (c *Cache) RecordImages(images []*Image) {
	if c == nil || c.Dir == "" {
		return
	}
	lines := make([]string, 0, len(images))
	for _, img := range images {
		if img == nil || img.Unresolvable != "" {
			continue
		}
		digest := img.Resolved
		if digest == "" {
			digest = img.Digest
		}
		if digest == "" {
			hash := sha256.New()
			for _, layer := range img.Layers {
				hash.Write([]byte(layer.DiffID + "\n"))
			}
			digest = fmt.Sprintf("layers:sha256:%x", hash.Sum(nil))
		}
		platform := img.Platform.String()
		if platform == "" {
			platform = "-"
		}
		// Fields are split at spaces: a reference (or a tarball path) with
		// one is written with the space escaped.
		lines = append(lines, digest+" "+strings.ReplaceAll(img.Reference, " ", "%20")+" "+platform)
	}
	if len(lines) == 0 {
		return // a run that read no image leaves the last list
	}
	sort.Strings(lines)
	lines = slices.Compact(lines)
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return
	}
	temp, err := os.CreateTemp(c.Dir, ".tmp-images-*")
	if err != nil {
		return
	}
	_, err = temp.WriteString(strings.Join(append(lines, ""), "\n"))
	if closeErr := temp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(temp.Name(), filepath.Join(c.Dir, ImagesFile))
	}
	if err != nil {
		os.Remove(temp.Name())
	}
}
