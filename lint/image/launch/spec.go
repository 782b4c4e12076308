package launch

import (
	"fmt"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/internal/kubevar"
	"github.com/modellint/modellint/lint/image"
)

// DefaultPath is the PATH containerd's CRI plugin sets before the image's
// and the pod's env (internal/cri/server/container_create.go).
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Spec is how one container will be started.
type Spec struct {
	// Argv is the process's argument vector, $(VAR) references expanded.
	Argv []string
	// ArgvFrom says which fields argv[0] came from: "command",
	// "ENTRYPOINT", "CMD", or the platform that replaced the container's
	// command and args ("KubeRay").
	ArgvFrom string
	// ShellForm is set when the image's ENTRYPOINT is Docker's shell form
	// (["/bin/sh", "-c", "…"]) and argv comes from it.
	ShellForm bool
	// DroppedArgs are the args a shell-form ENTRYPOINT receives as $0, $1 …
	// and a script that does not use them silently ignores.
	DroppedArgs []string
	// ArgsFrom names where DroppedArgs came from ("args" or "CMD").
	ArgsFrom string
	// Env is the process environment in order, later entries winning.
	Env []string
	// WorkingDir is where relative paths start.
	WorkingDir string
	// RunAsUser, RunAsGroup and SupplementalGroups come from the pod or
	// container securityContext.
	RunAsUser, RunAsGroup *int64
	SupplementalGroups    []int64
	RunAsNonRoot          bool
	// StrictGroups is the pod's supplementalGroupsPolicy: Strict: the
	// uid's memberships in the image's /etc/group are not added, only
	// runAsGroup, supplementalGroups and fsGroup.
	StrictGroups bool
	// NoNewPrivileges is allowPrivilegeEscalation: false: a setuid
	// program runs as its caller. AddedCapabilities are the container's
	// capabilities.add.
	NoNewPrivileges   bool
	AddedCapabilities []string
	// AccountsMounted names the volume mounted over the image's
	// /etc/passwd or /etc/group (through subPath, or at /etc), "" when
	// none is: a wrapper that switches the user reads it, not the
	// image's.
	AccountsMounted string
	// Serves says a command line starts a known model server. A wrapper
	// script's commands that start one (or an interpreter) before the one
	// it ends on are followed too; nil counts interpreters only.
	Serves func(argv []string) bool
}

