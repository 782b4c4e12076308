package python

import (
	"slices"
	"testing"

	"github.com/modellint/modellint/lint/image/launch"
)

// TestInterpreterPrefix: the version and the prefix Python finds its
// standard library under, for a Python outside /usr/local and /usr, a venv
// of it, and a Python named with its version or a venv's copy of one
// (venv --copies) beside two standard libraries; PYTHONPATH's relative
// entries are from the working dir.
func TestInterpreterPrefix(t *testing.T) {
	const files = `[{path: /opt/python/bin/python3.11, elf: stub-amd64}, {path: /opt/python/lib/python3.11/os.py, content: ""},
{path: /opt/venv/pyvenv.cfg, content: "home = /opt/python/bin\nversion = 3.11.9\n"}, {path: /opt/venv/bin/python, elf: stub-amd64},
{path: /usr/local/lib/python3.12/os.py, content: ""},
{path: /usr/bin/python, elf: stub-amd64}, {path: /usr/lib/python3.11/os.py, content: ""}, {path: /usr/lib/python3.12/site-packages/x.py, content: ""}, {path: /usr/lib/README, content: ""},
{path: /opt/two/bin/python, elf: stub-amd64}, {path: /opt/two/lib/python3.11/os.py, content: ""}, {path: /opt/two/lib/python3.12/os.py, content: ""},
{path: /opt/copies/pyvenv.cfg, content: "home = /usr/local/bin\nversion = 3.11.9\n"}, {path: /opt/copies/bin/python, elf: stub-amd64},
{path: /opt/bare/pyvenv.cfg, content: "home = /usr/local/bin\nversion = 3\n"}, {path: /opt/bare/bin/python, elf: stub-amd64}]`
	img, _ := openImage(t, files, launch.Spec{Argv: []string{"/bin/sh"}, WorkingDir: "/"}, nil)
	r := &resolver{img: img, fs: img.FS()}
	cases := []struct {
		executable, version, prefix, reason string
	}{
		{executable: "/opt/python/bin/python3.11", version: "3.11", prefix: "/opt/python"},
		{executable: "/opt/venv/bin/python", version: "3.11", prefix: "/opt/python"},
		// The name says 3.11 where /usr/local has two standard libraries.
		{executable: "/usr/local/bin/python3.11", version: "3.11", prefix: "/usr/local"},
		{executable: "/opt/copies/bin/python", version: "3.11", prefix: "/usr/local"},
		// The only lib/python3.N with an os.py.
		{executable: "/usr/bin/python", version: "3.11", prefix: "/usr"},
		// Two under the first prefix that has any: no version.
		{executable: "/opt/two/bin/python", reason: "the version of /opt/two/bin/python is not in its name and no single lib/python3.N was found"},
		{executable: "/opt/bare/bin/python", reason: "the version of /opt/bare/bin/python is not in its name and no single lib/python3.N was found"},
	}
	for _, c := range cases {
		in, reason := r.interpreter(c.executable, launch.Spec{WorkingDir: "/"}, Flags{})
		if reason != c.reason {
			t.Errorf("%s: reason %q, want %q", c.executable, reason, c.reason)
			continue
		}
		if in != nil && (in.Version != c.version || in.Prefix != c.prefix) {
			t.Errorf("%s: Python %s under %s, want %s under %s", c.executable, in.Version, in.Prefix, c.version, c.prefix)
		}
	}
	spec := launch.Spec{WorkingDir: "/app", Env: []string{"PYTHONPATH=src:/opt/lib"}}
	if in, _ := r.interpreter("/opt/python/bin/python3.11", spec, Flags{}); in == nil || !slices.Equal(in.Extra, []string{"/app/src", "/opt/lib"}) {
		t.Errorf("PYTHONPATH entries %v, want [/app/src /opt/lib]", in)
	}
}
