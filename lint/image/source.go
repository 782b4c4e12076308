package image

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/modellint/modellint/internal/fileread"

	"github.com/modellint/modellint/internal/message"
)

// stored is an opened image: its config, and a way to read each layer as
// it is stored (compressed or not).
type stored struct {
	digest string // the manifest digest, "" when it is not known without hashing
	// resolved is what a registry resolved the reference to: the index's
	// digest for a multi-platform image, else the manifest's; "" for
	// local sources.
	resolved string
	// platforms are those of the index the image was chosen from; nil
	// for an image pulled by its own manifest.
	platforms []v1.Platform
	config    *v1.ConfigFile
	layers    []storedLayer
	close     func() error
}

type storedLayer struct {
	diffID v1.Hash
	digest v1.Hash // zero when not known without hashing (docker-save layers)
	size   int64   // stored size, 0 when unknown
	open   func() (io.ReadCloser, error)
	// digestVerified says open's reader checks the digest itself
	// (go-containerregistry's registry blobs), so the pass need not.
	digestVerified bool
}

// UnresolvableError means the reference names no image for the platform:
// the pull would fail with ErrImagePull / ImagePullBackOff (MDL310).
type UnresolvableError struct {
	Reference string
	Reason    string
}

func (e *UnresolvableError) Error() string { return e.Reference + ": " + e.Reason }

// UnreachableError means the registry could not be asked (network, DNS,
// TLS, credentials, server errors): nothing is known about the image, and
// the image rules are skipped with a note rather than failed or passed.
type UnreachableError struct {
	Reference string
	Err       error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s: registry not reachable: %v", e.Reference, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// DefaultPlatform is what an unqualified pull selects on an amd64 node.
var DefaultPlatform = v1.Platform{OS: "linux", Architecture: "amd64"}

// ParsePlatform reads os/arch[/variant], e.g. linux/arm64/v8.
func ParsePlatform(value string) (v1.Platform, error) {
	platform, err := v1.ParsePlatform(value)
	if err != nil || platform.OS == "" || platform.Architecture == "" {
		return v1.Platform{}, fmt.Errorf("platform %s: want os/arch[/variant], e.g. linux/amd64", message.Quote(value))
	}
	return *platform, nil
}

// platformMatches compares what an index entry declares with what was
// asked; an unset variant matches any (arm64 images rarely declare v8).
func platformMatches(have *v1.Platform, want v1.Platform) bool {
	if have == nil {
		return false
	}
	if have.OS != want.OS || have.Architecture != want.Architecture {
		return false
	}
	return want.Variant == "" || have.Variant == "" || have.Variant == want.Variant
}

// openRegistry resolves a reference through its registry, with the user's
// docker/podman credentials (authn.DefaultKeychain).
func openRegistry(ctx context.Context, reference string, platform v1.Platform, jobs int) (*stored, error) {
	ref, err := name.ParseReference(reference)
	if err != nil {
		return nil, &UnresolvableError{Reference: reference, Reason: "not a valid image reference (" + err.Error() + "); the kubelet reports InvalidImageName"}
	}
	if err := checkCredentials(); err != nil {
		return nil, err
	}
	options := []remote.Option{
		remote.WithContext(ctx),
		remote.WithAuthFromKeychain(authn.DefaultKeychain),
		remote.WithTransport(registryTransport()),
		remote.WithUserAgent("modellint"),
		remote.WithJobs(max(jobs, 1)),
		// One retry: a registry that does not answer twice will not answer
		// a linter waiting in CI either.
		remote.WithRetryBackoff(remote.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Steps: 2}),
	}
	descriptor, err := remote.Get(ref, options...)
	if err != nil {
		return nil, classifyRegistryError(reference, err)
	}
	var img v1.Image
	digest := descriptor.Digest.String()
	if descriptor.MediaType.IsIndex() {
		index, err := descriptor.ImageIndex()
		if err != nil {
			return nil, classifyRegistryError(reference, err)
		}
		manifest, err := index.IndexManifest()
		if err != nil {
			return nil, classifyRegistryError(reference, err)
		}
		chosen, err := choosePlatform(reference, manifest, platform)
		if err != nil {
			return nil, err
		}
		img, err = index.Image(chosen.Digest)
		if err != nil {
			return nil, classifyRegistryError(reference, err)
		}
		digest = chosen.Digest.String()
		opened, err := fromV1Image(img, digest, true)
		if err != nil {
			return nil, classifyRegistryError(reference, err)
		}
		opened.platforms = indexPlatforms(manifest)
		opened.resolved = descriptor.Digest.String()
		return opened, nil
	} else {
		img, err = descriptor.Image()
		if err != nil {
			return nil, classifyRegistryError(reference, err)
		}
	}
	opened, err := fromV1Image(img, digest, true)
	if err != nil {
		return nil, classifyRegistryError(reference, err)
	}
	opened.resolved = digest
	return opened, nil
}

