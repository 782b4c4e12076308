package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/internal/quantity"

	"github.com/modellint/modellint/internal/message"
)

// FileNames are looked for, in this order, in each directory walked up
// from the first PATH.
var FileNames = []string{".modellint.yaml", ".modellint.yml"}

// Config is the .modellint.yaml file. Unknown keys are an error: a typo in a
// suppression or threshold must not silently change what is checked.
type Config struct {
	// FailOn is the default for --fail-on.
	FailOn string `json:"failOn,omitempty"`
	// Enable and Disable take rule IDs or names.
	Enable  []string `json:"enable,omitempty"`
	Disable []string `json:"disable,omitempty"`
	// Rules overrides per rule ID: severity, or disabled.
	Rules map[string]RuleConfig `json:"rules,omitempty"`
	// Ignore suppresses findings by rule and object or path.
	Ignore []Ignore `json:"ignore,omitempty"`
	// External lists objects that exist in the cluster but not in the linted
	// files, as Kind/name or Kind/namespace/name (e.g. Secret/hf-token).
	External []string `json:"external,omitempty"`
	// RequiredEnv lists env vars every model-server container must set.
	RequiredEnv []string `json:"requiredEnv,omitempty"`
	// Cluster holds facts about the target cluster a static tool cannot see.
	Cluster ClusterConfig `json:"cluster,omitempty"`
	// Probes tunes the probe rules.
	Probes ProbeConfig `json:"probes,omitempty"`
	// Model holds thresholds for model directories.
	Model ModelConfig `json:"model,omitempty"`
	// Models ties model dirs on disk to the path containers mount them at
	// (path relative to the working directory; --model flags add to it).
	Models []ModelMapping `json:"models,omitempty"`
	// Estimates tunes the memory and load-time estimates (MDL401, MDL402).
	EstimateSettings EstimateConfig `json:"estimates,omitempty"`
	// Images maps image references to local sources (a docker-save
	// tarball or OCI layout, relative to this file), "registry", or
	// docker://REF; --image flags win.
	Images []ImageMapping `json:"images,omitempty"`

	// Exclude are paths a directory walk leaves out, in .gitignore syntax,
	// relative to this file (--exclude adds to them).
	Exclude []string `json:"exclude,omitempty"`
	// Kustomize tunes how overlays are built.
	Kustomize KustomizeConfig `json:"kustomize,omitempty"`

	// Path is the file the config was read from ("" for defaults).
	Path string `json:"-"`
	// positions are where its keys are written, for At.
	positions keyPositions
}

// KustomizeConfig tunes how overlays are built.
type KustomizeConfig struct {
	// LoadRestrictor is refused: it widens what an overlay may read, which
	// the job decides (--kustomize-load-restrictor), not the repository.
	// It is decoded only to say so.
	LoadRestrictor string `json:"loadRestrictor,omitempty"`
}

// RuleConfig overrides one rule.
type RuleConfig struct {
	Severity string `json:"severity,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
}

// Ignore is one config-file suppression. Rule is an ID or name ("*" for all);
// Object matches the target name (Kind/namespace/name, "*" globs allowed);
// Path matches the file (a glob, or a directory prefix).
type Ignore struct {
	Rule    string `json:"rule"`
	Object  string `json:"object,omitempty"`
	Path    string `json:"path,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Expires string `json:"expires,omitempty"` // YYYY-MM-DD; the ignore stops applying after it

	// Line is where the entry is written in the config file (0 when the
	// config was not read from a file).
	Line int `json:"-"`
}

// ExpiresDate is the layout of Ignore.Expires.
const ExpiresDate = time.DateOnly

