package rules

import (
	"testing"

	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/rootfs"
	"github.com/modellint/modellint/lint/manifest"

	corev1 "k8s.io/api/core/v1"
)

// TestReadable: MDL406 judges a model file by the one permission class
// the kernel picks for the user: owner, else group (primary or
// supplementary), else other; never a wider class.
func TestReadable(t *testing.T) {
	file := func(mode, uid, gid uint32) *rootfs.Node {
		return &rootfs.Node{Entry: rootfs.Entry{Type: rootfs.Regular, Mode: mode, UID: uid, GID: gid}}
	}
	user := launch.User{UID: 1000, GID: 1000, Groups: []uint32{1000, 2000}}
	for _, c := range []struct {
		name string
		node *rootfs.Node
		want bool
	}{
		{"owner may read", file(0o600, 1000, 0), true},
		{"owner may not, though others may", file(0o044, 1000, 0), false},
		{"primary group", file(0o640, 0, 1000), true},
		{"supplementary group", file(0o640, 0, 2000), true},
		{"another group: the other bits count", file(0o640, 0, 3000), false},
		{"another group, other may read", file(0o604, 0, 3000), true},
		{"a group that may not, though others may", file(0o604, 0, 1000), false},
		{"a directory needs read and search", &rootfs.Node{Entry: rootfs.Entry{Type: rootfs.Dir, Mode: 0o755, UID: 0, GID: 0}}, true},
		{"a directory without search", &rootfs.Node{Entry: rootfs.Entry{Type: rootfs.Dir, Mode: 0o744, UID: 0, GID: 1000}}, false},
	} {
		if got := readable(c.node, user); got != c.want {
			t.Errorf("%s: readable %v, want %v", c.name, got, c.want)
		}
	}
	if !readable(file(0o000, 5, 5), launch.User{UID: 0}) {
		t.Error("root reads any file")
	}
}

// TestLongRunning: a container serves something when it declares a port
// or a readiness probe.
func TestLongRunning(t *testing.T) {
	for _, c := range []struct {
		name      string
		container corev1.Container
		want      bool
	}{
		{"a port", corev1.Container{Ports: []corev1.ContainerPort{{ContainerPort: 80}}}, true},
		{"a readiness probe", corev1.Container{ReadinessProbe: &corev1.Probe{}}, true},
		{"neither", corev1.Container{}, false},
	} {
		if got := longRunning(&manifest.Container{Container: &c.container}); got != c.want {
			t.Errorf("%s: longRunning %v, want %v", c.name, got, c.want)
		}
	}
}