// indexPlatforms are the platforms an index offers, without the
// attestation entries (platform unknown/unknown).
func indexPlatforms(manifest *v1.IndexManifest) []v1.Platform {
	var platforms []v1.Platform
	for _, entry := range manifest.Manifests {
		if entry.Platform != nil && entry.Platform.OS != "unknown" {
			platforms = append(platforms, *entry.Platform)
		}
	}
	return platforms
}

// choosePlatform picks the index entry a node of the platform would pull.
func choosePlatform(reference string, manifest *v1.IndexManifest, platform v1.Platform) (*v1.Descriptor, error) {
	var available []string
	for i := range manifest.Manifests {
		entry := &manifest.Manifests[i]
		if entry.Platform != nil && entry.Platform.OS != "unknown" {
			available = append(available, entry.Platform.String())
		}
		if platformMatches(entry.Platform, platform) {
			return entry, nil
		}
	}
	sort.Strings(available)
	return nil, &UnresolvableError{Reference: reference,
		Reason: fmt.Sprintf("the index has no image for %s (it has %s); the kubelet reports \"no matching manifest for %s\"",
			platform.String(), orNone(strings.Join(available, ", ")), platform.String())}
}

func orNone(list string) string {
	if list == "" {
		return "none"
	}
	return list
}

// registryTransport fails fast when a registry cannot be reached: a CI lint
// should not hang on a firewall.
func registryTransport() http.RoundTripper {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	base.TLSHandshakeTimeout = 10 * time.Second
	base.ResponseHeaderTimeout = 30 * time.Second
	return redirectLimit{base}
}

// maxRedirects is how many redirects one registry request may follow, as
// net/http's default policy allows; go-containerregistry replaces that
// policy with an SSRF check that has no count, so a blob redirecting to
// itself would be followed until the timeout.
const maxRedirects = 10

// redirectLimit refuses a request that is the maxRedirects-th redirect of
// a chain (each redirected request carries the response that caused it).
type redirectLimit struct{ base http.RoundTripper }

func (l redirectLimit) RoundTrip(req *http.Request) (*http.Response, error) {
	hops := 0
	for previous := req.Response; previous != nil && previous.Request != nil; previous = previous.Request.Response {
		if hops++; hops > maxRedirects {
			return nil, fmt.Errorf("%s: stopped after %d redirects", redactedURL(req), maxRedirects)
		}
	}
	return l.base.RoundTrip(req)
}

// redactedURL is a request's URL without its query, where signed blob
// URLs carry their credentials.
func redactedURL(req *http.Request) string {
	u := *req.URL
	u.RawQuery, u.User = "", nil
	return u.String()
}

// classifyRegistryError separates "the registry says there is no such
// image" (MDL310) from "the registry could not be asked" (skipped, noted).
func classifyRegistryError(reference string, err error) error {
	err = redactedError{err}
	var transportErr *transport.Error
	if errors.As(err, &transportErr) {
		for _, diagnostic := range transportErr.Errors {
			switch diagnostic.Code {
			case transport.ManifestUnknownErrorCode:
				// Distribution (Docker's registry, Harbor) answers this for a
				// missing repository too, not only for a missing tag.
				return &UnresolvableError{Reference: reference, Reason: "the registry has no such image (MANIFEST_UNKNOWN: nothing " +
					"was pushed under this tag or digest)"}
			case transport.NameUnknownErrorCode:
				return &UnresolvableError{Reference: reference, Reason: "the registry has no such image (NAME_UNKNOWN: it has no " +
					"repository of this name)"}
			case transport.BlobUnknownErrorCode:
				return &UnresolvableError{Reference: reference, Reason: "the registry has no such image (BLOB_UNKNOWN: the manifest " +
					"names a blob the registry does not hold)"}
			case transport.NameInvalidErrorCode, transport.TagInvalidErrorCode, transport.ManifestInvalidErrorCode:
				return &UnresolvableError{Reference: reference, Reason: "the registry rejects the reference (" + string(diagnostic.Code) + ")"}
			}
		}
		if transportErr.StatusCode == http.StatusNotFound {
			return &UnresolvableError{Reference: reference, Reason: "the registry has no such image (HTTP 404)"}
		}
	}
	if strings.Contains(err.Error(), "unsupported MediaType") || strings.Contains(err.Error(), "schema 1") {
		return &UnresolvableError{Reference: reference, Reason: "the manifest is in a format container runtimes no longer pull (" + err.Error() + ")"}
	}
	return &UnreachableError{Reference: reference, Err: err}
}

