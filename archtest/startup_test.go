package archtest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// heavyAtStart are packages whose init a binary that links them pays on
// every start, whatever it is asked to do: Helm's chartutil and engine, the
// JSON Schema drafts (~10 ms) and client-go's scheme of every API group
// (~3 ms). modellint leaves them to modellint-helm, the renderer it starts
// for charts only.
var heavyAtStart = []string{
	"helm.sh/helm/v3/",
	"github.com/santhosh-tekuri/jsonschema/",
	"k8s.io/client-go/kubernetes/scheme",
}

// TestModellintLinksNoHelm: cmd/modellint, and all it imports, does not
// reach a package of heavyAtStart; cmd/modellint-helm does, or the list
// names the wrong packages.
func TestModellintLinksNoHelm(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH; the dependencies are read with go list")
	}
	deps := func(main string) []string {
		list := exec.Command(goTool, "list", "-deps", "./cmd/"+main)
		list.Dir = filepath.Join("..")
		out, err := list.Output()
		if err != nil {
			t.Fatalf("go list -deps ./cmd/%s: %v", main, err)
		}
		return strings.Fields(string(out))
	}
	heavy := func(deps []string) map[string]bool {
		found := map[string]bool{}
		for _, dep := range deps {
			for _, prefix := range heavyAtStart {
				if strings.HasPrefix(dep, prefix) {
					found[prefix] = true
				}
			}
		}
		return found
	}
	if found := heavy(deps("modellint")); len(found) > 0 {
		t.Errorf("cmd/modellint links %v, which every start would set up: leave them to cmd/modellint-helm", found)
	}
	if found := heavy(deps("modellint-helm")); len(found) != len(heavyAtStart) {
		t.Errorf("cmd/modellint-helm links %v of %v: is the list of heavy packages out of date?", found, heavyAtStart)
	}
}