// ClusterConfig describes the nodes the workloads will run on.
type ClusterConfig struct {
	// GPUNodesTainted says GPU nodes carry a taint, so GPU pods need a toleration.
	GPUNodesTainted bool `json:"gpuNodesTainted,omitempty"`
	// GPUResource is the extended resource name of GPUs (default nvidia.com/gpu).
	GPUResource string `json:"gpuResource,omitempty"`
	// NVIDIADriver is the GPU nodes' driver version (e.g. 535.104.05), for MDL306.
	NVIDIADriver string `json:"nvidiaDriver,omitempty"`
	// GPUBrand is the GPUs' brand as the NVIDIA container toolkit names it
	// (tesla, geforce …), for NVIDIA_REQUIRE_CUDA brand conditions.
	GPUBrand string `json:"gpuBrand,omitempty"`
	// Architecture is the nodes' CPU architecture (amd64, arm64), for
	// MDL305 and for choosing an image from a multi-platform index.
	Architecture string `json:"architecture,omitempty"`
	// Nodes is a `kubectl get nodes -o yaml` of the cluster, relative to
	// this file; --cluster wins.
	Nodes string `json:"nodes,omitempty"`
}

// ClusterNodesPath returns cluster.nodes resolved against the config
// file's directory, "" when unset.
func (c *Config) ClusterNodesPath() string {
	nodes := c.Cluster.Nodes
	if nodes == "" || filepath.IsAbs(nodes) || c.Path == "" {
		return nodes
	}
	return filepath.Join(filepath.Dir(c.Path), nodes)
}

// ImageMapping says where the image a manifest names is read from.
type ImageMapping struct {
	Ref    string `json:"ref"`
	Source string `json:"source"`
}

// ModelConfig tunes the model-directory rules.
type ModelConfig struct {
	// MaxSize is the largest model dir allowed, a Kubernetes quantity
	// (e.g. 2Gi), for MDL107; unset means no limit.
	MaxSize string `json:"maxSize,omitempty"`
}

// ModelMaxSize returns model.maxSize in bytes; ok is false when unset.
// LoadConfig has checked that it parses.
func (c *Config) ModelMaxSize() (bytes int64, ok bool) {
	if c.Model.MaxSize == "" {
		return 0, false
	}
	size, err := quantity.Parse(c.Model.MaxSize)
	if err != nil {
		return 0, false
	}
	return size.Value(), true
}

// ProbeConfig tunes MDL203.
type ProbeConfig struct {
	// MinStartupSeconds is how long a model server is assumed to need before
	// it answers liveness, when the model's size is not known (default 60).
	MinStartupSeconds int32 `json:"minStartupSeconds,omitempty"`
}

// DefaultMinStartupSeconds is ProbeConfig.MinStartupSeconds when unset.
const DefaultMinStartupSeconds = 60

// GPUResourceName returns the configured GPU resource name.
func (c *Config) GPUResourceName() string {
	if c.Cluster.GPUResource != "" {
		return c.Cluster.GPUResource
	}
	return "nvidia.com/gpu"
}

// MinStartupSeconds returns the configured or default startup allowance.
func (c *Config) MinStartupSeconds() int32 {
	if c.Probes.MinStartupSeconds > 0 {
		return c.Probes.MinStartupSeconds
	}
	return DefaultMinStartupSeconds
}

// IsExternal reports whether the config declares an object as existing
// outside the linted files.
func (c *Config) IsExternal(kind, namespace, name string) bool {
	for _, entry := range c.External {
		parts := strings.Split(entry, "/")
		switch {
		case len(parts) == 2 && strings.EqualFold(parts[0], kind) && parts[1] == name:
			return true
		case len(parts) == 3 && strings.EqualFold(parts[0], kind) && parts[1] == namespace && parts[2] == name:
			return true
		}
	}
	return false
}

// MaxFileBytes bounds a config file: real ones are a few KiB.
const MaxFileBytes = 4 << 20