// fromV1Image wraps a go-containerregistry image whose layers are cheap to
// open compressed (registry blobs, OCI layout files). verifiedBlobs says
// the blobs are checked against their digests as they are read (registry
// ones are; layout files are plain files).
func fromV1Image(img v1.Image, digest string, verifiedBlobs bool) (*stored, error) {
	manifest, err := img.Manifest()
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if manifest.Config.Size > maxConfigSize {
		return nil, fmt.Errorf("config %s is %d bytes, more than %d", manifest.Config.Digest, manifest.Config.Size, maxConfigSize)
	}
	if !verifiedBlobs {
		raw, err := img.RawConfigFile()
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		if err := checkBlob("config", raw, manifest.Config.Digest); err != nil {
			return nil, err
		}
	}
	config, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(manifest.Layers) != len(config.RootFS.DiffIDs) {
		return nil, fmt.Errorf("the manifest has %d layers but the config names %d", len(manifest.Layers), len(config.RootFS.DiffIDs))
	}
	opened := &stored{digest: digest, config: config, close: func() error { return nil }}
	for i, descriptor := range manifest.Layers {
		if descriptor.MediaType.IsLayer() && strings.Contains(string(descriptor.MediaType), "foreign") {
			return nil, fmt.Errorf("layer %s is a foreign (Windows) layer", descriptor.Digest)
		}
		layer, err := img.LayerByDigest(descriptor.Digest)
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", descriptor.Digest, err)
		}
		opened.layers = append(opened.layers, storedLayer{
			diffID: config.RootFS.DiffIDs[i], digest: descriptor.Digest, size: descriptor.Size,
			open: layer.Compressed, digestVerified: verifiedBlobs,
		})
	}
	return opened, nil
}

// openLayout reads an OCI image layout directory. The image is the one
// whose ref.name annotation matches the reference's tag, else the only one,
// else the one for the platform.
func openLayout(dir, reference string, platform v1.Platform) (*stored, error) {
	if err := checkLayoutFiles(dir); err != nil {
		return nil, err
	}
	path, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("not an OCI image layout: %w", err)
	}
	index, err := path.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("index.json: %w", err)
	}
	for depth := 0; depth < 4; depth++ {
		manifest, err := index.IndexManifest()
		if err != nil {
			return nil, fmt.Errorf("index.json: %w", err)
		}
		chosen, err := chooseLayoutEntry(reference, manifest, platform)
		if err != nil {
			return nil, err
		}
		switch {
		case chosen.MediaType.IsIndex():
			index, err = index.ImageIndex(chosen.Digest)
			if err != nil {
				return nil, err
			}
			continue
		case chosen.MediaType.IsImage():
			img, err := index.Image(chosen.Digest)
			if err != nil {
				return nil, err
			}
			opened, err := fromV1Image(img, chosen.Digest.String(), false)
			if err == nil && chosen.Platform != nil {
				opened.platforms = indexPlatforms(manifest)
			}
			return opened, err
		}
		return nil, fmt.Errorf("index entry %s has media type %q, not an image", chosen.Digest, chosen.MediaType)
	}
	return nil, errors.New("image indexes nested too deep")
}

// maxLayoutBlobs bounds the blobs of a layout that are checked: a layout
// of a few images holds a few hundred.
const maxLayoutBlobs = 1 << 16

