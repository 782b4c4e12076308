package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/manifest"
)

// ImageOptions say how images are found and read. The zero value reads
// only mapped local sources and never contacts a registry.
type ImageOptions struct {
	// Sources maps image references to where they are read from: a
	// docker-save tarball, an OCI layout directory, "registry" (the
	// reference's own registry) or docker://REF (another registry
	// reference, e.g. a mirror). They win over the config's images.
	Sources map[string]string
	// Registry resolves references that are not mapped through their
	// registries (the CLI's default; --offline turns it off).
	Registry bool
	// Platform is os/arch[/variant] for multi-platform indexes; default:
	// the pod's kubernetes.io/arch node selector, else the config's
	// cluster.architecture, else linux/amd64.
	Platform string
	// Timeout bounds resolving one reference's manifest and config.
	Timeout time.Duration
	// TotalTimeout bounds all registry reads of a run together, layers
	// included; images not read by then are skipped with a note. 0: none.
	TotalTimeout time.Duration
	// CacheDir holds per-layer index results; "" caches nothing.
	CacheDir string
	// Parallelism is how many layers stream at once (default: CPUs).
	Parallelism int
	// Progress shows layer reading; nil for silence.
	Progress image.Progress
	// MaxImageBytes bounds what one image's layers inflate to, all of them
	// together (0: image.DefaultMaxImageBytes); TotalTimeout bounds the
	// time.
	MaxImageBytes int64
	// MaxLayerBytes bounds what one layer may inflate to (0: only
	// MaxImageBytes bounds it).
	MaxLayerBytes int64
	// Inflate is how gzip layers are inflated: auto (igzip or unpigz when
	// on PATH, else in process), go, igzip or unpigz.
	Inflate string
}

// timedOut names --timeout when it is what stopped reading a local image
// (a registry image is skipped with a note instead).
func timedOut(ctx context.Context, err error, source string, timeout time.Duration) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("image source %s: reading it did not finish within --timeout %s", source, timeout)
}

// isImageSource reports whether a PATH is an image (a docker-save tarball or
// an OCI layout directory) rather than manifests.
func isImageSource(path string) bool { return image.IsSource(path) }

// imageUse is one container that runs an image.
type imageUse struct {
	target    *lint.Target
	container *manifest.Container
}

// imageKey identifies one image read: the same reference may be pulled for
// two platforms by two workloads.
type imageKey struct {
	reference string
	platform  string
}

