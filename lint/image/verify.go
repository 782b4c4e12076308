package image

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// Bounds on what one layer may expand to. A runtime unpacks whatever a
// layer holds, but a lint reads every byte of it, so a gzip or zstd bomb
// (a few MiB that inflate to tens of GiB) would hold a CI job for minutes.
const (
	// maxLayerExpansion bounds uncompressed over stored bytes. Layers of
	// text (site-packages, node_modules) compress 4–10×; gzip itself cannot
	// exceed ~1032×, zstd can reach tens of thousands.
	maxLayerExpansion = 32
	// minLayerAllowance is what any layer may expand to whatever its stored
	// size: small layers of sparse zero-filled files stay readable.
	minLayerAllowance = 512 << 20
	// MaxLayers bounds the layers of one image: overlayfs stacks at most
	// 500 lower layers (OVL_MAX_STACK), so a longer image cannot start.
	MaxLayers = 500
)

// layerAllowance is how many uncompressed bytes a layer stored in size
// bytes may hold; an explicit maximum (Options.MaxLayerBytes) replaces it.
func layerAllowance(size, explicit int64) int64 {
	if explicit > 0 {
		return explicit
	}
	if size > 0 && size < (1<<62)/maxLayerExpansion {
		return max(size*maxLayerExpansion, minLayerAllowance)
	}
	return minLayerAllowance
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

// hashingReader hashes what passes through it and counts it against a
// limit.
type hashingReader struct {
	ctx    context.Context
	reader io.Reader
	hash   hash.Hash // nil: counted, not hashed (the source verifies it)
	read   int64
	limit  int64 // 0: unbounded
	// limitError explains the limit when it is passed.
	limitError func(limit int64) error
}

func newHashingReader(ctx context.Context, reader io.Reader, limit int64, limitError func(int64) error) *hashingReader {
	return &hashingReader{ctx: ctx, reader: reader, hash: sha256.New(), limit: limit, limitError: limitError}
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
	if h.limit > 0 && h.read > h.limit {
		return n, h.limitError(h.limit)
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
