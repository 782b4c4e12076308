package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/lint/image/elfinfo"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// Options say how an image is read.
type Options struct {
	// Platform is the node platform an index is resolved for.
	Platform v1.Platform
	// Parallelism is how many layers stream at once (default: CPUs).
	Parallelism int
	// Cache keeps per-layer index results by diff ID; nil reads every layer.
	Cache *Cache
	// Progress is told how many stored bytes were read; nil for silence.
	Progress Progress
	// ELFNames are file basenames worth parsing as ELF during the first pass
	// (the entrypoint's name), so its facts need no second read.
	ELFNames []string
	// ConfigOnly skips the layers: only config rules can run.
	ConfigOnly bool
	// Needs names the files whose ELF facts the rules will want, given
	// what is known so far; the loader reads what is missing and asks again.
	Needs func(*Image) []*rootfs.Node
	// Timeout bounds resolving the manifest and config (default 1 minute).
	Timeout time.Duration
	// MaxImageBytes bounds what the image's layers inflate to, all of them
	// together (0: DefaultMaxImageBytes). Time bounds a read too: the
	// context's deadline stops a layer wherever it is.
	MaxImageBytes int64
	// MaxLayerBytes bounds what one layer may inflate to (0: only
	// MaxImageBytes bounds it).
	MaxLayerBytes int64
	// Inflate is how gzip layers are inflated: one of InflateChoices
	// ("" is InflateAuto).
	Inflate string

	inflater string       // the program Inflate resolved to; "" in process
	budget   *imageBudget // what the image's layers inflated to so far
}

// Progress is told how layer reading advances.
type Progress interface {
	Start(reference string, bytes int64)
	Add(bytes int64)
	Done()
}

// SourceRegistry names the reference's own registry as the source.
const SourceRegistry = "registry"

// registryPrefix maps a reference to another registry reference (a mirror,
// a staging registry), as skopeo spells registry references.
const registryPrefix = "docker://"

// maxTargetedRounds bounds how often a needed file leads to another read:
// entrypoint, its interpreter, the interpreter's loader and libraries;
// a Python entry module, then the app modules it imports.
const maxTargetedRounds = 5

// IsSource reports whether a path is an image on disk: a docker-save
// tarball or an OCI image layout directory.
func IsSource(file string) bool {
	info, err := os.Stat(file)
	if err != nil {
		return false
	}
	if info.IsDir() {
		return isLayoutDir(file)
	}
	lower := strings.ToLower(file)
	return strings.HasSuffix(lower, ".tar") && looksLikeSaveArchive(file)
}

// looksLikeSaveArchive checks for manifest.json cheaply: the first members.
func looksLikeSaveArchive(file string) bool { return SaveArchiveError(file) == nil }

// SaveArchiveError says why a file is not a docker-save tarball, or nil.
func SaveArchiveError(file string) error {
	archive, err := openSaveArchive(file)
	if err != nil {
		return err
	}
	defer archive.file.Close()
	if _, ok := archive.members["manifest.json"]; !ok {
		return errors.New("it holds no manifest.json")
	}
	return nil
}

