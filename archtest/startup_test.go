package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
)

// heavyAtStart are packages whose init a binary that links them pays on
// every start, whatever it is asked to do: Helm's chartutil and engine, the
// JSON Schema drafts (~10 ms), client-go's scheme of every API group
// (~3 ms), kustomize with its OpenAPI and protobuf descriptors, and
// descriptor.proto's own descriptors (descriptorpb, and protodesc, which
// imports it: ~0.6 ms; textproto builds its schemas without them). modellint
// leaves them to modellint-helm, the renderer it starts for charts and
// overlays only.
var heavyAtStart = []string{
	"helm.sh/helm/v3/",
	"github.com/santhosh-tekuri/jsonschema/",
	"k8s.io/client-go/kubernetes/scheme",
	"sigs.k8s.io/kustomize/",
	"google.golang.org/protobuf/types/descriptorpb",
}

// TestModellintLinksNoHelm: cmd/modellint, and all it imports, does not
// reach a package of heavyAtStart; cmd/modellint-helm does, or the list
// names the wrong packages.
func TestModellintLinksNoHelm(t *testing.T) {
	goTool := testenv.Tool(t, "go", "the dependencies are read with go list")
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

// TestNoRegexpCompiledAtInit: no package of the module compiles a regular
// expression when it is initialised, which every start pays for, `modellint
// version` included (the ~80 of them were half of modellint's own init):
// package-level expressions are lazyregexp.New, compiled on first use.
func TestNoRegexpCompiledAtInit(t *testing.T) {
	root := filepath.Join("..")
	fileSet := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entry.IsDir() {
			if name := entry.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fileSet, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			if general, ok := decl.(*ast.GenDecl); ok && general.Tok == token.VAR {
				for _, spec := range general.Specs {
					for _, value := range spec.(*ast.ValueSpec).Values {
						for _, call := range callsAtInit(value) {
							t.Errorf("%s: regexp.%s at package init: use lazyregexp.New", fileSet.Position(call.Pos()), call.Fun.(*ast.SelectorExpr).Sel.Name)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// callsAtInit are the regexp compilations in a package-level initialiser
// that run when it is evaluated: not those inside a function literal,
// unless the literal is called there and then.
func callsAtInit(value ast.Expr) []*ast.CallExpr {
	var found []*ast.CallExpr
	var visit func(node ast.Node) bool
	visit = func(node ast.Node) bool {
		switch node := node.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if literal, ok := node.Fun.(*ast.FuncLit); ok {
				ast.Inspect(literal.Body, visit)
			}
			if selector, ok := node.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := selector.X.(*ast.Ident); ok && pkg.Name == "regexp" && strings.Contains(selector.Sel.Name, "Compile") {
					found = append(found, node)
				}
			}
		}
		return true
	}
	ast.Inspect(value, visit)
	return found
}
