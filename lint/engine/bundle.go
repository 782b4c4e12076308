package engine

import (
	"maps"
	"slices"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/launch/python"
	"github.com/modellint/modellint/lint/image/launch/shell"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
	corev1 "k8s.io/api/core/v1"
)

// buildBundles builds the bundles of a target: one per container of a
// workload, one per image of an image target. It settles each
// container's runtime and invocation from what runs, so every rule sees
// the same server.
func buildBundles(target *lint.Target, config *lint.Config, replayed *starts, objects *manifest.Set) {
	if target.Workload == nil {
		for _, source := range slices.Sorted(maps.Keys(target.Images)) {
			img := target.Images[source]
			bundle := &lint.Bundle{Image: img, Spec: launch.ForImage(img), Arch: config.Cluster.Architecture}
			bundle.Process = launch.NewProcess(bundle.Spec, img)
			analyze(bundle, replayed.take(nil, img))
			target.Bundles = append(target.Bundles, bundle)
		}
		return
	}
	w := target.Workload
	arch := podArch(w, config)
	for _, container := range w.Containers {
		img := target.Images[container.Image]
		config := img
		if config == nil || config.Unresolvable != "" {
			config = &image.Image{} // the start is composed from the manifest alone
		}
		bundle := &lint.Bundle{Container: container, Image: img, Spec: containerSpec(container, w.Spec, config), Arch: arch}
		bundle.Process = containerProcess(container, w, bundle.Spec, img, objects)
		if img != nil && img.Unresolvable == "" {
			analyze(bundle, replayed.take(container, img))
		}
		if !container.Init {
			recognise(bundle, w.Platform, w.Lifecycle == manifest.RunToCompletion)
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

// podArch is the CPU architecture of the nodes a pod runs on, as far as
// the pod and the config say ("" when neither does).
func podArch(w *manifest.Workload, config *lint.Config) string {
	if arch := w.Spec.NodeSelector["kubernetes.io/arch"]; arch != "" {
		return arch
	}
	return config.Cluster.Architecture
}

// analyze gives the bundle the replay of its start made while its image
// was read (nil when its layers were not read), and its process the user
// the start's wrappers switch to.
func analyze(b *lint.Bundle, replayed *start) {
	if replayed == nil || b.Image == nil || b.Image.FS() == nil {
		return
	}
	replayed.replay(b.Image) // a no-op unless the image gained facts since
	b.Start, b.Program = replayed.path, replayed.program
	if b.Start != nil {
		// What runs after gosu or setpriv runs as the user they switch to.
		b.Process.SwitchUser(b.Start.Runs)
	}
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

// recognise decides which server the container runs, from the program that
// finally runs first and the image name last, and settles the container's
// runtime and invocation on it. platform is the serving platform that built
// the pod ("kserve", "seldon", "" for none), whose declared runtime counts
// when nothing that runs says otherwise; batch says the pod runs to
// completion, so that only what it runs can make it a server.
func recognise(b *lint.Bundle, platform string, batch bool) {
	c := b.Container
	process := server.Process{Image: c.Image, Batch: batch}
	if c.FromServingRuntime || platform != "" {
		process.Declared = c.Runtime
	}
	switch {
	case b.Start != nil && len(b.Start.Runs) > 0:
		for _, run := range b.Start.Runs {
			process.Runs = append(process.Runs, b.RunWords(run))
		}
	case b.Start != nil || len(c.Started().Command) > 0 || b.Image != nil && b.Image.Config != nil:
		// Known but not followed: a wrapper that builds its command at run
		// time, or an image whose layers were not read.
		process.Command = b.ArgvWords(b.Spec.Argv)
		if b.Start == nil {
			if program, ok := followCommandString(b, b.Spec.Argv); ok {
				process.Runs = [][]server.Word{b.ArgvWords(program)}
			}
		}
	default:
		// Args only, and the image was not read: its entrypoint is unknown.
		process.Args = b.ArgvWords(b.Spec.Argv)
	}
	b.Server = server.Recognise(process)
	c.Runtime = b.Server.Runtime
	if c.Runtime == nil && b.Server.NotServer == "" && c.ProbesModelEndpoint() {
		c.Runtime = server.Generic
	}
	c.Invoked = nil
	if c.Runtime != nil && c.Runtime != server.Generic {
		c.Invoked = c.Runtime.ParseProcess(b.Server.Argv, b.Env(), c.EnvIndex(), b.Server.FromImage)
	}
}

// followCommandString follows a `sh -c STRING` from the manifest alone, when
// the image is not read: the string names the program.
func followCommandString(b *lint.Bundle, argv []string) ([]string, bool) {
	command, name, args, ok := launch.CommandString(argv)
	if !ok {
		return nil, false
	}
	env := b.Env()
	result, err := shell.FollowCommandString(command, name, args, func(key string) (string, bool) {
		value, ok := env[key]
		return value, ok
	})
	if err != nil || len(result.Commands) == 0 {
		return nil, false
	}
	return result.Commands[0].Argv, true
}
