package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
)

// The flow is inputs → facts → rules → findings → reports. The imports are
// held to it so that a loader cannot start judging, a rule cannot start
// printing and a report cannot start checking: each stage stays testable
// and replaceable on its own. Only non-test imports are checked, because the
// flow is about what ships; a test may compose stages (lint/report's golden
// tests render the real rule registry).

const modulePath = "github.com/modellint/modellint"

// role is a package's stage in the flow.
type role int

const (
	roleOther    role = iota // e.g. integration, which holds tests only
	roleCommand              // cmd/...: wires flags to the engine
	roleAPI                  // lint: the rule API (Rule, Pass, Target, Bundle, Finding, Fix, Result)
	roleEngine               // lint/engine: discovery, loading, links, bundles, suppression, Run
	roleLoader               // lint/<family>/...: files into facts, never judged
	roleRules                // rules: the checks
	roleFindings             // lint/report, lint/baseline: take the engine's findings
)

// findingsFamilies are the packages under lint/ that come after the rules:
// report renders a lint.Result, baseline records and suppresses its
// findings and fix applies their fixes, so they import the rule API, which
// a loader may not.
var findingsFamilies = map[string]bool{"report": true, "baseline": true, "fix": true}

// testOnly packages build fixtures for tests and must not reach the binary;
// one may build on another (rulestest builds a fixture's images with
// imagetest).
var testOnly = map[string]bool{"internal/testenv": true, "internal/unprivileged": true, "rules/rulestest": true, "lint/image/imagetest": true, "lint/model/gguf/gguftest": true, "lint/model/checkpoint/checkpointtest": true, "lint/render/helm/helmtest": true}

// familyEdge is an import from one loader family to another.
type familyEdge struct{ from, to string }

// allowedCrossFamily are the imports between loader families that the facts
// need, each with the reason. Any other import across families is an error.
var allowedCrossFamily = map[familyEdge]string{
	{"manifest", "server"}:  "a workload's containers record the serving runtime recognised from their image, command and args",
	{"manifest", "gpu"}:     "a KAITO preset's pod requests the GPUs of one node of its instance type, as KAITO's SKU table gives them",
	{"render", "manifest"}:  "rendered charts and overlays come out as manifest files with field positions, the same facts as plain YAML",
	{"compose", "manifest"}: "the pods controllers build from several objects are composed from the objects' workloads, each field placed in the object that wrote it",
	{"compose", "server"}:   "a composed container records the serving runtime recognised from the image and command it takes from its ServingRuntime",
	{"crd", "manifest"}:     "custom objects are checked against the schemas of the CRDs among the manifest objects, their problems placed at the objects' fields",
}

// familyOf is the loader family of a package under lint/: "image" for
// lint/image/launch/shell; "" for packages outside lint/.
func familyOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "lint/")
	if !ok {
		return ""
	}
	family, _, _ := strings.Cut(rest, "/")
	return family
}

func roleOf(pkg string) role {
	switch {
	case pkg == "cmd" || strings.HasPrefix(pkg, "cmd/"):
		return roleCommand
	case pkg == "lint":
		return roleAPI
	case pkg == "lint/engine":
		return roleEngine
	case pkg == "rules" || strings.HasPrefix(pkg, "rules/"):
		return roleRules
	case findingsFamilies[familyOf(pkg)]:
		return roleFindings
	case familyOf(pkg) != "":
		// A new package under lint/ is a loader until it is classified
		// otherwise here: that is what most of them are.
		return roleLoader
	}
	return roleOther
}

// violation is one import that breaks the flow.
type violation struct{ from, to, rule string }

func (v violation) String() string {
	return fmt.Sprintf("%s imports %s: %s", v.from, v.to, v.rule)
}

// checkFlow returns every import of graph that breaks the flow. graph maps
// each package to its non-test imports, both module-relative ("lint/image").
func checkFlow(graph map[string][]string) []violation {
	var broken []violation
	for _, from := range slices.Sorted(maps.Keys(graph)) {
		for _, to := range graph[from] {
			if rule := brokenRule(from, to); rule != "" {
				broken = append(broken, violation{from, to, rule})
			}
		}
	}
	return broken
}

// brokenRule names the rule that importing to from from breaks, or "".
func brokenRule(from, to string) string {
	fromRole, toRole := roleOf(from), roleOf(to)
	fromFamily, toFamily := familyOf(from), familyOf(to)
	switch {
	case toRole == roleCommand:
		return "nothing imports cmd/...: it only wires flags to the engine"
	case testOnly[to] && !testOnly[from]:
		return to + " builds test fixtures: import it only from _test.go files or another test-only package"
	case fromRole == roleLoader && (toRole == roleAPI || toRole == roleEngine || toRole == roleRules || toRole == roleFindings):
		return "loaders turn files into facts: they never import the rule API (lint), the engine, rules or reports"
	case toRole == roleEngine && fromRole != roleCommand && !testOnly[from]:
		return "only the command drives the engine: the rule API, rules and reports know lint only"
	case fromRole == roleAPI && (toRole == roleRules || toRole == roleFindings):
		return "the rule API is the bottom of the flow after the loaders: it never imports rules or reports"
	case fromRole == roleLoader && toRole == roleLoader && fromFamily != toFamily &&
		allowedCrossFamily[familyEdge{fromFamily, toFamily}] == "":
		return fmt.Sprintf("loader families stay apart: lint/%s may not import lint/%s "+
			"(if the facts need it, add the edge to allowedCrossFamily with its reason)", fromFamily, toFamily)
	case fromRole == roleRules && toRole == roleFindings:
		return "rules report through the pass: they never import reports"
	case fromRole == roleFindings && toRole == roleRules:
		return "reports render the findings they are given: they never import rules"
	}
	return ""
}

