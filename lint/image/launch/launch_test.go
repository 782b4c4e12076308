package launch

import (
	"reflect"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint/image"
)

func imageWith(config v1.Config) *image.Image {
	return &image.Image{Config: &v1.ConfigFile{Config: config}}
}

// TestForContainer follows the Kubernetes table of command/args against
// ENTRYPOINT/CMD (kubernetes.io/docs/tasks/inject-data-application/
// define-command-argument-container/#notes).
func TestForContainer(t *testing.T) {
	img := imageWith(v1.Config{Entrypoint: []string{"/ep"}, Cmd: []string{"--cmd"}, Env: []string{"PATH=/image/bin", "A=image"}})
	env := []corev1.EnvVar{{Name: "MODEL", Value: "resnet"}, {Name: "PATHS", Value: "$(MODEL)/x"}}
	cases := []struct {
		command, args []string
		want          []string
		from          string
	}{
		{nil, nil, []string{"/ep", "--cmd"}, "ENTRYPOINT"},
		{[]string{"/c"}, nil, []string{"/c"}, "command"},
		{nil, []string{"--model=$(MODEL)", "$$(MODEL)", "$(NOPE)"}, []string{"/ep", "--model=resnet", "$(MODEL)", "$(NOPE)"}, "ENTRYPOINT"},
		{[]string{"/c"}, []string{"$(PATHS)"}, []string{"/c", "resnet/x"}, "command"},
	}
	for _, c := range cases {
		spec := ForContainer(&corev1.Container{Command: c.command, Args: c.args, Env: env}, nil, img)
		if !reflect.DeepEqual(spec.Argv, c.want) || spec.ArgvFrom != c.from {
			t.Errorf("command %v args %v: argv %q from %s, want %q from %s", c.command, c.args, spec.Argv, spec.ArgvFrom, c.want, c.from)
		}
		if path, _ := Lookup(spec.Env, "PATH"); path != "/image/bin" {
			t.Errorf("PATH %q: the image's PATH wins over the default", path)
		}
	}
	shell := imageWith(v1.Config{Entrypoint: []string{"/bin/sh", "-c", "serve --port 1"}, Cmd: []string{"--x"}})
	if spec := ForContainer(&corev1.Container{}, nil, shell); !spec.ShellForm || spec.ArgsFrom != "CMD" || len(spec.DroppedArgs) != 1 {
		t.Errorf("shell form: %+v", spec)
	}
	if spec := ForContainer(&corev1.Container{Command: []string{"/bin/sh", "-c", "serve"}, Args: []string{"x"}}, nil, shell); spec.ShellForm {
		t.Errorf("a manifest command is not the image's shell form: %+v", spec)
	}
}

func TestCanExecute(t *testing.T) {
	root := User{UID: 0, Groups: []uint32{0}}
	app := User{UID: 1000, GID: 1000, Groups: []uint32{1000, 44}}
	cases := []struct {
		user          User
		mode, uid, gi uint32
		want          bool
	}{
		{root, 0o644, 0, 0, false}, // root needs one execute bit
		{root, 0o100, 5, 5, true},
		{app, 0o750, 0, 1000, true},  // group
		{app, 0o750, 0, 0, false},    // other has nothing
		{app, 0o075, 1000, 0, false}, // the owner class matches first, and has no x
		{app, 0o710, 0, 44, true},    // supplementary group
	}
	for _, c := range cases {
		if got := c.user.CanExecute(c.mode, c.uid, c.gi); got != c.want {
			t.Errorf("%v mode %o owner %d:%d: %v, want %v", c.user, c.mode, c.uid, c.gi, got, c.want)
		}
	}
}

func TestCanRead(t *testing.T) {
	root := User{UID: 0, Groups: []uint32{0}}
	app := User{UID: 1000, GID: 1000, Groups: []uint32{1000, 44}}
	cases := []struct {
		user          User
		mode, uid, gi uint32
		want          bool
	}{
		{root, 0o000, 5, 5, true},    // CAP_DAC_OVERRIDE
		{app, 0o600, 0, 0, false},    // root's private file
		{app, 0o600, 1000, 0, true},  // its own
		{app, 0o640, 0, 44, true},    // supplementary group
		{app, 0o044, 1000, 0, false}, // the owner class matches first, and has no r
		{app, 0o711, 0, 0, false},    // a directory it may enter but not list
	}
	for _, c := range cases {
		if got := c.user.CanRead(c.mode, c.uid, c.gi); got != c.want {
			t.Errorf("%v mode %o owner %d:%d: %v, want %v", c.user, c.mode, c.uid, c.gi, got, c.want)
		}
	}
}

func TestParseShebang(t *testing.T) {
	for head, want := range map[string]Shebang{
		"#!/bin/sh\nexec x":                {Interpreter: "/bin/sh"},
		"#!/usr/bin/env python3 -u\n":      {Interpreter: "/usr/bin/env", Argument: "python3 -u"},
		"#! /bin/bash\r\n":                 {Interpreter: "/bin/bash", CRLF: true},
		"#!/usr/bin/env -S python3 -X a\n": {Interpreter: "/usr/bin/env", Argument: "-S python3 -X a"},
		"#!":                               {}, // a #! line that names nothing is still one
	} {
		got, ok := ParseShebang([]byte(head))
		if !ok || got != want {
			t.Errorf("%q: %+v, want %+v", head, got, want)
		}
	}
	if envProgram("-S python3 -u") != "python3" || envProgram("A=1 node") != "node" {
		t.Error("env program")
	}
}

// TestVersionOrder pins the order of symbol versions, which decides the
// oldest missing one and the newest a library defines.
func TestVersionOrder(t *testing.T) {
	versions := []string{"GLIBC_2.10", "GLIBC_2.9", "GLIBC_2.2.5", "GLIBC_2.8", "GLIBC_2.2", "GLIBC_2.34"}
	sortVersions(versions)
	want := []string{"GLIBC_2.2", "GLIBC_2.2.5", "GLIBC_2.8", "GLIBC_2.9", "GLIBC_2.10", "GLIBC_2.34"}
	if !reflect.DeepEqual(versions, want) {
		t.Errorf("sorted %q, want %q", versions, want)
	}
	cases := []struct {
		a, b string
		want bool
	}{
		{"GLIBC_2.2", "GLIBC_2.2.5", true}, // a prefix is older
		{"GLIBC_2.2.5", "GLIBC_2.2", false},
		{"GLIBC_2.8", "GLIBC_2.9", true},
		{"GLIBC_2.9", "GLIBC_2.10", true},
		{"GLIBC_2.10", "GLIBC_2.9", false},
	}
	for _, c := range cases {
		if got := versionLess(c.a, c.b); got != c.want {
			t.Errorf("versionLess(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if got := newestVersion([]string{"GLIBC_2.9", "GLIBC_2.10", "GLIBC_2.8", "GCC_3.0"}, "GLIBC_2.34"); got != "GLIBC_2.10" {
		t.Errorf("newest GLIBC_ = %q, want GLIBC_2.10", got)
	}
}