// Open reads an image. source is "" or "registry" for the reference's own
// registry, "docker://REF" for another registry reference, else the path of
// a docker-save tarball or an OCI layout. It returns an *Image with
// Unresolvable set when the reference names no image, an
// *UnreachableError when the registry could not be asked, and any other
// error when the image is broken (a truncated layer, a hostile entry).
func Open(ctx context.Context, reference, source string, options Options) (*Image, error) {
	if options.Timeout <= 0 {
		options.Timeout = time.Minute
	}
	if options.Parallelism <= 0 {
		options.Parallelism = runtime.GOMAXPROCS(0)
	}
	if options.Platform.OS == "" {
		options.Platform = DefaultPlatform
	}
	inflater, err := InflaterPath(options.Inflate)
	if err != nil {
		return nil, err
	}
	options.inflater = inflater
	img := &Image{Reference: reference, Source: source, Platform: options.Platform}
	// The timeout covers resolving the manifest and config only: a layer
	// download may take longer, and go-containerregistry keeps the context
	// of the first request for the lazy layer fetches.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timer := time.AfterFunc(options.Timeout, cancel)
	var opened *stored
	switch {
	case source == "" || source == SourceRegistry:
		img.Source = SourceRegistry
		opened, err = openRegistry(ctx, reference, options.Platform, options.Parallelism)
	case strings.HasPrefix(source, registryPrefix):
		opened, err = openRegistry(ctx, strings.TrimPrefix(source, registryPrefix), options.Platform, options.Parallelism)
	default:
		info, statErr := os.Stat(source)
		if statErr == nil && !info.IsDir() && !info.Mode().IsRegular() {
			statErr = &fileread.NotRegularError{Path: source, Mode: info.Mode()}
		}
		switch {
		case statErr != nil:
			return nil, fmt.Errorf("image source %s: %w", source, statErr)
		case info.IsDir():
			opened, err = openLayout(source, reference, options.Platform)
		default:
			opened, err = openTarball(source, reference)
		}
		if err != nil {
			var unresolvable *UnresolvableError
			if !errors.As(err, &unresolvable) {
				return nil, fmt.Errorf("image source %s: %w", source, err)
			}
		}
	}
	if !timer.Stop() && err != nil {
		err = &UnreachableError{Reference: reference, Err: fmt.Errorf("no answer within %s", options.Timeout)}
	}
	if err != nil {
		var unresolvable *UnresolvableError
		if errors.As(err, &unresolvable) {
			img.Unresolvable = unresolvable.Reason
			return img, nil
		}
		return nil, err
	}
	defer opened.close()
	img.Digest, img.Config, img.Platforms = opened.digest, opened.config, opened.platforms
	img.Resolved = opened.resolved
	for _, layer := range opened.layers {
		entry := Layer{DiffID: layer.diffID.String(), Size: layer.size}
		if layer.digest != (v1.Hash{}) {
			entry.Digest = layer.digest.String()
		}
		img.Layers = append(img.Layers, entry)
	}
	if options.ConfigOnly {
		return img, nil
	}
	options.budget = newImageBudget(options.MaxImageBytes, len(opened.layers))
	if err := img.readLayers(ctx, opened, options); err != nil {
		if img.Source == SourceRegistry || strings.HasPrefix(img.Source, registryPrefix) {
			if reason := interruptedRead(ctx, err); reason != nil {
				return nil, &UnreachableError{Reference: reference, Err: reason}
			}
		}
		return nil, fmt.Errorf("image %s: %w", reference, err)
	}
	return img, nil
}

// interruptedRead says why a layer download stopped when the registry, the
// network or the time limit stopped it rather than the image's content,
// and nil otherwise: a layer whose bytes do not match its digest, or that
// is not a tar, is an error about the image.
func interruptedRead(ctx context.Context, err error) error {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("reading the layers did not finish in time (%w)", err)
	}
	var transportErr *transport.Error
	var netErr net.Error
	var opErr *net.OpError
	if errors.As(err, &transportErr) || errors.As(err, &netErr) || errors.As(err, &opErr) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return err
	}
	return nil
}

// readLayers builds the merged index: cached layers are taken as they are,
// the others stream in parallel; then files the rules need that the first
// pass did not capture are fetched with targeted reads.
func (img *Image) readLayers(ctx context.Context, opened *stored, options Options) error {
	count := len(opened.layers)
	if count > MaxLayers {
		return fmt.Errorf("%d layers, more than the %d overlayfs can stack: the container cannot start", count, MaxLayers)
	}
	indexes := make([]*layerIndex, count)
	// A layer listed several times is read once: the copies share its index.
	first := map[v1.Hash]int{}
	duplicateOf := make([]int, count)
	var pending []int
	for i, layer := range opened.layers {
		duplicateOf[i] = i
		if j, seen := first[layer.diffID]; seen {
			duplicateOf[i] = j
			continue
		}
		first[layer.diffID] = i
		if index, ok := options.Cache.load(layer.diffID.String()); ok {
			indexes[i] = index
			continue
		}
		pending = append(pending, i)
	}
	// verified marks the layers whose bytes were hashed in this run: only
	// their indexes may be written to the cache, under the digest computed.
	verified := make([]bool, count)
	policy := &capturePolicy{elfNames: map[string]bool{}}
	// The image's own entrypoint is worth a close look whatever the
	// manifest says: an image linted on its own starts with it.
	names := append([]string(nil), options.ELFNames...)
	if config := img.Config; config != nil {
		for _, argv := range [][]string{config.Config.Entrypoint, config.Config.Cmd} {
			if len(argv) > 0 {
				names = append(names, argv[0])
			}
		}
	}
	for _, name := range names {
		policy.elfNames[path.Base(name)] = true
	}
	for _, name := range commonInterpreters {
		policy.elfNames[name] = true
	}
	if options.Progress != nil && len(pending) > 0 {
		var total int64
		for _, i := range pending {
			total += opened.layers[i].size
		}
		options.Progress.Start(img.Reference, total)
		defer options.Progress.Done()
	}
	err := forEachLayer(ctx, pending, opened.layers, options.Parallelism, func(i int) error {
		index, err := streamLayer(ctx, i, opened.layers[i], policy, options.Progress, options, true)
		if err != nil {
			return fmt.Errorf("%s: %w", img.LayerName(i), err)
		}
		indexes[i], verified[i] = index, true
		options.Cache.store(opened.layers[i].diffID.String(), index)
		return nil
	})
	if err != nil {
		return err
	}
	for i := range indexes {
		indexes[i] = indexes[duplicateOf[i]]
		verified[i] = verified[duplicateOf[i]]
	}
	fs := rootfs.New()
	img.files = make([]map[string]*FileFacts, count)
	for i, index := range indexes {
		if err := fs.Apply(i, index.Entries); err != nil {
			return fmt.Errorf("%s: %w", img.LayerName(i), err)
		}
		img.files[i] = index.Files
	}
	img.fs = fs
	return img.fetchNeeded(ctx, opened, indexes, verified, options)
}

