package testenv

import (
	"fmt"
	"testing"
)

// recorder is a testing.TB that records how a test ended instead of ending.
type recorder struct {
	testing.TB
	ended string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.ended = "fail: " + fmt.Sprintf(format, args...)
	panic(r)
}
func (r *recorder) Skip(args ...any) {
	r.ended = "skip: " + fmt.Sprint(args...)
	panic(r)
}

func ending(test func(t testing.TB)) (ended string) {
	r := &recorder{}
	defer func() {
		recover()
		ended = r.ended
	}()
	test(r)
	r.ended = "ran"
	return ""
}

func TestUnavailable(t *testing.T) {
	missing := func(t testing.TB) { Tool(t, "modellint-no-such-tool", "apt-get install it") }
	t.Setenv(RequireTools, "")
	if got, want := ending(missing), "skip: modellint-no-such-tool is not installed (apt-get install it); skipping"; got != want {
		t.Errorf("without %s: %q, want %q", RequireTools, got, want)
	}
	t.Setenv(RequireTools, "1")
	if got, want := ending(missing), "fail: modellint-no-such-tool is not installed (apt-get install it); "+RequireTools+"=1 requires it"; got != want {
		t.Errorf("with %s=1: %q, want %q", RequireTools, got, want)
	}
	if got := ending(func(t testing.TB) { Tool(t, "go", "") }); got != "ran" {
		t.Errorf("go is on PATH, but: %q", got)
	}
}
