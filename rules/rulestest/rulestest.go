package rulestest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/engine"
)

// NodesFile, in a fixture dir, is the cluster's nodes (kubectl get nodes
// -o yaml) the rules read, as --cluster gives them.
const NodesFile = "nodes.yaml"

// today fixes the date config ignores expire against.
const today = "2026-01-15"

// Coverage is what a fixture showed of its rule.
type Coverage struct {
	// Fired: the rule reported a wanted finding.
	Fired bool
	// Passed: the rule ran on a target and found nothing there (always
	// true for the meta rules, which the engine reports without
	// evaluating targets).
	Passed bool
}

// Run lints dir (as `modellint .` in it, with its .modellint.yaml,
// --cluster nodes.yaml and the images of images.yaml when it has them)
// with only rule enabled, and checks every input reads, every finding is
// wanted where it lands, every want is met, every wanted skip happened,
// and the rule both fired and passed. The rules in also run alongside,
// their findings unchecked: a meta rule reports on what the others found
// (MDL001 on the findings a suppression without a reason silenced).
func Run(t *testing.T, rule *lint.Rule, dir string, also ...*lint.Rule) Coverage {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	wants := readWants(t, abs)
	images := BuildImages(t, filepath.Join(abs, ImagesFile))
	t.Chdir(abs)
	options := engine.Options{Paths: []string{"."}, Rules: append([]*lint.Rule{rule}, also...), Now: today, Cluster: nodes(t)}
	for _, name := range engine.ConfigFileNames {
		if _, err := os.Stat(name); err == nil {
			if options.Config, err = engine.LoadConfig(name); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if images != nil {
		options.Image.Sources = images.Write(t, images.localSource(t), t.TempDir())
	}
	result, err := engine.Run(options)
	if err != nil {
		t.Fatal(err)
	}
	for _, inputError := range result.InputErrors {
		t.Errorf("%s: the fixture does not read: %s", dir, inputError)
	}
	coverage := Coverage{Passed: rule.Check == nil}
	for _, finding := range result.Findings {
		if finding.RuleID != rule.ID && slices.ContainsFunc(also, func(other *lint.Rule) bool { return other.ID == finding.RuleID }) {
			continue
		}
		where := finding.Location.File
		if finding.Location.Line > 0 {
			where += ":" + strconv.Itoa(finding.Location.Line)
		}
		if !meet(wants.findings[where], finding.RuleID, finding.Severity.String(), finding.Message) {
			t.Errorf("%s: unexpected %s finding: %s", where, finding.RuleID, finding.Message)
			continue
		}
		coverage.Fired = coverage.Fired || finding.RuleID == rule.ID
	}
	evaluations := slices.DeleteFunc(result.Evaluations, func(evaluation lint.Evaluation) bool { return evaluation.RuleID != rule.ID })
	for _, evaluation := range evaluations {
		switch evaluation.Status {
		case lint.StatusPass:
			coverage.Passed = coverage.Passed || evaluation.Reason == ""
		case lint.StatusSkip:
			meet(wants.skipOf(evaluation), evaluation.RuleID, "", evaluation.Reason)
		}
	}
	for where, list := range wants.findings {
		for _, w := range list {
			if !w.met {
				t.Errorf("%s: no %s finding matching %q", where, w.rule, w.pattern)
			}
		}
	}
	for target, list := range wants.skips {
		for _, w := range list {
			if !w.met {
				t.Errorf("%s: %s did not skip the target with a reason matching %q; it ended:%s", w.where, w.rule, w.pattern,
					statuses(evaluations, func(evaluation lint.Evaluation) bool {
						return wants.targetKey(evaluation.File, evaluation.Line) == target
					}))
			}
		}
	}
	if !coverage.Fired {
		t.Errorf("%s: the fixture has no case where %s fires", dir, rule.ID)
	}
	if !coverage.Passed {
		t.Errorf("%s: the fixture has no target where %s runs and passes; it ended:%s", dir, rule.ID,
			statuses(evaluations, func(lint.Evaluation) bool { return true }))
	}
	return coverage
}

// statuses lists how the rule ended on the targets chosen, to show why a
// want was not met.
func statuses(evaluations []lint.Evaluation, chosen func(lint.Evaluation) bool) string {
	var out strings.Builder
	for _, evaluation := range evaluations {
		if !chosen(evaluation) {
			continue
		}
		fmt.Fprintf(&out, "\n\t%s (%s:%d): %s", evaluation.Target, evaluation.File, evaluation.Line, evaluation.Status)
		if evaluation.Reason != "" {
			out.WriteString(": " + evaluation.Reason)
		}
	}
	if out.Len() == 0 {
		return " (no target)"
	}
	return out.String()
}

// nodes reads the NodesFile of the current dir, a fixture dir; nil when
// there is none.
func nodes(t testing.TB) *cluster.Facts {
	t.Helper()
	if _, err := os.Stat(NodesFile); err != nil {
		return nil
	}
	facts, err := cluster.Read(NodesFile)
	if err != nil {
		t.Fatal(err)
	}
	return facts
}