// commonInterpreters are read closely in the first pass because scripts
// name them: the entrypoint script's interpreter then needs no second read.
var commonInterpreters = []string{"sh", "bash", "dash", "ash", "busybox", "env", "python", "python3", "perl", "node",
	"tini", "dumb-init"}

// fetchNeeded reads, layer by layer, the files the rules need and the
// first pass did not capture (a symlinked entrypoint, a library a binary
// needs, an ELF whose tables lie beyond the captured prefix).
//
// A layer whose index came from the cache is read whole and verified
// before what it yields is stored, so a layer claiming a cached layer's diff
// ID cannot add to that entry.
func (img *Image) fetchNeeded(ctx context.Context, opened *stored, indexes []*layerIndex, verified []bool, options Options) error {
	if options.Needs == nil {
		return nil
	}
	attempted := map[string]bool{}
	for round := 0; round < maxTargetedRounds; round++ {
		requests := map[int]map[string][]elfinfo.Range{}
		for _, node := range options.Needs(img) {
			facts := img.Facts(node)
			if node.Type != rootfs.Regular || facts.complete(true) {
				continue
			}
			key := fmt.Sprintf("%d\x00%s\x00%v", node.OriginLayer, node.OriginName, facts != nil && len(facts.ELFMissing) > 0)
			if attempted[key] {
				continue
			}
			attempted[key] = true
			if requests[node.OriginLayer] == nil {
				requests[node.OriginLayer] = map[string][]elfinfo.Range{}
			}
			var missing []elfinfo.Range
			if facts != nil {
				missing = facts.ELFMissing
			}
			requests[node.OriginLayer][node.OriginName] = missing
		}
		if len(requests) == 0 {
			return nil
		}
		layers := make([]int, 0, len(requests))
		for i := range requests {
			layers = append(layers, i)
		}
		sort.Ints(layers)
		var mu sync.Mutex
		err := forEachLayer(ctx, layers, opened.layers, options.Parallelism, func(i int) error {
			policy := &capturePolicy{exact: requests[i], targeted: true}
			found, err := streamLayer(ctx, i, opened.layers[i], policy, nil, options, !verified[i])
			if err != nil {
				return fmt.Errorf("%s: %w", img.LayerName(i), err)
			}
			mu.Lock()
			defer mu.Unlock()
			for name, facts := range found.Files {
				img.files[i][name] = facts
			}
			verified[i] = true
			options.Cache.store(opened.layers[i].diffID.String(), indexes[i])
			return nil
		})
		if err != nil {
			return err
		}
		img.rounds++
	}
	return nil
}