// Load reads a config file strictly. Rule severities are checked by the
// engine, which owns their names.
func Load(path string) (*Config, error) {
	data, err := fileread.Regular(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	config := &Config{}
	// Keys match case-sensitively: encoding/json would accept "failon" for
	// failOn, and a config that half-works is worse than one that fails.
	jsonData, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, yamlErrors(path, err)
	}
	strictErrors, err := kjson.UnmarshalStrict(jsonData, config)
	if err != nil || len(strictErrors) > 0 {
		return nil, decodeErrors(path, data, strictErrors, err)
	}
	config.Path, config.positions = path, positionsOf(data)
	if _, set := positionsOf(data)["kustomize.loadRestrictor"]; set {
		return nil, fmt.Errorf("%s: kustomize.loadRestrictor: not read from the repository's config, which may not widen what an overlay reads; "+
			"the job sets it with --kustomize-load-restrictor (MODELLINT_KUSTOMIZE_LOAD_RESTRICTOR)", positionsOf(data).at(path, "kustomize.loadRestrictor"))
	}
	switch strings.ToLower(config.FailOn) {
	case "", "error", "warning", "info", "none", "never":
	default:
		return nil, fmt.Errorf("%s: failOn: %s is not a severity (want error, warning, info or none)",
			positionsOf(data).at(path, "failOn"), message.Quote(config.FailOn))
	}
	positions := positionsOf(data)
	for i, ignore := range config.Ignore {
		if ignore.Rule == "" {
			return nil, fmt.Errorf("%s: ignore[%d]: rule is required", positions.at(path, fmt.Sprintf("ignore[%d]", i)), i)
		}
		// A date that does not parse must not be compared: as text,
		// "banana" or "30/06/2027" sorts after every date, and the
		// finding would stay suppressed for ever.
		if ignore.Expires != "" {
			if _, err := time.Parse(ExpiresDate, ignore.Expires); err != nil {
				return nil, fmt.Errorf("%s: ignore[%d].expires: %s is not a date: write it as YYYY-MM-DD (e.g. 2027-06-30)",
					positions.at(path, fmt.Sprintf("ignore[%d].expires", i)), i, message.Quote(ignore.Expires))
			}
		}
		if position, ok := positions[fmt.Sprintf("ignore[%d]", i)]; ok {
			config.Ignore[i].Line = position[0]
		}
	}
	for i, mapping := range config.Models {
		if mapping.Path == "" || (mapping.MountPath != "" && !strings.HasPrefix(mapping.MountPath, "/")) {
			return nil, fmt.Errorf("%s: models[%d]: want a path and an absolute mountPath", positions.at(path, fmt.Sprintf("models[%d]", i)), i)
		}
		config.Models[i].Path = filepath.ToSlash(filepath.Clean(mapping.Path))
	}
	for i, mapping := range config.Images {
		if mapping.Ref == "" || mapping.Source == "" {
			return nil, fmt.Errorf("%s: images[%d]: ref and source are required", positions.at(path, fmt.Sprintf("images[%d]", i)), i)
		}
	}
	if err := config.checkPathsConfined(); err != nil {
		return nil, err
	}
	if config.Model.MaxSize != "" {
		if err := quantity.Check(config.Model.MaxSize); err != nil {
			return nil, fmt.Errorf("%s: model.maxSize: %w", positions.at(path, "model.maxSize"), err)
		}
		if size, err := quantity.Parse(config.Model.MaxSize); err != nil || size.Sign() <= 0 {
			return nil, fmt.Errorf("%s: model.maxSize: %s is not a positive quantity such as 2Gi", positions.at(path, "model.maxSize"), message.Quote(config.Model.MaxSize))
		}
	}
	return config, nil
}

// Find walks up from start (a file or directory) to the filesystem
// root and returns the first config file found, or "" if there is none.
func Find(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		dir = filepath.Dir(dir)
	}
	for {
		for _, name := range FileNames {
			candidate := filepath.Join(dir, name)
			if _, err := os.Stat(candidate); err == nil {
				return candidate, nil
			} else if !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("config %s: %w", candidate, err)
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

func oneLine(message string) string { return strings.Join(strings.Fields(message), " ") }
