package image

import (
	"fmt"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/modellint/modellint/lint/image/rootfs"
)

// Image is what modellint knows about one container image.
type Image struct {
	// Reference is the image as the manifest writes it, or the source path
	// of an image linted on its own.
	Reference string
	// Source says where the facts came from: "registry", a registry
	// reference it was mapped to, or a tarball or layout path.
	Source string
	// Digest is the manifest digest when it is known without hashing.
	Digest string
	// Resolved is the digest a registry resolved the reference to (the
	// index's for a multi-platform image): what pinning the reference
	// with @sha256:… writes. "" for tarballs and layouts.
	Resolved string
	Platform v1.Platform
	// Platforms are the platforms of the index Platform was chosen from
	// (attestations left out); nil for a single-platform image, whose
	// platform is its config's.
	Platforms []v1.Platform
	// Unresolvable says why the reference names no pullable image (MDL310);
	// nothing else is known then.
	Unresolvable string
	// Config is the image config (entrypoint, env, user, labels, arch).
	Config *v1.ConfigFile
	Layers []Layer

	fs    *rootfs.FS
	files []map[string]*FileFacts // per layer, by entry name
	// rounds counts the targeted reads that added facts (see Rounds).
	rounds int
}

// Layer is one layer of the image. DiffID (the digest of the uncompressed
// tar, as `docker inspect` lists under RootFS.Layers) is known for every
// source without reading the layer, so it is what findings cite.
type Layer struct {
	DiffID string
	Digest string // the stored (compressed) digest, when known
	Size   int64
}

// Rounds counts the targeted reads that added facts after the first pass:
// an analysis made when it was lower is out of date.
func (img *Image) Rounds() int { return img.rounds }

// FS is the merged filesystem; nil when layers were not read (the rules
// that need it say so and skip).
func (img *Image) FS() *rootfs.FS { return img.fs }

// Facts returns the captured content facts of a node's file, nil when its
// content was not captured.
func (img *Image) Facts(node *rootfs.Node) *FileFacts {
	if node == nil || node.OriginLayer < 0 || node.OriginLayer >= len(img.files) {
		return nil
	}
	return img.files[node.OriginLayer][node.OriginName]
}

// ReadText returns the content of a small well-known file (/etc/passwd …)
// after resolving symlinks, and whether it exists.
func (img *Image) ReadText(path string) ([]byte, bool) {
	if img.fs == nil {
		return nil, false
	}
	node, err := img.fs.Stat(path)
	if err != nil || node.Type != rootfs.Regular {
		return nil, false
	}
	facts := img.Facts(node)
	if facts == nil || facts.Text == nil {
		return nil, false
	}
	return facts.Text, true
}

// LayerOf describes the layer that wrote a node, for messages: "layer 3/5
// sha256:0123456789ab".
func (img *Image) LayerOf(node *rootfs.Node) string {
	if node == nil {
		return ""
	}
	return img.LayerName(node.Layer)
}

// LayerDigest is the diff ID of the layer that wrote a node.
func (img *Image) LayerDigest(node *rootfs.Node) string {
	if node == nil || node.Layer < 0 || node.Layer >= len(img.Layers) {
		return ""
	}
	return img.Layers[node.Layer].DiffID
}

// LayerName describes layer i (0-based) for messages.
func (img *Image) LayerName(i int) string {
	if i < 0 || i >= len(img.Layers) {
		return "no layer (created implicitly)"
	}
	return fmt.Sprintf("layer %d/%d %s", i+1, len(img.Layers), ShortDigest(img.Layers[i].DiffID))
}

// ShortDigest abbreviates a digest the way `docker images` does.
func ShortDigest(digest string) string {
	algorithm, hex, ok := strings.Cut(digest, ":")
	if !ok || len(hex) <= 12 {
		return digest
	}
	return algorithm + ":" + hex[:12]
}

// Env returns the image config's environment as an ordered list of
// NAME=value strings.
func (img *Image) Env() []string {
	if img.Config == nil {
		return nil
	}
	return img.Config.Config.Env
}

// Architecture is the config's os/arch[/variant].
func (img *Image) Architecture() string {
	if img.Config == nil {
		return ""
	}
	platform := v1.Platform{OS: img.Config.OS, Architecture: img.Config.Architecture, Variant: img.Config.Variant}
	return platform.String()
}