// streamLayer opens, decompresses and indexes layer i, hashing the
// stored bytes against the layer's digest and the tar against its diff ID
// in the same pass: a layer that does not verify is an error, whatever its
// source (go-containerregistry checks registry blobs only). A targeted read
// that is not asked to verify (the layer verified earlier in this run)
// stops once it has what it came for.
func streamLayer(ctx context.Context, i int, layer storedLayer, policy *capturePolicy, progress Progress, options Options, verify bool) (*layerIndex, error) {
	var uncompressed *hashingReader
	index, err := readLayer(ctx, i, layer, policy, progress, options, verify, &uncompressed)
	if err != nil && ctx.Err() != nil {
		// Whatever the stop surfaced as (a read, the inflater killed), the
		// time is what ended it.
		inflated := ""
		if uncompressed != nil {
			inflated = fmt.Sprintf(" (%s inflated so far)", sizeText(uncompressed.read))
		}
		return nil, fmt.Errorf("not read in time%s: %w", inflated, context.Cause(ctx))
	}
	return index, err
}

// readLayer is streamLayer's pass; it sets *uncompressed to the reader of
// the inflated bytes once there is one.
func readLayer(ctx context.Context, i int, layer storedLayer, policy *capturePolicy, progress Progress, options Options, verify bool,
	uncompressed **hashingReader) (*layerIndex, error) {
	reader, err := layer.open()
	if err != nil {
		return nil, err
	}
	defer reader.Close()
	var stored io.Reader = reader
	if progress != nil {
		stored = &countingReader{reader: reader, progress: progress}
	}
	// The stored bytes are hashed only when there is a digest to check
	// them against that their source does not check itself: a docker-save
	// layer has none (its diff ID is checked below), and
	// go-containerregistry's reader checks a registry blob's. Hashing a
	// large layer for nothing costs a noticeable share of the run.
	checkDigest := layer.digest != (v1.Hash{}) && !layer.digestVerified
	compressed := newHashingReader(ctx, stored, nil)
	if !checkDigest {
		compressed.hash = nil
	}
	stream, _, err := decompress(ctx, compressed, options.inflater)
	if err != nil {
		return nil, truncated(err)
	}
	defer stream.Close()
	tar := newHashingReader(ctx, stream, options.inflateBound(i, layer))
	*uncompressed = tar
	index, err := indexLayer(tar, policy)
	if err != nil {
		return nil, digestMismatch(err)
	}
	if policy.targeted && !verify {
		return index, nil
	}
	// The indexer stops at the tar's end; the rest (padding, the
	// compressor's trailer with its CRC) is read to check both digests.
	if _, err := io.Copy(io.Discard, tar); err != nil {
		return nil, digestMismatch(truncated(err))
	}
	if _, err := io.Copy(io.Discard, compressed); err != nil {
		return nil, digestMismatch(err)
	}
	if err := tar.check("diff ID", layer.diffID); err != nil {
		return nil, err
	}
	if checkDigest {
		if err := compressed.check("digest", layer.digest); err != nil {
			return nil, err
		}
	}
	return index, nil
}

// inflateBound checks what layer i inflated to so far against the
// layer's bound and the image's.
func (o Options) inflateBound(i int, layer storedLayer) func(int64) error {
	return func(read int64) error {
		if o.MaxLayerBytes > 0 && read > o.MaxLayerBytes {
			return fmt.Errorf("it inflates to more than the %s --max-layer-size allows", sizeText(o.MaxLayerBytes))
		}
		if o.budget != nil && !o.budget.count(i, read) {
			return o.budget.exceeded(i, read, layer.size)
		}
		return nil
	}
}

// digestMismatch names what go-containerregistry's verifying reader
// reports ("error verifying sha256 checksum …") in the user's terms.
func digestMismatch(err error) error {
	if strings.Contains(err.Error(), "error verifying") {
		return fmt.Errorf("the registry sent bytes that do not match the layer's digest (%w)", err)
	}
	return err
}

type countingReader struct {
	reader   io.Reader
	progress Progress
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.reader.Read(p)
	c.progress.Add(int64(n))
	return n, err
}

// forEachLayer runs work for the given layers, largest first (so the
// longest stream starts early), at most parallelism at once; the first
// error cancels the rest. A layer stopped because another passed the
// image's bound does not hide that layer's error.
func forEachLayer(ctx context.Context, indexes []int, layers []storedLayer, parallelism int, work func(int) error) error {
	order := append([]int(nil), indexes...)
	sort.SliceStable(order, func(a, b int) bool { return layers[order[a]].size > layers[order[b]].size })
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for w := 0; w < min(max(parallelism, 1), len(order)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := work(i); err != nil {
					mu.Lock()
					if first == nil || errors.Is(first, errOtherLayerOver) && !errors.Is(err, errOtherLayerOver) {
						first = err
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
	for _, i := range order {
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return first
}