// attachImages resolves the images of the workload targets and adds a target
// for each image named as a PATH, which it returns with the others.
func attachImages(targets []*lint.Target, sources []string, options Options, result *lint.Result, replayed *starts) ([]*lint.Target, error) {
	config := options.Config
	if config == nil {
		config = &lint.Config{}
	}
	mappings := imageMappings(config, options.Image.Sources)
	tagged := taggedSources(sources)
	defaultPlatform, err := defaultImagePlatform(options.Image.Platform, config)
	if err != nil {
		return nil, err
	}
	readOptions := image.Options{
		Parallelism: options.Image.Parallelism,
		Timeout:     options.Image.Timeout,
		Progress:    options.Image.Progress,

		MaxImageBytes: options.Image.MaxImageBytes,
		MaxLayerBytes: options.Image.MaxLayerBytes,
		Inflate:       options.Image.Inflate,
	}
	if options.Image.CacheDir != "" {
		readOptions.Cache = &image.Cache{Dir: options.Image.CacheDir}
	}
	ctx := context.Background()
	if options.Image.TotalTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, options.Image.TotalTimeout)
		defer cancel()
	}

	// A workload whose images are read is held (its pod spec decoded) until
	// they are: they are read with what its containers start. One whose
	// images cannot be read (--offline, not mapped) is not: they are
	// reported missing whatever the platform, so the key leaves it out.
	readable := map[string]bool{}
	mayRead := func(container *manifest.Container) bool {
		reference := container.Image
		if _, known := readable[reference]; !known && reference != "" {
			_, mapped := mappings[reference]
			_, isTagged := tagged[tagName(reference)]
			readable[reference] = mapped || isTagged || options.Image.Registry || !validReference(reference)
		}
		return readable[reference]
	}
	var held []*manifest.Workload
	defer func() {
		for _, workload := range held {
			workload.Release()
		}
	}()
	uses := map[imageKey][]imageUse{}
	used := map[string]bool{} // sources that stand for a manifest's image
	for _, target := range targets {
		workload := target.Workload
		if workload == nil {
			continue
		}
		var platform v1.Platform
		if slices.ContainsFunc(workload.Containers, mayRead) {
			if err := workload.Hold(); err != nil {
				return nil, err
			}
			held = append(held, workload)
			platform = defaultPlatform
			if arch := workload.Spec.NodeSelector["kubernetes.io/arch"]; arch != "" && options.Image.Platform == "" {
				platform = v1.Platform{OS: "linux", Architecture: arch}
			} else if arch := clusterArch(options, config, workload.Spec); arch != "" {
				platform = v1.Platform{OS: "linux", Architecture: arch}
			}
		}
		for _, container := range workload.Containers {
			if container.Image == "" {
				continue
			}
			key := imageKey{reference: container.Image}
			if platform.Architecture != "" {
				key.platform = platform.String()
			}
			uses[key] = append(uses[key], imageUse{target: target, container: container})
		}
	}
	keys := make([]imageKey, 0, len(uses))
	runs := map[string]bool{} // normalised references some container runs
	for key := range uses {
		keys = append(keys, key)
		runs[tagName(key.reference)] = true
	}
	for _, ref := range sortedKeys(options.Image.Sources) {
		if !runs[tagName(ref)] {
			result.Unused = append(result.Unused, fmt.Sprintf("--image %s: no container of the linted manifests runs this image; "+
				"check the reference against the manifests' image: fields", ref))
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].reference != keys[j].reference {
			return keys[i].reference < keys[j].reference
		}
		return keys[i].platform < keys[j].platform
	})
	var recorded []*image.Image // for the cache's list of images read
	defer func() { readOptions.Cache.RecordImages(recorded) }()
	for _, key := range keys {
		users := uses[key]
		platform, _ := image.ParsePlatform(key.platform)
		source, mapped := mappings[key.reference]
		if tarball, ok := tagged[tagName(key.reference)]; ok && !mapped {
			source, mapped = tarball, true
			result.Notes = append(result.Notes, fmt.Sprintf("image %s is read from %s, which is tagged with it", key.reference, tarball))
			used[tarball] = true
		}
		var img *image.Image
		switch {
		case !mapped && !validReference(key.reference):
			// An invalid name fails at the kubelet whatever the network says.
			_, err := name.ParseReference(key.reference)
			reason := "not a valid image reference (" + err.Error() + "); the kubelet reports InvalidImageName"
			if strings.ContainsAny(key.reference, "{}<>$") {
				reason = "it looks like a template placeholder that was never filled in, and is not a valid image reference; the kubelet reports InvalidImageName"
			}
			img = &image.Image{Reference: key.reference, Platform: platform, Unresolvable: reason}
		case !mapped && !options.Image.Registry:
			missing(users, "image "+key.reference+" was not read: registry lookups are off (--offline) and no --image maps it to a local source")
			continue
		default:
			opts := readOptions
			opts.Platform = platform
			opts.ELFNames = argv0Names(users)
			plan := replayed.plan(users)
			opts.Needs = plan.needs
			img, err = image.Open(ctx, key.reference, source, opts)
			if err == nil {
				replayed.add(plan, img)
			}
			var unreachable *image.UnreachableError
			if errors.As(err, &unreachable) {
				reason := strings.Join(strings.Fields(unreachable.Err.Error()), " ")
				if ctx.Err() != nil {
					reason = fmt.Sprintf("the registry reads did not finish within --timeout %s", options.Image.TotalTimeout)
				}
				note := fmt.Sprintf("image %s was not read: %s (map it with --image %s=SOURCE, or use --offline)",
					key.reference, reason, key.reference)
				result.Notes = append(result.Notes, note)
				missing(users, note)
				continue
			}
			if err != nil {
				return nil, timedOut(ctx, err, source, options.Image.TotalTimeout)
			}
		}
		recorded = append(recorded, img)
		for _, use := range users {
			if use.target.Images == nil {
				use.target.Images = map[string]*image.Image{}
			}
			use.target.Images[key.reference] = img
		}
	}

	for _, source := range sources {
		if used[source] {
			continue // linted where the manifests use it, at their lines
		}
		opts := readOptions
		opts.Platform = defaultPlatform
		plan := replayed.plan(nil)
		opts.Needs = plan.needs
		img, err := image.Open(ctx, source, filepath.FromSlash(source), opts)
		if err != nil {
			return nil, timedOut(ctx, err, source, options.Image.TotalTimeout)
		}
		replayed.add(plan, img)
		recorded = append(recorded, img)
		targets = append(targets, &lint.Target{Images: map[string]*image.Image{source: img}})
		result.Files = append(result.Files, source)
	}
	return targets, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

