package compose

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"dario.cat/mergo"
	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint/manifest"
)

// seldonGroup is the API group of Seldon Core v2's kinds.
const seldonGroup = "mlops.seldon.io"

// podSpecPath is where a Server and a ServerConfig keep their pod spec.
const podSpecPath = "spec.podSpec"

// SeldonServers composes the pods of each Seldon Core v2 Server whose
// ServerConfig the set holds, or that names mlserver or triton, which
// Seldon's Helm chart installs (defaultServerConfigs), as Seldon's
// operator builds the Server's StatefulSet
// (ServerReconciler.createStatefulSetReconciler in
// operator/controllers/reconcilers/server/server_reconciler.go): the
// ServerConfig's podSpec with the Server's merged over it
// (common.MergePodSpecs), and a claim of each of the ServerConfig's
// volumeClaimTemplates as a volume of each pod (toStatefulSet). A Server
// with no podSpec gets the ServerConfig's pod. The ServerConfigs some
// Server was composed with are no workloads of their own any more: alone
// they are no pod. It returns notes for the run's -v output.
func SeldonServers(set *manifest.Set) ([]string, error) {
	s := &seldon{set: set, configs: map[*manifest.Object]*serverConfig{}, used: map[*manifest.Object]bool{},
		rejected: map[*manifest.Object]bool{}, servers: map[*manifest.Object]*manifest.SeldonServer{}}
	for _, invalid := range set.Invalid {
		s.rejected[invalid.Object] = true
	}
	overrides := map[*manifest.Object]*manifest.Workload{}
	for _, w := range set.Workloads {
		if w.Object.Group() == seldonGroup && w.Object.Kind == "Server" {
			overrides[w.Object] = w
		}
	}
	var notes []string
	for _, server := range set.OfKinds("Server") {
		if server.Group() != seldonGroup || s.rejected[server] {
			continue
		}
		note, err := s.server(server, overrides[server])
		if err != nil {
			return nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	dropUsed(set, s.used)
	s.models()
	return notes, nil
}

type seldon struct {
	set *manifest.Set
	// configs are the ServerConfigs read so far, nil for those that could
	// not be.
	configs map[*manifest.Object]*serverConfig
	// used are the ServerConfigs some Server was composed with.
	used map[*manifest.Object]bool
	// rejected are the objects the API server rejects (MDL002).
	rejected map[*manifest.Object]bool
	// servers are what each Server offers the Models placed on it.
	servers map[*manifest.Object]*manifest.SeldonServer
}

// seldonV2Version is the Seldon Core release whose ServerConfigs are
// bundled.
const seldonV2Version = "2.10.2"

// defaultServerConfigs are the ServerConfigs mlserver and triton as
// Seldon's Helm chart installs them (see the file's comment).
//
//go:embed seldon_serverconfigs.yaml
var defaultServerConfigs []byte

// defaultServerConfigFile reads defaultServerConfigs once; each run reads
// its objects, never writes them.
var defaultServerConfigFile = sync.OnceValues(func() (*manifest.File, error) {
	return manifest.Load("seldon-core-"+seldonV2Version+"-serverconfigs.yaml", defaultServerConfigs)
})

// defaultServerConfig is Seldon's own ServerConfig of the name, nil for a
// name Seldon does not install.
func defaultServerConfig(name string) (*manifest.Object, error) {
	file, err := defaultServerConfigFile()
	if err != nil {
		return nil, fmt.Errorf("bundled Seldon ServerConfigs: %w", err)
	}
	for _, o := range file.Objects {
		if o.Name == name {
			return o, nil
		}
	}
	return nil, nil
}

// serverConfig is what a ServerConfig says of the pods of its Servers
// (operator/apis/mlops/v1alpha1/serverconfig_types.go).
type serverConfig struct {
	spec struct {
		PodSpec              corev1.PodSpec `json:"podSpec"`
		VolumeClaimTemplates []struct {
			Name string `json:"name"`
		} `json:"volumeClaimTemplates"`
	}
}

// serverConfig reads a ServerConfig once; nil when the API server rejects
// it (MDL002 reports that).
func (s *seldon) serverConfig(o *manifest.Object) *serverConfig {
	if c, ok := s.configs[o]; ok {
		return c
	}
	c := &serverConfig{}
	if s.rejected[o] || o.Decode(&c.spec, "spec") != nil {
		c = nil
	}
	s.configs[o] = c
	return c
}

// serverConfigNamed is the ServerConfig of that name: the Server's
// namespace's, else one of any namespace. Seldon reads it from its own
// namespace (GetServerConfigForServer), which files seldom write.
func (s *seldon) serverConfigNamed(server *manifest.Object, name string) *manifest.Object {
	if o := s.set.Find("ServerConfig", server.Namespace, name); o != nil && o.Group() == seldonGroup {
		return o
	}
	for _, o := range s.set.OfKinds("ServerConfig") {
		if o.Name == name && o.Group() == seldonGroup {
			return o
		}
	}
	return nil
}

// server composes the Server's pod, override its podSpec's workload (nil
// when it has none); the note says why it was not composed.
func (s *seldon) server(server *manifest.Object, override *manifest.Workload) (string, error) {
	value, _ := server.Lookup("spec", "serverConfig")
	name, _ := value.(string)
	config := s.serverConfigNamed(server, name)
	var c *serverConfig
	why := fmt.Sprintf("ServerConfig %q is not in the linted files", name)
	note := ""
	switch {
	case name == "":
		why = "no spec.serverConfig names its ServerConfig"
	case config != nil:
		if c = s.serverConfig(config); c == nil {
			why = fmt.Sprintf("ServerConfig %s is rejected by the API server (MDL002)", config.ID())
		}
	default:
		// Seldon's Helm chart installs mlserver and triton with Seldon
		// itself.
		bundled, err := defaultServerConfig(name)
		if err != nil {
			return "", err
		}
		if bundled != nil {
			config, c = bundled, s.serverConfig(bundled)
			note = fmt.Sprintf("%s: ServerConfig %q is not in the linted files, so its pod is built from the %s "+
				"ServerConfig that Seldon Core %s's Helm chart installs", server.ID(), name, name, seldonV2Version)
		}
	}
	if c == nil {
		s.servers[server] = &manifest.SeldonServer{Object: server, Capabilities: ownCapabilities(server),
			CapabilitiesPath: "spec.capabilities"}
		if override == nil {
			return fmt.Sprintf("%s: %s, and the Server has no podSpec, so its pods are not linted", server.ID(), why), nil
		}
		return fmt.Sprintf("%s: %s, so its podSpec is linted alone, as the override Seldon merges over the "+
			"ServerConfig's: what it seems to lack is a warning, never an error", server.ID(), why), nil
	}

	w := override
	var overrideSpec *corev1.PodSpec
	if w != nil {
		if err := keep(w); err != nil {
			return "", err
		}
		overrideSpec = w.Spec
	} else {
		w = &manifest.Workload{Object: server, SpecPath: podSpecPath, Platform: "seldon", Lifecycle: manifest.KeptRunning}
	}
	spec, origins, err := mergePodSpecs(&c.spec.PodSpec, overrideSpec)
	if err != nil {
		return "", fmt.Errorf("%s: merge its podSpec over ServerConfig %s's: %w", server.ID(), config.ID(), err)
	}
	w.ComposeSpec(spec)
	// The ServerConfig the cluster runs may not be the chart's default (a
	// release installed with other values): what the default gives the pod
	// is an assumption, so its errors are warnings.
	w.Incomplete = note != ""
	for _, template := range c.spec.VolumeClaimTemplates {
		w.ClaimTemplates = append(w.ClaimTemplates, template.Name)
	}
	// Fixes are not offered for what another object wrote (see
	// Container.ComposedFrom). The init containers come first, the
	// ServerConfig's before the Server's; then the containers, by origins.
	inits := len(spec.InitContainers)
	for i, container := range w.Containers {
		fromConfig := i < len(c.spec.PodSpec.InitContainers)
		if i >= inits {
			fromConfig = origins[i-inits].config >= 0
		}
		if fromConfig {
			container.ComposedFrom = config
		}
	}
	placement := &podPlacement{server: server, config: config, origins: origins, bundled: note != ""}
	server.Borrow(podSpecPath, placement.place)
	// After the pod's placement, which the capabilities' fields override.
	facts := &manifest.SeldonServer{Object: server, Assumed: note != ""}
	offered(server, spec, facts)
	s.servers[server] = facts
	if override == nil {
		s.set.AddWorkload(w)
	}
	s.used[config] = true
	return note, nil
}

// origin is where a composed container comes from: its index among the
// Server's containers and among the ServerConfig's, -1 where it is not.
type origin struct{ server, config int }

// mergePodSpecs merges the Server's pod spec over the ServerConfig's as
// Seldon's common.MergePodSpecs does: mergo.Merge with WithOverride and
// WithAppendSlice, so a field the Server writes (not empty) replaces the
// ServerConfig's, structs merge field by field, and the items of every
// list (volumes, tolerations, init containers) are the ServerConfig's,
// then the Server's; then the containers by name (mergeContainers).
// override is nil for a Server with no podSpec.
func mergePodSpecs(config, override *corev1.PodSpec) (*corev1.PodSpec, []origin, error) {
	merged := config.DeepCopy()
	if override == nil {
		origins := make([]origin, len(merged.Containers))
		for i := range origins {
			origins[i] = origin{server: -1, config: i}
		}
		return merged, origins, nil
	}
	if err := mergo.Merge(merged, override, mergo.WithOverride, mergo.WithAppendSlice); err != nil {
		return nil, nil, err
	}
	containers, origins, err := mergeContainers(config.Containers, override.Containers)
	merged.Containers = containers
	return merged, origins, err
}

// mergeContainers merges the Server's containers with the ServerConfig's
// as Seldon's common.MergeContainers does: the Server's first, in its
// order, each mergo-merged over the ServerConfig's container of its name
// if there is one (so its env, args, ports and volumeMounts come after
// that container's), then the ServerConfig's containers it does not name.
func mergeContainers(configs, overrides []corev1.Container) ([]corev1.Container, []origin, error) {
	var merged []corev1.Container
	var origins []origin
	for i, override := range overrides {
		j := slices.IndexFunc(configs, func(c corev1.Container) bool { return c.Name == override.Name })
		if j < 0 {
			merged, origins = append(merged, override), append(origins, origin{server: i, config: -1})
			continue
		}
		container := *configs[j].DeepCopy()
		if err := mergo.Merge(&container, override, mergo.WithOverride, mergo.WithAppendSlice); err != nil {
			return nil, nil, err
		}
		merged, origins = append(merged, container), append(origins, origin{server: i, config: j})
	}
	for j, config := range configs {
		if !slices.ContainsFunc(overrides, func(c corev1.Container) bool { return c.Name == config.Name }) {
			merged, origins = append(merged, *config.DeepCopy()), append(origins, origin{server: -1, config: j})
		}
	}
	return merged, origins, nil
}

// podPlacement places each field of a Server's composed pod spec in the
// object that wrote it, the Server or its ServerConfig. A field of Seldon's
// own ServerConfig, which no linted file holds, is placed on the Server's
// spec.serverConfig, which chose it.
type podPlacement struct {
	server, config *manifest.Object
	origins        []origin
	bundled        bool
}

func (p *podPlacement) place(rest string) (manifest.FieldSource, bool) {
	server := manifest.FieldSource{Object: p.server, Path: podSpecPath}
	config := manifest.FieldSource{Object: p.config, Path: podSpecPath}
	// Containers are merged by name, not appended.
	if after, ok := strings.CutPrefix(rest, ".containers"); ok {
		if index, after, ok := leadingIndex(after); ok && index < len(p.origins) {
			server = containerAt(p.server, p.origins[index].server)
			config = containerAt(p.config, p.origins[index].config)
			rest = after
		}
	}
	source := mergedField(server, config, rest)
	if p.bundled && source.Object == p.config {
		return manifest.FieldSource{Object: p.server, Path: "spec.serverConfig"}, true
	}
	return source, true
}

// containerAt is the source of a container of the pod spec, none (no
// Object) for index -1.
func containerAt(o *manifest.Object, index int) manifest.FieldSource {
	if index < 0 {
		return manifest.FieldSource{}
	}
	return manifest.FieldSource{Object: o, Path: manifest.IndexPath(podSpecPath+".containers", index)}
}

// mergedField is the source of the field at rest under a mergo merge of
// server over config (either may be none). An item of a list is the
// ServerConfig's or the Server's by its index (WithAppendSlice). A field
// both wrote is the Server's (WithOverride); a field neither wrote is
// placed where more of its path is written, the Server's on a tie, so a
// missing field is reported where a user adds it.
func mergedField(server, config manifest.FieldSource, rest string) manifest.FieldSource {
	for {
		switch {
		case server.Object == nil:
			return manifest.FieldSource{Object: config.Object, Path: config.Path + rest}
		case config.Object == nil:
			return manifest.FieldSource{Object: server.Object, Path: server.Path + rest}
		case rest == "":
			unwritten := func(s manifest.FieldSource) int { return len(s.Path) - len(s.Object.Written(s.Path)) }
			if unwritten(config) < unwritten(server) {
				return config
			}
			return server
		}
		if index, after, ok := leadingIndex(rest); ok {
			if configItems := items(config); index < configItems {
				config.Path, server = manifest.IndexPath(config.Path, index), manifest.FieldSource{}
			} else {
				server.Path, config = manifest.IndexPath(server.Path, index-configItems), manifest.FieldSource{}
			}
			rest = after
			continue
		}
		step := firstStep(rest)
		server.Path, config.Path, rest = server.Path+step, config.Path+step, rest[len(step):]
	}
}

// items is how many items the list at source has, 0 when it has none.
func items(source manifest.FieldSource) int {
	n := 0
	for source.Object.Has(manifest.IndexPath(source.Path, n)) {
		n++
	}
	return n
}

// firstStep is the first key of the rest of a field path: ".env" of
// ".env[2].value", `["nvidia.com/gpu"]` of a quoted key (see JoinPath).
func firstStep(rest string) string {
	if strings.HasPrefix(rest, "[") {
		if quoted, err := strconv.QuotedPrefix(rest[1:]); err == nil && strings.HasPrefix(rest[1+len(quoted):], "]") {
			return rest[:len(quoted)+2]
		}
		return rest
	}
	if i := strings.IndexAny(rest[1:], ".["); i >= 0 {
		return rest[:i+1]
	}
	return rest
}
