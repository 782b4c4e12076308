package rules

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/launch/python"
)

// TestNamespaceImport: an import of a package whose directory the user
// may not enter succeeds with an empty namespace package, so a bare
// import only risks an AttributeError at first use (a warning), while a
// from-import of a name fails at once (an error).
func TestNamespaceImport(t *testing.T) {
	denied := &python.Denied{Path: "/app/secret/__init__.py", Namespace: true,
		Blocked: []launch.Dir{{Path: "/app/secret", Mode: fs.ModeDir | 0o700}}}
	for _, c := range []struct {
		name    string
		from    bool
		names   []string
		warning bool
		says    string
	}{
		{"bare import", false, nil, true, `"AttributeError: module 'secret' has no attribute '…'"`},
		{"from-import of a name", true, []string{"model"}, false,
			`"ImportError: cannot import name 'model' from 'secret' (unknown location)"`},
		{"star import", true, nil, true, `"NameError: name '…' is not defined"`},
	} {
		p := python.Problem{Kind: python.ImportMissing, Reason: python.Unreadable, Target: "secret", Module: "secret",
			From: c.from, Names: c.names, Denied: denied}
		if got := namespaceOnly(p); got != c.warning {
			t.Errorf("%s: namespaceOnly %v, want %v", c.name, got, c.warning)
		}
		if got := loadFailure(p); !strings.Contains(got, c.says) || !strings.Contains(got, "imports /app/secret as an empty namespace package") {
			t.Errorf("%s: %q, want it to say %s", c.name, got, c.says)
		}
	}
	file := python.Problem{Kind: python.ImportMissing, Reason: python.Unreadable, Target: "locked", Module: "locked",
		Denied: &python.Denied{Path: "/app/locked/__init__.py", Unreadable: &launch.Dir{Path: "/app/locked/__init__.py", Mode: 0o600}}}
	if namespaceOnly(file) {
		t.Error("an unreadable __init__.py fails the import: an error")
	}
	if got := loadFailure(file); !strings.Contains(got, `"PermissionError: [Errno 13] Permission denied: '/app/locked/__init__.py'"`) {
		t.Errorf("unreadable __init__.py: %q", got)
	}
}
