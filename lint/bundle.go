package lint

import (
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/launch/python"
	"github.com/modellint/modellint/lint/image/launch/shell"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

// Bundle is what the engine knows of one container: what really runs (the
// start command from the manifest and the image config, wrapper scripts
// followed to the program they start), which server that is, and what the
// server is told. It is built once per container; rules read it.
type Bundle struct {
	// Container is nil for an image linted on its own.
	Container *manifest.Container
	// Image is the container's image; nil when it was not read.
	Image *image.Image
	// Spec is the effective start: argv, env, user and working dir as the
	// kubelet and the runtime compose them.
	Spec launch.Spec
	// Arch is the nodes' CPU architecture ("" when unknown).
	Arch string
	// Start is the start path replayed in the image; nil when its layers
	// were not read.
	Start *launch.Analysis
	// Server says which server runs, and how that was told.
	Server server.Recognition
	// Program is what the start's interpreters are told to load (a Python
	// script, module or app, node's script, java's jar) checked in the
	// image; nil when the start was not replayed.
	Program *python.Analysis
}

// Bundle returns the bundle of a container of the target, nil when the
// container is not the target's.
func (t *Target) Bundle(container *manifest.Container) *Bundle {
	for _, bundle := range t.Bundles {
		if bundle.Container == container {
			return bundle
		}
	}
	return nil
}

// buildBundles builds the bundles of a target: one per container of a
// workload, one per image of an image target. It settles each
// container's runtime and invocation from what runs, so every rule sees
// the same server.
func buildBundles(target *Target, config *Config) {
	if target.Workload == nil {
		for _, source := range slices.Sorted(maps.Keys(target.Images)) {
			img := target.Images[source]
			bundle := &Bundle{Image: img, Spec: launch.ForImage(img), Arch: config.Cluster.Architecture}
			bundle.analyze(nil)
			target.Bundles = append(target.Bundles, bundle)
		}
		return
	}
	w := target.Workload
	arch := w.Spec.NodeSelector["kubernetes.io/arch"]
	if arch == "" {
		arch = config.Cluster.Architecture
	}
	for _, container := range w.Containers {
		img := target.Images[container.Image]
		config := img
		if config == nil || config.Unresolvable != "" {
			config = &image.Image{} // the start is composed from the manifest alone
		}
		bundle := &Bundle{Container: container, Image: img, Spec: containerSpec(container, w.Spec, config), Arch: arch}
		if img != nil && img.Unresolvable == "" {
			bundle.analyze(w)
		}
		if !container.Init {
			bundle.recognise(w.Platform)
		}
		target.Bundles = append(target.Bundles, bundle)
	}
}

// containerSpec composes a container's start, with the command and args a
// platform puts in place of the manifest's.
func containerSpec(container *manifest.Container, pod *corev1.PodSpec, img *image.Image) launch.Spec {
	spec := launch.ForContainer(container.Started(), pod, img)
	if container.StartedBy != "" {
		spec.ArgvFrom = container.StartedBy
	}
	return spec
}

// analyze replays the start in the image's layers; w is the container's
// workload, nil for an image on its own.
func (b *Bundle) analyze(w *manifest.Workload) {
	if b.Image == nil || b.Image.FS() == nil {
		return
	}
	arch := b.Arch
	if arch == "" && b.Image.Config != nil {
		arch = b.Image.Config.Architecture
	}
	b.Start = launch.Analyze(b.Image, b.Spec, arch)
	b.Program = python.Analyze(b.Image, programContext(w, b.Container, b.Spec), b.Start.Runs)
}

// programContext is what the program checks need of a container besides
// its start: which paths are volumes, which env the cluster fills in, and
// for a RayService's Ray container the Serve applications it deploys.
func programContext(w *manifest.Workload, container *manifest.Container, spec launch.Spec) python.Context {
	ctx := python.Context{Spec: spec}
	if container == nil {
		return ctx
	}
	if w != nil && w.ServeConfig != "" && !container.Init && strings.HasSuffix(container.Path, ".containers[0]") {
		// KubeRay runs Ray in the first container of each group.
		apps, err := python.ParseServeConfig(w.ServeConfig)
		ctx.ServeApps = apps
		if err != nil {
			ctx.ServeConfigError = w.ServeConfigPath + ": " + err.Error()
		}
	}
	for _, mount := range container.VolumeMounts {
		ctx.Mounts = append(ctx.Mounts, mount.MountPath)
	}
	for _, variable := range container.Env {
		if variable.ValueFrom != nil {
			ctx.EnvFromCluster = append(ctx.EnvFromCluster, variable.Name)
		}
	}
	return ctx
}

// ArgvFields are the manifest fields that wrote each word of an argv the
// container runs ("" for words from the image), as findings cite them.
func (b *Bundle) ArgvFields(argv []string) []string {
	if b.Container == nil {
		return make([]string, len(argv))
	}
	words := b.words(argv)
	fields := make([]string, len(words))
	for i, word := range words {
		fields[i] = word.Field
	}
	return fields
}

// recognise decides which server the container runs, from the program that
// finally runs first and the image name last, and settles the container's
// runtime and invocation on it. platform is the serving platform that built
// the pod ("kserve", "seldon", "" for none), whose declared runtime counts
// when nothing that runs says otherwise.
func (b *Bundle) recognise(platform string) {
	c := b.Container
	process := server.Process{Image: c.Image}
	if c.FromServingRuntime || platform != "" {
		process.Declared = c.Runtime
	}
	switch {
	case b.Start != nil && len(b.Start.Runs) > 0:
		for _, run := range b.Start.Runs {
			process.Runs = append(process.Runs, b.words(run.Argv))
		}
	case b.Start != nil || len(c.Started().Command) > 0 || b.Image != nil && b.Image.Config != nil:
		// Known but not followed: a wrapper that builds its command at run
		// time, or an image whose layers were not read.
		process.Command = b.words(b.Spec.Argv)
		if b.Start == nil {
			if program, ok := b.followCommandString(b.Spec.Argv); ok {
				process.Runs = [][]server.Word{b.words(program)}
			}
		}
	default:
		// Args only, and the image was not read: its entrypoint is unknown.
		process.Args = b.words(b.Spec.Argv)
	}
	b.Server = server.Recognise(process)
	c.Runtime = b.Server.Runtime
	if c.Runtime == nil && b.Server.NotServer == "" && c.ProbesModelEndpoint() {
		c.Runtime = server.Generic
	}
	c.Invoked = nil
	if c.Runtime != nil && c.Runtime != server.Generic {
		c.Invoked = c.Runtime.ParseProcess(b.Server.Argv, b.env(), c.EnvIndex(), b.Server.FromImage)
	}
}

// commandString is the string of a `sh -c STRING [NAME [ARGS…]]` argv,
// read the way the start path reads it.
func commandString(argv []string) (command, name string, args []string, ok bool) {
	if len(argv) == 0 || !shell.IsShell(path.Base(argv[0])) {
		return "", "", nil, false
	}
	command, name, args, file, ok := launch.ShellOperands(argv)
	return command, name, args, ok && file == ""
}

// followCommandString follows a `sh -c STRING` from the manifest alone, when
// the image is not read: the string names the program.
func (b *Bundle) followCommandString(argv []string) ([]string, bool) {
	command, name, args, ok := commandString(argv)
	if !ok {
		return nil, false
	}
	env := b.env()
	result, err := shell.FollowCommandString(command, name, args, func(key string) (string, bool) {
		value, ok := env[key]
		return value, ok
	})
	if err != nil || len(result.Commands) == 0 {
		return nil, false
	}
	return result.Commands[0].Argv, true
}

// env is the container's environment as the server sees it: the image's
// ENV, then the manifest's literal values.
func (b *Bundle) env() map[string]string {
	env := map[string]string{}
	for _, entry := range b.Spec.Env {
		name, value, _ := strings.Cut(entry, "=")
		env[name] = value
	}
	return env
}

// words pairs each word of an argv with the manifest field that wrote it,
// so findings point at the line a user edits: the manifest's command and
// args keep their positions when they are what runs, or the tail of it
// when a wrapper passes them on ("$@"); the words of a manifest `sh -c`
// string point at that string; words from the image have no field.
func (b *Bundle) words(argv []string) []server.Word {
	c, spec := b.Container, b.Spec
	fields := make([]string, len(spec.Argv))
	switch spec.ArgvFrom {
	case "command":
		for i := range fields {
			if i < len(c.Command) {
				fields[i] = "command[" + strconv.Itoa(i) + "]"
			} else {
				fields[i] = "args[" + strconv.Itoa(i-len(c.Command)) + "]"
			}
		}
	case "ENTRYPOINT", "args":
		for i := range c.Args {
			if at := len(fields) - len(c.Args) + i; at >= 0 {
				fields[at] = "args[" + strconv.Itoa(i) + "]"
			}
		}
	}
	words := make([]server.Word, len(argv))
	for i, word := range argv {
		words[i] = server.Word{Text: word}
	}
	if slices.Equal(argv, spec.Argv) {
		for i := range words {
			words[i].Field = fields[i]
		}
		return words
	}
	// A wrapper that passes the manifest's args on ends with them.
	for i := 1; i <= len(argv) && i <= len(spec.Argv); i++ {
		at, from := len(argv)-i, len(spec.Argv)-i
		if argv[at] != spec.Argv[from] || fields[from] == "" || !strings.HasPrefix(fields[from], "args[") {
			break
		}
		words[at].Field = fields[from]
	}
	if script, _, _, isString := commandString(c.Command); spec.ArgvFrom == "command" && isString {
		field := "command[" + strconv.Itoa(slices.Index(c.Command, script)) + "]"
		for i := range words {
			if words[i].Field == "" {
				words[i].Field = field
			}
		}
	}
	return words
}