func TestImportFlow(t *testing.T) {
	graph := moduleGraph(t)
	// Guards against a vacuous pass, e.g. after the module is renamed.
	for _, pkg := range []string{"lint", "rules", "lint/report", "cmd/modellint"} {
		if _, ok := graph[pkg]; !ok {
			t.Fatalf("go list did not report %s/%s: is modulePath still right?", modulePath, pkg)
		}
	}
	for _, v := range checkFlow(graph) {
		t.Error(v)
	}
}

// moduleGraph lists the module's packages with `go list`, from the module
// root, and returns their non-test imports within the module.
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	goTool := testenv.Tool(t, "go", "the import graph is read with go list")
	gomod, err := exec.Command(goTool, "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomodPath := strings.TrimSpace(string(gomod))
	if gomodPath == "" || gomodPath == os.DevNull {
		t.Fatal("go env GOMOD names no go.mod: run the test inside the module")
	}

	// -e: a package that does not build is reported by the build, not here;
	// its imports are still listed.
	list := exec.Command(goTool, "list", "-e", "-json=ImportPath,Imports", "./...")
	list.Dir = filepath.Dir(gomodPath)
	out, err := list.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}

	graph := map[string][]string{}
	decoder := json.NewDecoder(bytes.NewReader(out))
	for {
		var pkg struct {
			ImportPath string
			Imports    []string
		}
		if err := decoder.Decode(&pkg); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("reading go list output: %v", err)
		}
		from, ok := strings.CutPrefix(pkg.ImportPath, modulePath+"/")
		if !ok {
			continue
		}
		graph[from] = []string{}
		for _, imported := range pkg.Imports {
			if to, ok := strings.CutPrefix(imported, modulePath+"/"); ok {
				graph[from] = append(graph[from], to)
			}
		}
	}
	return graph
}

// TestCheckFlowCatchesEachRule breaks each rule once in a fake graph, so
// that a checkFlow that stopped checking would fail here, not pass silently.
func TestCheckFlowCatchesEachRule(t *testing.T) {
	cases := []struct {
		name     string
		from, to string
		rule     string // a phrase of the expected rule
	}{
		{"loader imports the rule API", "lint/manifest", "lint", "loaders turn files into facts"},
		{"loader imports the engine", "lint/manifest", "lint/engine", "loaders turn files into facts"},
		{"rules import the engine", "rules", "lint/engine", "only the command drives the engine"},
		{"report imports the engine", "lint/report", "lint/engine", "only the command drives the engine"},
		{"rule API imports the engine", "lint", "lint/engine", "only the command drives the engine"},
		{"rule API imports reports", "lint", "lint/report", "never imports rules or reports"},
		{"loader imports rules", "lint/model/onnx", "rules", "loaders turn files into facts"},
		{"loader imports reports", "lint/server", "lint/report", "loaders turn files into facts"},
		{"loader imports another family", "lint/image/launch", "lint/model", "loader families stay apart"},
		{"allowed edge reversed", "lint/server", "lint/manifest", "loader families stay apart"},
		{"rules import reports", "rules", "lint/report", "rules report through the pass"},
		{"rules import the baseline", "rules", "lint/baseline", "rules report through the pass"},
		{"report imports rules", "lint/report", "rules", "never import rules"},
		{"engine imports cmd", "lint/engine", "cmd/modellint", "nothing imports cmd"},
		{"rules import cmd", "rules", "cmd/modellint", "nothing imports cmd"},
		{"non-test import of a fixture package", "lint/image/launch", "lint/image/imagetest", "only from _test.go files"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			broken := checkFlow(map[string][]string{c.from: {c.to}})
			if len(broken) != 1 || broken[0].from != c.from || broken[0].to != c.to || !strings.Contains(broken[0].rule, c.rule) {
				t.Errorf("checkFlow(%s → %s) = %v, want one violation of %q", c.from, c.to, broken, c.rule)
			}
		})
	}
}

// TestCheckFlowAllowsTheFlow: the imports the design wants pass.
func TestCheckFlowAllowsTheFlow(t *testing.T) {
	graph := map[string][]string{
		"cmd/modellint":         {"lint", "lint/engine", "lint/baseline", "lint/image", "lint/report", "rules"},
		"lint/engine":           {"lint", "lint/config", "lint/image/launch", "lint/manifest", "lint/model", "lint/render", "lint/server"},
		"lint":                  {"lint/config", "lint/image/launch", "lint/manifest", "lint/model", "lint/server"},
		"lint/image/launch":     {"lint/image", "lint/image/launch/shell", "lint/image/rootfs"},
		"lint/manifest":         {"lint/server"},
		"lint/render/kustomize": {"lint/manifest"},
		"rules":                 {"lint", "lint/image/cuda", "lint/manifest", "lint/model/pickle", "lint/server"},
		"lint/report":           {"lint"},
		"lint/baseline":         {"lint"},
		"rules/rulestest":       {"lint", "lint/engine", "lint/image/imagetest"},
	}
	if broken := checkFlow(graph); len(broken) != 0 {
		t.Errorf("checkFlow flagged the intended flow: %v", broken)
	}
}
