package engine

import (
	"math"
	"reflect"
	"testing"
	"unsafe"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// TestHeldFindingsReadBackWhole checks that a finding held compactly is
// the finding again, and which differences from its target keep it whole.
func TestHeldFindingsReadBackWhole(t *testing.T) {
	rule := &lint.Rule{ID: "MDL203", Name: "startup-probe"}
	rules := []*lint.Rule{{ID: "MDL202", Name: "liveness-probe"}, rule}
	const name, file = "Deployment/default/tf", "deploy.yaml"
	plain := lint.Finding{RuleID: rule.ID, RuleName: rule.Name, Severity: lint.Warning, Message: "no startupProbe",
		Location: lint.Location{File: file, Line: 12, Column: 9, Path: "spec.template.spec.containers[0]"},
		Target:   name, Fix: lint.FixableOnly(lint.FixSafe), NeverReady: true}
	for _, c := range []struct {
		name  string
		edit  func(*lint.Finding)
		whole bool
	}{
		{"plain", func(*lint.Finding) {}, false},
		{"another file", func(f *lint.Finding) { f.Location.File = "templates/deploy.yaml" }, true},
		{"another target", func(f *lint.Finding) { f.Target = "Service/default/tf" }, true},
		{"related lines", func(f *lint.Finding) { f.Related = []lint.RelatedLocation{} }, true},
		{"image place", func(f *lint.Finding) { f.Image = &lint.ImageLocation{Path: "/models"} }, true},
		{"suppressed", func(f *lint.Finding) { f.Suppression = &lint.Suppression{Kind: lint.SuppressedByConfig} }, true},
		{"another rule's ID", func(f *lint.Finding) { f.RuleID = "MDL204" }, true},
		{"a line past int32", func(f *lint.Finding) { f.Location.Line = math.MaxInt32 + 1 }, true},
		{"a message the run's texts do not keep", func(f *lint.Finding) { f.Message = "no startupProbe, again" }, false},
		{"no path", func(f *lint.Finding) { f.Location.Path = "" }, false},
		{"no fix", func(f *lint.Finding) { f.Fix = nil }, false},
		{"an unsafe fix not kept", func(f *lint.Finding) { f.Fix = lint.FixableOnly(lint.FixUnsafe) }, false},
		{"a fix kept", func(f *lint.Finding) { f.Fix = &lint.Fix{Description: "add one", Safety: lint.FixSafe} }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := plain
			c.edit(&f)
			run := &texts{}
			run.intern(plain.Message)
			run.intern(plain.Location.Path)
			own := &heldOwn{rules: rules, run: run}
			held := holdFinding(&f, 1, name, file, own)
			if (held.rule == wholeFinding) != c.whole {
				t.Errorf("held whole: %v, want %v", held.rule == wholeFinding, c.whole)
			}
			if got := held.finding(name, file, own); !reflect.DeepEqual(got, f) {
				t.Errorf("read back\n%+v\nwant\n%+v", got, f)
			}
		})
	}
	if size := unsafe.Sizeof(heldFinding{}); size > 24 {
		t.Errorf("a held finding takes %d bytes, more than 24", size)
	}
	own := &heldOwn{rules: rules, run: &texts{}}
	if held := holdFinding(&plain, -1, name, file, own); held.rule != wholeFinding {
		t.Error("a finding of no known rule is held compactly")
	}
	if held := holdFinding(&plain, 0, name, file, own); held.rule != wholeFinding {
		t.Error("a finding of another rule is held compactly")
	}
}

// TestLintedReleasesOnce makes a part's findings and links again and again
// without release, and once more after a release, which makes none: the
// lists they were made from are gone, and nothing may read them.
func TestLintedReleasesOnce(t *testing.T) {
	rule := &lint.Rule{ID: "MDL203", Name: "startup-probe"}
	const name, file = "Deployment/default/tf", "deploy.yaml"
	finding := lint.Finding{RuleID: rule.ID, RuleName: rule.Name, Severity: lint.Warning, Message: "no startupProbe",
		Location: lint.Location{File: file, Line: 12, Column: 9}, Target: name}
	run := &texts{}
	own := &heldOwn{rules: []*lint.Rule{rule}, run: run}
	done := &evaluated{name: name, file: file, held: []heldFinding{holdFinding(&finding, 0, name, file, own)}, own: own.lists,
		linkValues: "/models/tf"}
	noteOwn := &heldOwn{run: run, lists: done.own}
	done.links = []linkNote{{value: span{0, uint32(len(done.linkValues))}, container: noteOwn.keep("container server"),
		from: noteOwn.keep("--model_base_path"), detail: noteOwn.keep("models/tf"), how: noteOwn.keep("name match")}}
	done.own = noteOwn.lists
	empty, err := manifest.NewSet(nil)
	if err != nil {
		t.Fatal(err)
	}
	l := &linted{result: &lint.Result{}, rules: []*lint.Rule{rule}, texts: run,
		suppressor: newSuppressor(&lint.Config{}, empty, "", nil), all: []*evaluated{done}}
	l.finishChecks()
	for range 2 {
		if links := l.appendLinks(nil, false); len(links) != 1 {
			t.Fatalf("links %q, want one", links)
		}
		if findings := l.appendFindings(nil, false); len(findings) != 1 || findings[0].Message != finding.Message {
			t.Fatalf("findings %+v, want the one held", findings)
		}
	}
	if links := l.appendLinks(nil, true); len(links) != 1 {
		t.Fatalf("links %q, want one", links)
	}
	if findings := l.appendFindings(nil, true); len(findings) != 1 {
		t.Fatalf("findings %+v, want one", findings)
	}
	if links, findings := l.appendLinks(nil, true), l.appendFindings(nil, true); len(links)+len(findings) != 0 {
		t.Errorf("after a release: links %q, findings %+v", links, findings)
	}
}
