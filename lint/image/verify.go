package image

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Bounds on what reading an image may cost. A runtime unpacks whatever a
// layer holds, but a lint reads every byte of it, so a gzip or zstd bomb
// (a few MiB that inflate to tens of GiB) would hold a CI job for minutes.
// How well a layer compresses does not tell a bomb from a real layer: a
// model file of zeros (an embedding table before training, a checkpoint
// padded to its final size) is stored 800× smaller than it is, as a gzip
// bomb is. What bounds a read is its time (the context: the run's
// --timeout) and what the image's layers inflate to, all together.
const (
	// DefaultMaxImageBytes bounds what one image's layers inflate to when
	// Options.MaxImageBytes is 0. Model images of tens of GiB are common
	// (a 13B-parameter model in fp16 is 26 GB); a bomb costs at most this
	// much inflating and hashing, unless the time runs out first.
	DefaultMaxImageBytes = 64 << 30
	// MaxLayers bounds the layers of one image: overlayfs stacks at most
	// 500 lower layers (OVL_MAX_STACK), so a longer image cannot start.
	MaxLayers = 500
)

// imageBudget counts what an image's layers inflate to against the
// image's bound, all layers together as they stream in parallel. A layer
// read again (a targeted read) counts only what it inflates past its
// earlier reads: the bound is on the image's content, not on how often a
// layer is read.
type imageBudget struct {
	limit    int64
	explicit bool // set by the caller (--max-image-size), not the default
	mu       sync.Mutex
	total    int64
	counted  []int64 // by layer: the most one read of it inflated
	crossed  int     // the layer whose read passed the bound; -1 before
}

// errOtherLayerOver stops a layer's read because another layer's passed
// the image's bound; that layer's error is the one to report.
var errOtherLayerOver = errors.New("another layer passed the image's bound")

func newImageBudget(limit int64, layers int) *imageBudget {
	budget := &imageBudget{limit: limit, explicit: limit > 0, counted: make([]int64, layers), crossed: -1}
	if !budget.explicit {
		budget.limit = DefaultMaxImageBytes
	}
	return budget
}

// count records that a read of layer i has inflated read bytes so far,
// and reports whether the image is still within its bound.
func (b *imageBudget) count(i int, read int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if read > b.counted[i] {
		b.total += read - b.counted[i]
		b.counted[i] = read
	}
	if b.total > b.limit && b.crossed < 0 {
		b.crossed = i
	}
	return b.total <= b.limit
}

// exceeded explains the bound to layer i, over it having inflated read
// bytes from stored compressed ones. Only the layer whose read passed the
// bound is named: a small layer read after it has nothing to explain.
func (b *imageBudget) exceeded(i int, read, stored int64) error {
	b.mu.Lock()
	crossed := b.crossed
	b.mu.Unlock()
	if crossed != i {
		return errOtherLayerOver
	}
	allows := "allows"
	if !b.explicit {
		allows = "allows by default"
	}
	from := ""
	if stored > 0 {
		from = ", from " + sizeText(stored) + " stored"
	}
	return fmt.Errorf("the image's layers inflate to more than the %s --max-image-size %s (this layer: %s so far%s): "+
		"a decompression bomb, or an image that needs a larger --max-image-size", sizeText(b.limit), allows, sizeText(read), from)
}

// sizeText writes a size as people read it: 64 GiB, 256 MiB, 1.2 GiB.
func sizeText(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	if n < 1<<10 {
		return fmt.Sprintf("%d B", n)
	}
	unit := 0
	for unit+1 < len(units) && n >= 1<<(10*(unit+2)) {
		unit++
	}
	scale := int64(1) << (10 * (unit + 1))
	if n%scale == 0 {
		return fmt.Sprintf("%d %s", n/scale, units[unit])
	}
	return fmt.Sprintf("%.1f %s", float64(n)/float64(scale), units[unit])
}

// DigestError is a layer whose bytes do not hash to what the image says
// they are: the archive or layout is corrupt or was altered. A runtime
// refuses such a layer, so nothing read from it can be trusted.
type DigestError struct {
	What     string // "diff ID" or "digest"
	Expected v1.Hash
	Computed v1.Hash
}

func (e *DigestError) Error() string {
	return fmt.Sprintf("its bytes hash to %s, not the %s %s the image names: the image is corrupt or was altered (docker load and the kubelet refuse it)",
		e.Computed, e.What, e.Expected)
}

// hashingReader hashes what passes through it and tells a bound how
// much has.
type hashingReader struct {
	ctx    context.Context
	reader io.Reader
	hash   hash.Hash // nil: counted, not hashed (the source verifies it)
	read   int64
	// bound is told the bytes read so far after each read; its error
	// stops the read (nil: unbounded).
	bound func(read int64) error
}

func newHashingReader(ctx context.Context, reader io.Reader, bound func(int64) error) *hashingReader {
	return &hashingReader{ctx: ctx, reader: reader, hash: sha256.New(), bound: bound}
}

func (h *hashingReader) Read(p []byte) (int, error) {
	// A local archive never blocks, so only the context can stop a long
	// read of it (--timeout).
	if err := h.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := h.reader.Read(p)
	if h.hash != nil {
		h.hash.Write(p[:n])
	}
	h.read += int64(n)
	if h.bound != nil && n > 0 {
		if boundErr := h.bound(h.read); boundErr != nil {
			return n, boundErr
		}
	}
	return n, err
}

// check compares what was hashed with the expected digest; an expected
// digest of another algorithm than sha256 cannot be checked and is refused.
func (h *hashingReader) check(what string, expected v1.Hash) error {
	if expected.Algorithm != "sha256" {
		return fmt.Errorf("%s %s: only sha256 digests can be verified", what, expected)
	}
	computed := v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%x", h.hash.Sum(nil))}
	if computed != expected {
		return &DigestError{What: what, Expected: expected, Computed: computed}
	}
	return nil
}
