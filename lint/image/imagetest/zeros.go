package imagetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Zeros reads as endless zero bytes.
var Zeros io.Reader = zeros{}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// ZeroFileLayer is a gzip layer whose tar holds one file of size zero
// bytes at name, compressed as NewLayer compresses (gzip's fastest
// level, one stream): a model file of zeros is stored ~820 times smaller
// than it is, as small as a decompression bomb. The tar streams through
// the compressor and the diff ID's hash, so only the compressed bytes
// are held, whatever the size.
func ZeroFileLayer(name string, size int64) (*Layer, error) {
	var compressed bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&compressed, gzip.BestSpeed)
	diffID := sha256.New()
	writer := tar.NewWriter(io.MultiWriter(gz, diffID))
	header := &tar.Header{Name: strings.TrimPrefix(name, "/"), Typeflag: tar.TypeReg, Mode: 0o644, Size: size,
		ModTime: epoch, Format: tar.FormatPAX}
	if err := writer.WriteHeader(header); err != nil {
		return nil, err
	}
	if _, err := io.CopyN(writer, Zeros, size); err != nil {
		return nil, err
	}
	if err := writer.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	hash := v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(diffID.Sum(nil))}
	return NewLayerFromCompressed(compressed.Bytes(), hash, types.OCILayer), nil
}