// checkLayoutFiles refuses a layout whose index or blobs are not regular
// files (go-containerregistry opens them as they are: a FIFO would block,
// a device never end), before any is opened. Symlinks are followed.
func checkLayoutFiles(dir string) error {
	for _, name := range []string{"oci-layout", "index.json"} {
		if _, err := fileread.CheckRegular(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	algorithms, err := os.ReadDir(filepath.Join(dir, "blobs"))
	if err != nil {
		return nil // no blobs: the index names none that can be read, and says so
	}
	count := 0
	for _, algorithm := range algorithms {
		blobs, err := os.ReadDir(filepath.Join(dir, "blobs", algorithm.Name()))
		if err != nil {
			continue
		}
		for _, blob := range blobs {
			if count++; count > maxLayoutBlobs {
				return fmt.Errorf("more than %d blobs: not an image layout a lint should read", maxLayoutBlobs)
			}
			if blob.Type().IsRegular() {
				continue
			}
			if _, err := fileread.CheckRegular(filepath.Join(dir, "blobs", algorithm.Name(), blob.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

const refNameAnnotation = "org.opencontainers.image.ref.name"

func chooseLayoutEntry(reference string, manifest *v1.IndexManifest, platform v1.Platform) (*v1.Descriptor, error) {
	entries := manifest.Manifests
	if len(entries) == 0 {
		return nil, errors.New("index.json lists no manifests")
	}
	if reference != "" {
		if ref, err := name.ParseReference(reference); err == nil {
			for i := range entries {
				annotation := entries[i].Annotations[refNameAnnotation]
				if annotation != "" && (annotation == ref.Identifier() || annotation == reference || annotation == ref.Name()) {
					return &entries[i], nil
				}
			}
		}
	}
	if len(entries) == 1 && (entries[0].Platform == nil || platformMatches(entries[0].Platform, platform)) {
		return &entries[0], nil // an index of one image for another platform is no match, as on a node
	}
	hasPlatforms := false
	for i := range entries {
		if entries[i].Platform != nil {
			hasPlatforms = true
		}
	}
	if hasPlatforms {
		return choosePlatform(reference, manifest, platform)
	}
	return nil, fmt.Errorf("index.json lists %d images and none is annotated %s=%s", len(entries), refNameAnnotation, message.Quote(reference))
}

// openTarball reads a docker-save archive (both the classic layout and
// the OCI-in-tar one docker ≥ 25 writes, which keeps a manifest.json too).
func openTarball(file, reference string) (*stored, error) {
	archive, err := openSaveArchive(file)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*stored, error) {
		archive.file.Close()
		return nil, err
	}
	descriptor, err := archive.descriptor(reference)
	if err != nil {
		return fail(err)
	}
	for _, member := range append([]string{descriptor.Config}, descriptor.Layers...) {
		if err := checkMemberName(member); err != nil {
			return fail(err)
		}
	}
	data, err := archive.readSmall(descriptor.Config, maxConfigSize)
	if err != nil {
		return fail(fmt.Errorf("config: %w", err))
	}
	// Classic archives name the config by its digest (<hex>.json), OCI-in-tar
	// ones by its blob path.
	configName := strings.TrimSuffix(strings.Replace(strings.TrimPrefix(descriptor.Config, "blobs/"), "/", ":", 1), ".json")
	if !strings.Contains(configName, ":") {
		configName = "sha256:" + configName
	}
	if hash, err := v1.NewHash(configName); err == nil {
		if err := checkBlob("config "+descriptor.Config, data, hash); err != nil {
			return fail(err)
		}
	}
	config, err := v1.ParseConfigFile(bytes.NewReader(data))
	if err != nil {
		return fail(fmt.Errorf("config %s: %w", descriptor.Config, err))
	}
	if len(descriptor.Layers) != len(config.RootFS.DiffIDs) {
		return fail(fmt.Errorf("manifest.json lists %d layers but the config names %d", len(descriptor.Layers), len(config.RootFS.DiffIDs)))
	}
	opened := &stored{config: config, close: archive.file.Close}
	for i, member := range descriptor.Layers {
		section, err := archive.open(member)
		if err != nil {
			return fail(err)
		}
		layer := storedLayer{diffID: config.RootFS.DiffIDs[i], size: section.Size(),
			open: func() (io.ReadCloser, error) {
				return io.NopCloser(io.NewSectionReader(section, 0, section.Size())), nil
			}}
		// OCI-in-tar archives name layers by their digest.
		if hash, err := v1.NewHash(strings.Replace(strings.TrimPrefix(member, "blobs/"), "/", ":", 1)); err == nil {
			layer.digest = hash
		}
		opened.layers = append(opened.layers, layer)
	}
	return opened, nil
}

// checkMemberName refuses what docker load refuses in manifest.json: a
// member outside the archive (an absolute path, one climbing out with ..).
func checkMemberName(member string) error {
	clean := path.Clean(member)
	if member == "" || path.IsAbs(member) || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("manifest.json names the member %s, outside the archive (docker load refuses it)", message.Quote(member))
	}
	return nil
}

// checkBlob compares a small blob read whole with its digest.
func checkBlob(what string, data []byte, expected v1.Hash) error {
	computed, _, err := v1.SHA256(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if expected.Algorithm == "sha256" && computed != expected {
		return fmt.Errorf("%s: %w", what, &DigestError{What: "digest", Expected: expected, Computed: computed})
	}
	return nil
}

// isLayoutDir reports whether dir is an OCI image layout.
func isLayoutDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "index.json"))
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "oci-layout"))
	return err == nil
}
