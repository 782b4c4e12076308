package rules_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
)

// TestScenariosWithExplicitLinks lints every whole-deployment scenario
// (e2e-*) twice: as discovered by `modellint .`, and with each model dir
// linked by --model DIR:MOUNTPATH. Both must find the same problems at the
// same places; only the words naming the link may differ.
func TestScenariosWithExplicitLinks(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(scenarioDir, "e2e-*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no e2e scenarios (%v)", err)
	}
	registry := &scenarioRegistry{parent: t}
	for _, dir := range dirs {
		dir, err := filepath.Abs(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var imageOptions engine.ImageOptions
			if images := loadScenarioImages(t, dir, registry); images != nil {
				imageOptions, _ = images.options(t, "tarball")
			}
			discovered := lintScenario(t, dir, imageOptions, nil)
			var models []lint.ModelMapping
			for _, link := range discovered.Links {
				if model, mount, ok := linkedBy(link); ok {
					models = append(models, lint.ModelMapping{Path: model, MountPath: mount})
				}
			}
			if len(models) == 0 {
				t.Fatalf("no model dir was linked by discovery: %v", discovered.Links)
			}
			t.Chdir(t.TempDir()) // lintScenario moves back into the scenario
			explicit := lintScenario(t, dir, imageOptions, func(options *engine.Options) {
				options.Models = append(options.Models, models...)
			})
			for _, link := range explicit.Links {
				if !strings.Contains(link, "--model ") {
					t.Errorf("link not made by --model: %s", link)
				}
			}
			if got, want := places(explicit), places(discovered); !reflect.DeepEqual(got, want) {
				t.Errorf("explicit links found %v, discovery found %v", got, want)
			}
			if _, err := os.Stat("expected.json"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// linkedBy reads "… PATH → model DIR (how)" from a link line; the server
// path is the mount path for the mapping.
func linkedBy(link string) (model, mount string, ok bool) {
	before, after, found := strings.Cut(link, " → model ")
	if !found {
		return "", "", false
	}
	model, _, _ = strings.Cut(after, " (")
	fields := strings.Fields(before)
	mount = fields[len(fields)-1]
	return model, mount, strings.HasPrefix(mount, "/")
}

// places lists each finding's rule and location.
func places(result *lint.Result) []string {
	var out []string
	for _, finding := range result.Findings {
		out = append(out, finding.RuleID+" "+finding.Location.String()+" "+finding.Location.Path)
	}
	return out
}