// missing records on each target why an image of it has no facts.
func missing(users []imageUse, reason string) {
	for _, use := range users {
		if use.target.ImagesMissing == "" {
			use.target.ImagesMissing = reason
		} else if !strings.Contains(use.target.ImagesMissing, reason) {
			use.target.ImagesMissing += "; " + reason
		}
	}
}

func validReference(reference string) bool {
	_, err := name.ParseReference(reference)
	return err == nil
}

// argv0Names are the basenames the manifests start the image with.
func argv0Names(users []imageUse) []string {
	var names []string
	for _, use := range users {
		started := use.container.Started()
		for _, argv := range [][]string{started.Command, started.Args} {
			if len(argv) > 0 {
				names = append(names, filepath.Base(argv[0]))
			}
		}
	}
	return names
}

// imageMappings merges the config's mappings (paths relative to the config
// file) with the flags', which win.
func imageMappings(config *lint.Config, flags map[string]string) map[string]string {
	mappings := map[string]string{}
	for _, mapping := range config.Images {
		source := mapping.Source
		if isLocalSource(source) && !filepath.IsAbs(source) && config.Path != "" {
			source = filepath.Join(filepath.Dir(config.Path), source)
		}
		mappings[mapping.Ref] = source
	}
	for ref, source := range flags {
		mappings[ref] = source
	}
	return mappings
}

func isLocalSource(source string) bool {
	return source != image.SourceRegistry && !strings.HasPrefix(source, "docker://")
}

// clusterArch is the one architecture of the --cluster nodes a pod can
// land on, what the kubelet pulls an index for; "" when --platform or
// cluster.architecture decide, or the nodes have several (MDL311 checks
// the image has a variant for each).
func clusterArch(options Options, config *lint.Config, spec *corev1.PodSpec) string {
	if options.Cluster == nil || options.Image.Platform != "" || config.Cluster.Architecture != "" {
		return ""
	}
	if arches := cluster.Architectures(options.Cluster.Matching(spec)); len(arches) == 1 {
		return arches[0]
	}
	return ""
}

func defaultImagePlatform(flag string, config *lint.Config) (v1.Platform, error) {
	switch {
	case flag != "":
		platform, err := image.ParsePlatform(flag)
		if err != nil {
			return v1.Platform{}, fmt.Errorf("--platform: %w", err)
		}
		return platform, nil
	case config.Cluster.Architecture != "":
		return v1.Platform{OS: "linux", Architecture: config.Cluster.Architecture}, nil
	}
	return image.DefaultPlatform, nil
}

// taggedSources maps the tags of docker-save tarballs found as PATHs (or in
// the tree) to the tarball, by normalised name.
func taggedSources(sources []string) map[string]string {
	tagged := map[string]string{}
	for _, source := range sources {
		for _, tag := range image.SourceTags(filepath.FromSlash(source)) {
			if _, taken := tagged[tagName(tag)]; !taken {
				tagged[tagName(tag)] = source
			}
		}
	}
	return tagged
}

// tagName normalises a reference to registry/repository:tag, dropping a
// digest, so "nginx:1" and "docker.io/library/nginx:1@sha256:…" match.
func tagName(reference string) string {
	if i := strings.IndexByte(reference, '@'); i >= 0 {
		reference = reference[:i]
	}
	tag, err := name.NewTag(reference)
	if err != nil {
		return reference
	}
	return tag.Name()
}
