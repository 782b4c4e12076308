package shell

import (
	"strings"
	"testing"
)

func FuzzFollow(f *testing.F) {
	for _, seed := range []string{
		"#!/bin/sh\nexec \"$@\"\n",
		"tensorflow_model_server --port=8500 --model_name=${MODEL_NAME} \"$@\"",
		"main() { exec ${SERVER:-tritonserver} \"$@\"; }\nmain --x\n",
		"case $1 in a) exec a;; *) sh -c 'exec env X=1 b \"$@\"' b \"$@\";; esac",
		"X=${X:=a}$X; while :; do eval \"$X\" & done; wait; exit $?",
		"f() { f | f & }; f",
		"exec gosu u ${1#-} ${2%%*.} $'\\x41' `x` $((1+1)) <(y)",
	} {
		f.Add(seed, "--flag", "value")
	}
	lookup := env("MODEL_NAME", "m", "X", "exec y")
	f.Fuzz(func(t *testing.T, script, arg1, arg2 string) {
		result, err := Follow([]byte(script), "entrypoint", []string{arg1, arg2}, lookup)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error over more than one line: %q", err)
			}
			return
		}
		if len(result.Commands) > maxCommands || len(result.Unresolved) > maxUnresolved+1 {
			t.Fatalf("unbounded result: %d commands, %d reasons", len(result.Commands), len(result.Unresolved))
		}
		for _, c := range result.Commands {
			if len(c.Argv) == 0 {
				t.Fatalf("a command without argv: %+v", c)
			}
		}
	})
}
