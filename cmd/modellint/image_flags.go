package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/spf13/pflag"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/internal/quantity"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/image"

	"github.com/modellint/modellint/internal/message"
)

// offlineEnv turns registry lookups off by default, for air-gapped CI.
const offlineEnv = "MODELLINT_OFFLINE"

// addImageFlags defines the flags that say where images come from.
func addImageFlags(set *pflag.FlagSet, options *engine.ImageOptions) {
	offline, _ := strconv.ParseBool(os.Getenv(offlineEnv))
	options.Registry = !offline
	options.CacheDir = image.DefaultCacheDir()
	options.Timeout = time.Minute
	options.TotalTimeout = 10 * time.Minute
	options.Progress = terminalProgress()
	set.Var(&imageSourceFlag{options}, "image",
		"image REF[=SOURCE], repeatable: read REF from SOURCE, a docker-save tarball, an OCI layout dir, \"registry\" or docker://OTHER-REF")
	set.Var(&offlineFlag{options}, "offline", "never contact a registry: unmapped images are skipped (also "+offlineEnv+"=1)")
	set.Lookup("offline").NoOptDefVal = "true"
	set.StringVar(&options.Platform, "platform", "", "os/arch[/variant] of the nodes, for multi-platform images (default: the pod's kubernetes.io/arch, else cluster.architecture, else linux/amd64)")
	set.DurationVar(&options.Timeout, "image-timeout", options.Timeout, "how long to wait for a registry to resolve one image's manifest and config")
	set.DurationVar(&options.TotalTimeout, "timeout", options.TotalTimeout,
		"the most time spent on registries, all images and layers together; images not read by then are skipped with a note (0: no limit)")
	set.Var(&cacheDirFlag{options: options}, "cache-dir", "where per-layer image indexes are cached")
	set.Var(&noCacheFlag{options}, "no-cache", "read every image layer, without the layer cache")
	set.Lookup("no-cache").NoOptDefVal = "true"
	set.Var(&inflateFlag{options}, "inflate",
		"how gzip layers are inflated: auto (ISA-L's igzip or pigz's unpigz when on PATH, the fastest; else in process), go, igzip or unpigz")
	set.Var(&sizeFlag{size: &options.MaxImageBytes, unset: "64Gi"}, "max-image-size",
		"the most one image's layers may inflate to, all together, e.g. 200Gi: past it the image is refused as a decompression bomb "+
			"(--timeout bounds the time its layers take, whatever they compress to)")
	// --max-layer-size bounded each layer by a multiple of its compressed
	// size, which refused real layers of zeros; a bound of its own per
	// layer is still honoured.
	set.Var(&sizeFlag{size: &options.MaxLayerBytes}, "max-layer-size", "the most one image layer may inflate to")
	_ = set.MarkDeprecated("max-layer-size", "use --max-image-size, which bounds all of an image's layers together")
}

type inflateFlag struct{ options *engine.ImageOptions }

func (f *inflateFlag) String() string {
	if f.options.Inflate == "" {
		return image.InflateAuto
	}
	return f.options.Inflate
}
func (f *inflateFlag) Type() string { return "HOW" }
func (f *inflateFlag) Set(value string) error {
	if _, err := image.InflaterPath(value); err != nil {
		return err
	}
	f.options.Inflate = value
	return nil
}

// sizeFlag sets a byte count from a quantity such as 64Gi.
type sizeFlag struct {
	size  *int64
	unset string // what 0 means, for the help
}

func (f *sizeFlag) String() string {
	if *f.size == 0 {
		return f.unset
	}
	return strconv.FormatInt(*f.size, 10)
}
func (f *sizeFlag) Type() string { return "SIZE" }
func (f *sizeFlag) Set(value string) error {
	size, err := quantity.Parse(value)
	if err != nil || size.Sign() <= 0 {
		return fmt.Errorf("want a positive size such as 64Gi, got %s", message.Quote(value))
	}
	*f.size = size.Value()
	return nil
}

type imageSourceFlag struct{ options *engine.ImageOptions }

func (f *imageSourceFlag) String() string { return "" }
func (f *imageSourceFlag) Type() string   { return "REF[=SOURCE]" }
func (f *imageSourceFlag) Set(value string) error {
	ref, source, found := strings.Cut(value, "=")
	if ref == "" || (found && source == "") {
		return fmt.Errorf("want REF=SOURCE or REF, got %s", message.Quote(value))
	}
	if !found {
		source = image.SourceRegistry
	}
	if _, err := name.ParseReference(ref); err != nil {
		return fmt.Errorf("%s is not a valid image reference (%v); write it as the manifests' image: field does, e.g. registry.example.com/ml/model:1.0", message.Quote(ref), err)
	}
	if source != image.SourceRegistry && !strings.HasPrefix(source, "docker://") {
		if _, err := os.Stat(source); err != nil {
			return fmt.Errorf("%s: %v; SOURCE is a docker-save tarball, an OCI layout dir, \"registry\" or docker://REF", source, fileread.Cause(err))
		}
	}
	if f.options.Sources == nil {
		f.options.Sources = map[string]string{}
	}
	f.options.Sources[ref] = source
	return nil
}

type offlineFlag struct{ options *engine.ImageOptions }

func (f *offlineFlag) String() string { return strconv.FormatBool(!f.options.Registry) }
func (f *offlineFlag) Type() string   { return "bool" }
func (f *offlineFlag) IsBoolFlag() bool {
	return true
}
func (f *offlineFlag) Set(value string) error {
	offline, err := strconv.ParseBool(value)
	if err != nil {
		return err
	}
	f.options.Registry = !offline
	return nil
}

type cacheDirFlag struct {
	options *engine.ImageOptions
}

func (f *cacheDirFlag) String() string { return f.options.CacheDir }
func (f *cacheDirFlag) Type() string   { return "DIR" }
func (f *cacheDirFlag) Set(value string) error {
	if f.options.CacheDir != "" || value == "" {
		f.options.CacheDir = value
	}
	return nil
}

type noCacheFlag struct{ options *engine.ImageOptions }

func (f *noCacheFlag) String() string   { return "false" }
func (f *noCacheFlag) Type() string     { return "bool" }
func (f *noCacheFlag) IsBoolFlag() bool { return true }
func (f *noCacheFlag) Set(value string) error {
	noCache, err := strconv.ParseBool(value)
	if err != nil {
		return err
	}
	if noCache {
		f.options.CacheDir = ""
	}
	return nil
}