// ForContainer composes the start of a container of a pod from the image
// config, as the kubelet and containerd do: command replaces ENTRYPOINT
// and drops CMD; args alone replace CMD.
func ForContainer(container *corev1.Container, pod *corev1.PodSpec, img *image.Image) Spec {
	var entrypoint, cmd []string
	var imageEnv []string
	workingDir := ""
	if img.Config != nil {
		entrypoint, cmd = img.Config.Config.Entrypoint, img.Config.Config.Cmd
		imageEnv = img.Config.Config.Env
		workingDir = img.Config.Config.WorkingDir
	}
	if len(entrypoint) == 1 && entrypoint[0] == "" {
		entrypoint = nil // ENTRYPOINT [""] clears the base image's
	}
	spec := Spec{}
	containerEnv := map[string]string{}
	var podEnv []string
	for _, variable := range container.Env {
		if variable.ValueFrom != nil {
			continue // resolved by the kubelet from objects modellint may not see
		}
		value := kubevar.Expand(variable.Value, kubevar.Map(containerEnv))
		containerEnv[variable.Name] = value
		podEnv = append(podEnv, variable.Name+"="+value)
	}
	spec.Env = append(append([]string{"PATH=" + DefaultPath}, imageEnv...), podEnv...)
	command := expandAll(container.Command, containerEnv)
	args := expandAll(container.Args, containerEnv)
	switch {
	case len(command) > 0:
		spec.Argv, spec.ArgvFrom = append(command, args...), "command"
	case len(entrypoint) > 0:
		spec.Argv, spec.ArgvFrom = append(append([]string(nil), entrypoint...), args...), "ENTRYPOINT"
		extra, from := args, "args"
		if len(args) == 0 {
			spec.Argv, extra, from = append(spec.Argv, cmd...), cmd, "CMD"
		}
		if IsShellForm(entrypoint, img) {
			spec.ShellForm = true
			if len(extra) > 0 && !usesPositional(entrypoint[len(entrypoint)-1]) {
				spec.DroppedArgs, spec.ArgsFrom = extra, from
			}
		}
	case len(args) > 0:
		spec.Argv, spec.ArgvFrom = args, "args"
	default:
		spec.Argv, spec.ArgvFrom = append([]string(nil), cmd...), "CMD"
	}
	for _, mount := range container.VolumeMounts {
		dir := path.Clean("/" + mount.MountPath)
		for _, file := range []string{"/etc/passwd", "/etc/group"} {
			if spec.AccountsMounted == "" && (dir == file || strings.HasPrefix(file, strings.TrimSuffix(dir, "/")+"/")) {
				spec.AccountsMounted = fmt.Sprintf("volume %q is mounted at %s", mount.Name, mount.MountPath)
			}
		}
	}
	spec.WorkingDir = container.WorkingDir
	if spec.WorkingDir == "" {
		spec.WorkingDir = workingDir
	}
	if spec.WorkingDir == "" {
		spec.WorkingDir = "/"
	}
	if pod != nil && pod.SecurityContext != nil {
		sc := pod.SecurityContext
		spec.RunAsUser, spec.RunAsGroup = sc.RunAsUser, sc.RunAsGroup
		if sc.RunAsNonRoot != nil {
			spec.RunAsNonRoot = *sc.RunAsNonRoot
		}
		spec.SupplementalGroups = append(spec.SupplementalGroups, sc.SupplementalGroups...)
		spec.StrictGroups = sc.SupplementalGroupsPolicy != nil && *sc.SupplementalGroupsPolicy == corev1.SupplementalGroupsPolicyStrict
		if sc.FSGroup != nil {
			spec.SupplementalGroups = append(spec.SupplementalGroups, *sc.FSGroup)
		}
	}
	if sc := container.SecurityContext; sc != nil {
		spec.NoNewPrivileges = sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation
		if sc.Capabilities != nil {
			for _, capability := range sc.Capabilities.Add {
				spec.AddedCapabilities = append(spec.AddedCapabilities, string(capability))
			}
		}
		if sc.RunAsUser != nil {
			spec.RunAsUser = sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			spec.RunAsGroup = sc.RunAsGroup
		}
		if sc.RunAsNonRoot != nil {
			spec.RunAsNonRoot = *sc.RunAsNonRoot
		}
	}
	return spec
}

// ForImage composes the start of an image run with its defaults, for an
// image linted on its own.
func ForImage(img *image.Image) Spec {
	return ForContainer(&corev1.Container{}, nil, img)
}

// IsShellForm recognises Docker's shell form, which the builder stores as
// the image's SHELL (default ["/bin/sh", "-c"]) followed by one string.
func IsShellForm(entrypoint []string, img *image.Image) bool {
	shell := []string{"/bin/sh", "-c"}
	if img != nil && img.Config != nil && len(img.Config.Config.Shell) > 0 {
		shell = img.Config.Config.Shell
	}
	if len(entrypoint) != len(shell)+1 {
		return false
	}
	for i := range shell {
		if entrypoint[i] != shell[i] {
			return false
		}
	}
	return true
}

// usesPositional reports whether a shell script reads its arguments.
func usesPositional(script string) bool {
	for _, marker := range []string{"$@", "$*", "$1", "${@", "${*", "${1", "$#"} {
		if strings.Contains(script, marker) {
			return true
		}
	}
	return false
}

func expandAll(values []string, env map[string]string) []string {
	if values == nil {
		return nil
	}
	out := make([]string, len(values))
	for i, value := range values {
		out[i] = kubevar.Expand(value, kubevar.Map(env))
	}
	return out
}

// Lookup returns the last value of a variable in an ordered environment.
func Lookup(env []string, name string) (string, bool) {
	value, found := "", false
	for _, entry := range env {
		key, v, _ := strings.Cut(entry, "=")
		if key == name {
			value, found = v, true
		}
	}
	return value, found
}
