package lazyregexp

import (
	"strings"
	"testing"
)

// TestCompiledOnFirstUse: an expression compiles when first used, then
// matches as regexp does; a bad one panics there, as regexp.MustCompile
// would at init, and Check reports it before.
func TestCompiledOnFirstUse(t *testing.T) {
	version := New(`^v(\d+)$`)
	if version.re != nil {
		t.Fatal("compiled before use")
	}
	if got := version.FindStringSubmatch("v12"); len(got) != 2 || got[1] != "12" {
		t.Errorf("FindStringSubmatch(v12) = %q", got)
	}
	if version.MatchString("12") {
		t.Error("matched 12")
	}
	if version.re == nil || version.String() != `^v(\d+)$` {
		t.Errorf("not kept compiled after use, or String %q", version)
	}

	bad := New(`(unclosed`)
	if err := Check(); err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("Check() = %v, want the bad expression's error", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic at its first use")
		}
		allMu.Lock()
		all = all[:len(all)-1]
		allMu.Unlock()
	}()
	bad.MatchString("x")
}
