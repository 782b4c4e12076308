package launch

import (
	"slices"
	"testing"
)

func TestShellOperands(t *testing.T) {
	cases := []struct {
		argv                []string
		command, name, file string
		args                []string
		ok                  bool
	}{
		{argv: []string{"sh", "-c", "exec server", "srv", "a"}, command: "exec server", name: "srv", args: []string{"a"}, ok: true},
		// KubeRay's start: -c makes the first operand after -- the string.
		{argv: []string{"/bin/bash", "-c", "--", "ulimit -n 65536; ray start --head --block"}, command: "ulimit -n 65536; ray start --head --block", name: "/bin/bash", ok: true},
		{argv: []string{"/bin/bash", "-lc", "--", "ray start", "ray", "x"}, command: "ray start", name: "ray", args: []string{"x"}, ok: true},
		{argv: []string{"bash", "-c", "-x", "exec server"}, command: "exec server", name: "bash", ok: true},
		{argv: []string{"bash", "-e", "--", "/start.sh", "a"}, file: "/start.sh", args: []string{"a"}, ok: true},
		{argv: []string{"bash", "-o", "pipefail", "/start.sh"}, file: "/start.sh", args: []string{}, ok: true},
		{argv: []string{"bash", "-c", "--"}},
		{argv: []string{"bash", "-c"}},
		{argv: []string{"bash"}},
	}
	for _, tc := range cases {
		command, name, args, file, ok := ShellOperands(tc.argv)
		if command != tc.command || name != tc.name || file != tc.file || ok != tc.ok || !slices.Equal(args, tc.args) {
			t.Errorf("ShellOperands(%q) = %q, %q, %q, %q, %v; want %q, %q, %q, %q, %v", tc.argv, command, name, args, file, ok,
				tc.command, tc.name, tc.args, tc.file, tc.ok)
		}
	}
}
