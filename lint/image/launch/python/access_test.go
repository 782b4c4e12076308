package python

import (
	"testing"

	"github.com/modellint/modellint/lint/image/launch"
)

// TestUnlistableEntry: an import path entry the user may not list is
// passed over as if it were empty (FileFinder._fill_cache swallows the
// PermissionError), so the module comes from a later entry that has it,
// and is out of reach only when none does.
func TestUnlistableEntry(t *testing.T) {
	const private = `{path: /opt/private, dir: true, mode: "0700"}, {path: /opt/private/svc.py, content: ""}, {path: /app/main.py, content: "import svc\n"}`
	cases := []struct {
		name, files string
		denied      bool
	}{
		{name: "a later entry has it", files: `[` + private + `, {path: /usr/local/lib/python3.11/site-packages/svc.py, content: ""}]`},
		{name: "no other entry has it", files: `[` + private + `]`, denied: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			user := int64(1000)
			spec := launch.Spec{Argv: []string{"python", "/app/main.py"}, WorkingDir: "/app", RunAsUser: &user,
				Env: []string{"PATH=" + launch.DefaultPath, "PYTHONPATH=/opt/private"}}
			_, analysis := openImage(t, c.files, spec, nil)
			if !c.denied {
				if len(analysis.Problems) != 0 {
					t.Fatalf("problems %q, want none", summary(analysis))
				}
				return
			}
			if len(analysis.Problems) != 1 {
				t.Fatalf("problems %q, want one", summary(analysis))
			}
			p := analysis.Problems[0]
			if p.Reason != Unreadable || p.Module != "svc" || !p.Denied.Entry || p.Denied.Path != "/opt/private" {
				t.Errorf("problem %q (reason %d, denied %+v), want svc unreadable in the entry /opt/private", summary(analysis), p.Reason, p.Denied)
			}
		})
	}
}

// TestNamespaceModuleDenied: a module of a namespace package is checked
// against the entry the package's directory is in, like any other.
func TestNamespaceModuleDenied(t *testing.T) {
	const files = `[{path: /app/ns/mod.py, mode: "0600", content: ""}, {path: /app/main.py, content: "import ns.mod\n"}]`
	user := int64(1000)
	_, analysis := openImage(t, files, launch.Spec{Argv: []string{"python", "/app/main.py"}, WorkingDir: "/app", RunAsUser: &user}, nil)
	if len(analysis.Problems) != 1 {
		t.Fatalf("problems %q, want one", summary(analysis))
	}
	if p := analysis.Problems[0]; p.Reason != Unreadable || p.Module != "ns.mod" || p.Denied.Unreadable == nil || p.Denied.Unreadable.Path != "/app/ns/mod.py" {
		t.Errorf("problem %q (reason %d, denied %+v), want ns.mod unreadable at /app/ns/mod.py", summary(analysis), p.Reason, p.Denied)
	}
}
