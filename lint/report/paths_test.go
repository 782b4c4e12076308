package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// absolutePathsResult names its files by absolute paths, as a run does for
// an absolute PATH argument or a config file found above the working
// directory (/work/repo in the tests): config is the config file's path.
func absolutePathsResult(config string) *lint.Result {
	const file = "/work/repo/deploy/serving.yaml"
	return &lint.Result{
		Rules: testRules(),
		Files: []string{file},
		Findings: []lint.Finding{
			{RuleID: "MDL205", RuleName: "memory-limit-missing", Severity: lint.Error, Message: "no memory limit",
				Location: lint.Location{File: file, Line: 24, Column: 11, Path: "spec.template.spec.containers[0].resources"}, Target: tfServing,
				Related: []lint.RelatedLocation{{Location: lint.Location{File: "/work/repo/deploy/values.yaml", Line: 3}, Message: "set here"}},
				Fix: &lint.Fix{Description: "set the memory limit", Safety: lint.FixSafe,
					Edits: []manifest.Edit{{File: file, Start: 1, End: 1, Text: "memory: 1Gi\n", Line: 25, Column: 1, EndLine: 25, EndColumn: 1}}}},
			{RuleID: "MDL001", RuleName: "suppression-reason-missing", Severity: lint.Warning, Message: "no reason",
				Location: lint.Location{File: config, Line: 4, Path: "ignore[0]"}, Target: tfServing},
		},
		Evaluations: []lint.Evaluation{{RuleID: "MDL205", Target: tfServing, File: file, Line: 3, Status: lint.StatusFail}},
		InputErrors: []lint.InputError{{File: "/work/repo/deploy/broken.yaml", Line: 2, Message: "invalid YAML"}},
	}
}

// TestReportPathsRelative: every format names the files below the
// directory modellint ran in relative to it, however they were given (an
// absolute PATH, the config file found by walking up), and SARIF says what
// that base is with originalUriBaseIds instead of writing file:/// URIs. A
// file outside it keeps its absolute path.
func TestReportPathsRelative(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test's absolute paths are Unix ones")
	}
	options := Options{ToolVersion: "1.2.0", BaseDir: "/work/repo"}
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			var out bytes.Buffer
			if err := Write(&out, format, absolutePathsResult("/work/repo/.modellint.yaml"), options); err != nil {
				t.Fatal(err)
			}
			report := strings.Replace(out.String(), `"uri": "file:///work/repo/"`, "", 1)
			if strings.Contains(report, "/work/repo") || strings.Contains(report, "file://") {
				t.Errorf("the %s report names a file by an absolute path:\n%s", format, out.String())
			}
			if !strings.Contains(report, "deploy/serving.yaml") {
				t.Errorf("the %s report does not name deploy/serving.yaml:\n%s", format, out.String())
			}
		})
	}

	var gitlab []struct {
		Location struct {
			Path string `json:"path"`
		} `json:"location"`
	}
	var out bytes.Buffer
	if err := Write(&out, "gitlab", absolutePathsResult("/work/.modellint.yaml"), options); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &gitlab); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, issue := range gitlab {
		paths = append(paths, issue.Location.Path)
	}
	slices.Sort(paths)
	if want := []string{"/work/.modellint.yaml", "deploy/broken.yaml", "deploy/serving.yaml"}; !slices.Equal(paths, want) {
		t.Errorf("GitLab paths %q, want %q", paths, want)
	}

	var sarif struct {
		Runs []struct {
			OriginalURIBaseIDs map[string]struct {
				URI string `json:"uri"`
			} `json:"originalUriBaseIds"`
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	out.Reset()
	if err := Write(&out, "sarif", absolutePathsResult("/work/.modellint.yaml"), options); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &sarif); err != nil {
		t.Fatal(err)
	}
	run := sarif.Runs[0]
	if base := run.OriginalURIBaseIDs[sarifSourceRoot].URI; base != "file:///work/repo/" {
		t.Errorf("originalUriBaseIds[%s] = %q, want file:///work/repo/", sarifSourceRoot, base)
	}
	var uris []string
	for _, result := range run.Results {
		location := result.Locations[0].PhysicalLocation.ArtifactLocation
		if location.URIBaseID != sarifSourceRoot && !strings.HasPrefix(location.URI, "file:///work/.modellint.yaml") {
			t.Errorf("%s: uriBaseId %q, want %s", location.URI, location.URIBaseID, sarifSourceRoot)
		}
		uris = append(uris, location.URI)
	}
	slices.Sort(uris)
	if want := []string{"deploy/serving.yaml", "file:///work/.modellint.yaml"}; !slices.Equal(uris, want) {
		t.Errorf("SARIF uris %q, want %q", uris, want)
	}

	// Without a base the paths are printed as the result holds them.
	if view := relativePaths(absolutePathsResult("/work/.modellint.yaml"), ""); view.Findings[0].Location.File != "/work/repo/deploy/serving.yaml" {
		t.Errorf("without a base dir: %q", view.Findings[0].Location.File)
	}
	// The result itself is not changed: --fix applies its edits after.
	result := absolutePathsResult("/work/.modellint.yaml")
	relativePaths(result, "/work/repo")
	if result.Findings[0].Fix.Edits[0].File != "/work/repo/deploy/serving.yaml" || !filepath.IsAbs(result.Files[0]) {
		t.Error("relativePaths changed the result it was given")
	}
}
