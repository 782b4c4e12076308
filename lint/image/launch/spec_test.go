package launch

import (
	"slices"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestForContainerStart: args alone without an ENTRYPOINT, the working
// directory, the container's securityContext over the pod's, and the
// image's SHELL in the shell form.
func TestForContainerStart(t *testing.T) {
	img := imageWith(v1.Config{Cmd: []string{"serve"}, WorkingDir: "/app"})
	spec := ForContainer(&corev1.Container{Args: []string{"python3", "-m", "server"}}, nil, img)
	if !slices.Equal(spec.Argv, []string{"python3", "-m", "server"}) || spec.ArgvFrom != "args" || spec.WorkingDir != "/app" {
		t.Errorf("args without ENTRYPOINT: argv %q from %s, dir %q", spec.Argv, spec.ArgvFrom, spec.WorkingDir)
	}
	if spec := ForContainer(&corev1.Container{WorkingDir: "/srv"}, nil, img); spec.WorkingDir != "/srv" {
		t.Errorf("the container's workingDir: %q", spec.WorkingDir)
	}
	if spec := ForContainer(&corev1.Container{}, nil, imageWith(v1.Config{Cmd: []string{"serve"}})); spec.WorkingDir != "/" {
		t.Errorf("no working directory: %q, want /", spec.WorkingDir)
	}

	podUser, podGroup, containerUser, containerGroup := int64(1000), int64(1000), int64(2000), int64(3000)
	pod := &corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsUser: &podUser, RunAsGroup: &podGroup}}
	spec = ForContainer(&corev1.Container{SecurityContext: &corev1.SecurityContext{RunAsUser: &containerUser, RunAsGroup: &containerGroup}}, pod, img)
	if *spec.RunAsUser != 2000 || *spec.RunAsGroup != 3000 {
		t.Errorf("the container's runAsUser and runAsGroup win: %d:%d", *spec.RunAsUser, *spec.RunAsGroup)
	}
	spec = ForContainer(&corev1.Container{SecurityContext: &corev1.SecurityContext{}}, pod, img)
	if spec.RunAsUser == nil || *spec.RunAsUser != 1000 || spec.RunAsGroup == nil || *spec.RunAsGroup != 1000 {
		t.Errorf("the pod's runAsUser and runAsGroup stay: %v:%v", spec.RunAsUser, spec.RunAsGroup)
	}

	bash := imageWith(v1.Config{Shell: []string{"/bin/bash", "-c"}, Entrypoint: []string{"/bin/bash", "-c", "serve"}, Cmd: []string{"--x"}})
	if spec := ForContainer(&corev1.Container{}, nil, bash); !spec.ShellForm || !slices.Equal(spec.DroppedArgs, []string{"--x"}) {
		t.Errorf("the shell form with the image's SHELL: %+v", spec)
	}
}
