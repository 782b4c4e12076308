package image

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Magic numbers of the layer compressions OCI allows. The media type is not
// trusted: go-containerregistry sniffs too (internal/compression).
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// maxZstdWindow bounds the memory a zstd layer may ask the decoder for;
// layers written by buildkit and containerd use windows of a few MiB.
const maxZstdWindow = 64 << 20

// decompress returns the tar stream inside a stored layer, whatever its
// compression. Gzip goes through inflater (igzip or unpigz, see inflate.go)
// when one is given, else klauspost's decoder, about 1.5× faster than
// compress/gzip (containerd/containerd#13559).
func decompress(ctx context.Context, stored io.Reader, inflater string) (io.ReadCloser, string, error) {
	buffered := bufio.NewReaderSize(stored, 256<<10)
	magic, err := buffered.Peek(4)
	if err != nil && err != io.EOF {
		return nil, "", err
	}
	switch {
	case bytes.HasPrefix(magic, gzipMagic) && inflater != "":
		reader, err := startInflater(ctx, inflater, buffered)
		if err != nil {
			return nil, "", fmt.Errorf("gzip: %w", err)
		}
		return reader, "gzip", nil
	case bytes.HasPrefix(magic, gzipMagic):
		reader, err := gzip.NewReader(buffered)
		if err != nil {
			return nil, "", fmt.Errorf("gzip: %w", err)
		}
		return reader, "gzip", nil
	case bytes.HasPrefix(magic, zstdMagic):
		decoder, err := zstd.NewReader(buffered, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow),
			zstd.WithDecoderMaxMemory(1<<40))
		if err != nil {
			return nil, "", fmt.Errorf("zstd: %w", err)
		}
		return zstdCloser{decoder}, "zstd", nil
	}
	return io.NopCloser(buffered), "none", nil
}

type zstdCloser struct{ *zstd.Decoder }

func (z zstdCloser) Close() error {
	z.Decoder.Close()
	return nil
}
