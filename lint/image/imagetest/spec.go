package imagetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/zstd"
	"sigs.k8s.io/yaml"
)

// Spec is an images.yaml file: the images a scenario's manifests name.
type Spec struct {
	Images []ImageSpec `json:"images"`
	// Sources limits the ways the scenario is read ("tarball", "layout",
	// "registry"); all three by default.
	Sources []string `json:"sources,omitempty"`
}

// ImageSpec is one image.
type ImageSpec struct {
	// Ref is the reference the manifests write.
	Ref string `json:"ref"`
	// Absent images are never built: the registry answers MANIFEST_UNKNOWN.
	Absent bool `json:"absent,omitempty"`
	// Platforms builds an index with one image per os/arch (same layers,
	// config architecture set per platform).
	Platforms []string    `json:"platforms,omitempty"`
	Config    ConfigSpec  `json:"config"`
	Layers    []LayerSpec `json:"layers"`
}

// ConfigSpec is the part of the image config a scenario sets.
type ConfigSpec struct {
	Architecture string            `json:"architecture,omitempty"`
	Entrypoint   []string          `json:"entrypoint,omitempty"`
	Cmd          []string          `json:"cmd,omitempty"`
	Env          []string          `json:"env,omitempty"`
	User         string            `json:"user,omitempty"`
	WorkingDir   string            `json:"workingDir,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	Shell        []string          `json:"shell,omitempty"`
}

// LayerSpec is one layer: its entries in tar order.
type LayerSpec struct {
	// Compression is gzip (default), zstd or none.
	Compression string     `json:"compression,omitempty"`
	Files       []FileSpec `json:"files"`
}

// FileSpec is one tar entry. Exactly one of Content, ELF, Symlink,
// Hardlink, Dir, Whiteout, Opaque says what it is (Content by default).
type FileSpec struct {
	Path    string `json:"path"`
	Mode    string `json:"mode,omitempty"` // octal, default 0644 (0755 for dirs and ELF files)
	UID     int    `json:"uid,omitempty"`
	GID     int    `json:"gid,omitempty"`
	Content string `json:"content,omitempty"`
	// From copies a file's bytes (a SavedModel, a safetensors file),
	// relative to the images.yaml file.
	From string `json:"from,omitempty"`
	// Size makes a file of that many zero bytes: the weights of a large
	// model, which compress to almost nothing.
	Size     int64  `json:"size,omitempty"`
	ELF      string `json:"elf,omitempty"` // a kind from ELFKinds
	Symlink  string `json:"symlink,omitempty"`
	Hardlink string `json:"hardlink,omitempty"`
	Dir      bool   `json:"dir,omitempty"`
	Whiteout bool   `json:"whiteout,omitempty"`
	Opaque   bool   `json:"opaque,omitempty"`
}

// ReadSpec parses an images.yaml file strictly.
func ReadSpec(file string) (*Spec, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	spec := &Spec{}
	if err := yaml.UnmarshalStrict(data, spec); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for i := range spec.Images {
		for j := range spec.Images[i].Layers {
			files := spec.Images[i].Layers[j].Files
			for k := range files {
				if files[k].From == "" {
					continue
				}
				content, err := os.ReadFile(filepath.Join(filepath.Dir(file), filepath.FromSlash(files[k].From)))
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %w", file, files[k].Path, err)
				}
				files[k].Content, files[k].From = string(content), ""
			}
		}
	}
	return spec, nil
}

// UsesELF reports whether an image holds binaries built on this host,
// whose bytes (and so layer digests) depend on the host's toolchain.
func (s *ImageSpec) UsesELF() bool {
	for _, layer := range s.Layers {
		for _, file := range layer.Files {
			if file.ELF != "" && !isStub(file.ELF) {
				return true
			}
		}
	}
	return false
}

// epoch is every entry's mtime, so layers are byte-for-byte reproducible.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Built is an image spec turned into go-containerregistry images, one per
// platform (a single image when the spec names none).
type Built struct {
	Spec   *ImageSpec
	Images map[string]v1.Image // by platform "os/arch"
	Order  []string            // platforms in spec order
}

// Build makes the images of a spec. elf builds ELF files (nil when the
// spec has none).
func Build(spec *ImageSpec, elf *ELFBuilder) (*Built, error) {
	var layers []v1.Layer
	for i, layerSpec := range spec.Layers {
		data, err := layerTar(layerSpec, elf)
		if err != nil {
			return nil, fmt.Errorf("%s layer %d: %w", spec.Ref, i+1, err)
		}
		layer, err := NewLayer(data, layerSpec.Compression)
		if err != nil {
			return nil, fmt.Errorf("%s layer %d: %w", spec.Ref, i+1, err)
		}
		layers = append(layers, layer)
	}
	platforms := spec.Platforms
	if len(platforms) == 0 {
		arch := spec.Config.Architecture
		if arch == "" {
			arch = "amd64"
		}
		platforms = []string{"linux/" + arch}
	}
	built := &Built{Spec: spec, Images: map[string]v1.Image{}}
	for _, platform := range platforms {
		osName, arch, _ := strings.Cut(platform, "/")
		if spec.Config.Architecture != "" && len(spec.Platforms) == 0 {
			arch = spec.Config.Architecture
		}
		base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
		base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
		img, err := mutate.AppendLayers(base, layers...)
		if err != nil {
			return nil, err
		}
		configFile, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		configFile = configFile.DeepCopy()
		configFile.OS, configFile.Architecture = osName, arch
		configFile.Created = v1.Time{Time: epoch}
		configFile.Config = v1.Config{
			Entrypoint: spec.Config.Entrypoint, Cmd: spec.Config.Cmd, Env: spec.Config.Env, User: spec.Config.User,
			WorkingDir: spec.Config.WorkingDir, Labels: spec.Config.Labels, Shell: spec.Config.Shell,
		}
		img, err = mutate.ConfigFile(img, configFile)
		if err != nil {
			return nil, err
		}
		built.Images[platform] = img
		built.Order = append(built.Order, platform)
	}
	return built, nil
}

// layerTar writes a layer's entries as an uncompressed tar.
func layerTar(layer LayerSpec, elf *ELFBuilder) ([]byte, error) {
	var buf bytes.Buffer
	writer := tar.NewWriter(&buf)
	for _, file := range layer.Files {
		name := strings.TrimPrefix(file.Path, "/")
		header := &tar.Header{Name: name, Uid: file.UID, Gid: file.GID, ModTime: epoch, Format: tar.FormatPAX}
		var body []byte
		defaultMode := int64(0o644)
		switch {
		case file.Whiteout:
			dir, base := path.Split(name)
			header.Name, header.Typeflag = dir+".wh."+base, tar.TypeReg
		case file.Opaque:
			header.Name, header.Typeflag = strings.TrimSuffix(name, "/")+"/.wh..wh..opq", tar.TypeReg
		case file.Dir:
			header.Name, header.Typeflag, defaultMode = strings.TrimSuffix(name, "/")+"/", tar.TypeDir, 0o755
		case file.Symlink != "":
			header.Typeflag, header.Linkname, defaultMode = tar.TypeSymlink, file.Symlink, 0o777
		case file.Hardlink != "":
			header.Typeflag, header.Linkname = tar.TypeLink, strings.TrimPrefix(file.Hardlink, "/")
		case isStub(file.ELF):
			data, err := StubELF(file.ELF)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file.Path, err)
			}
			header.Typeflag, body, defaultMode = tar.TypeReg, data, 0o755
		case file.ELF != "":
			if elf == nil {
				return nil, fmt.Errorf("%s: ELF files need an ELF builder", file.Path)
			}
			data, err := elf.Build(file.ELF)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file.Path, err)
			}
			header.Typeflag, body, defaultMode = tar.TypeReg, data, 0o755
		case file.Size > 0:
			header.Typeflag, body = tar.TypeReg, make([]byte, file.Size)
		default:
			header.Typeflag, body = tar.TypeReg, []byte(file.Content)
		}
		header.Mode = defaultMode
		if file.Mode != "" {
			mode, err := strconv.ParseInt(file.Mode, 8, 32)
			if err != nil {
				return nil, fmt.Errorf("%s: mode %q is not octal", file.Path, file.Mode)
			}
			header.Mode = mode
		}
		header.Size = int64(len(body))
		if err := writer.WriteHeader(header); err != nil {
			return nil, err
		}
		if _, err := writer.Write(body); err != nil {
			return nil, err
		}
	}
	if err := writer.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Layer is a layer held in memory, compressed as asked.
type Layer struct {
	compressed, uncompressed []byte
	mediaType                types.MediaType
	digest, diffID           v1.Hash
}

var _ v1.Layer = (*Layer)(nil)

// NewLayer compresses a tar with gzip (""), zstd or none.
func NewLayer(tarData []byte, compression string) (*Layer, error) {
	layer := &Layer{uncompressed: tarData}
	switch compression {
	case "", "gzip":
		var buf bytes.Buffer
		writer, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		writer.Write(tarData)
		writer.Close()
		layer.compressed, layer.mediaType = buf.Bytes(), types.OCILayer
	case "zstd":
		encoder, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		layer.compressed, layer.mediaType = encoder.EncodeAll(tarData, nil), types.OCILayerZStd
		encoder.Close()
	case "none":
		layer.compressed, layer.mediaType = tarData, types.OCIUncompressedLayer
	default:
		return nil, fmt.Errorf("compression %q: want gzip, zstd or none", compression)
	}
	layer.digest = sha(layer.compressed)
	layer.diffID = sha(tarData)
	return layer, nil
}

// NewLayerFromCompressed wraps bytes that are already compressed.
func NewLayerFromCompressed(compressed []byte, diffID v1.Hash, mediaType types.MediaType) *Layer {
	return &Layer{compressed: compressed, mediaType: mediaType, digest: sha(compressed), diffID: diffID}
}

func sha(data []byte) v1.Hash {
	sum := sha256.Sum256(data)
	return v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(sum[:])}
}

func (l *Layer) Digest() (v1.Hash, error)            { return l.digest, nil }
func (l *Layer) DiffID() (v1.Hash, error)            { return l.diffID, nil }
func (l *Layer) Size() (int64, error)                { return int64(len(l.compressed)), nil }
func (l *Layer) MediaType() (types.MediaType, error) { return l.mediaType, nil }
func (l *Layer) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(l.compressed)), nil
}
func (l *Layer) Uncompressed() (io.ReadCloser, error) {
	if l.uncompressed == nil {
		return nil, fmt.Errorf("layer %s holds only its compressed bytes", l.digest)
	}
	return io.NopCloser(bytes.NewReader(l.uncompressed)), nil
}
