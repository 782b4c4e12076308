package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReportPathsForAbsoluteInput: a PATH given as an absolute path, and
// the config file found by walking up (which config.Find returns
// absolute), are named relative to the working directory in the GitLab
// and SARIF reports; SARIF's %SRCROOT% is that directory.
func TestReportPathsForAbsoluteInput(t *testing.T) {
	source, err := os.ReadFile(examples + "/broken/tf-serving.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, ".modellint.yaml", "ignore:\n  - rule: MDL208\n") // no reason: MDL001 on the config file
	writeFile(t, dir, "deploy/serving.yaml", string(source))
	gitlab, sarif := filepath.Join(t.TempDir(), "gl.json"), filepath.Join(t.TempDir(), "report.sarif")
	t.Chdir(dir)
	code, _, stderr := lintArgs(t, "", "--offline", "-f", "gitlab="+gitlab, "-f", "sarif="+sarif, filepath.Join(dir, "deploy"))
	if code != exitFindings {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var issues []struct {
		Location struct {
			Path string `json:"path"`
		} `json:"location"`
	}
	readJSON(t, gitlab, &issues)
	var paths []string
	for _, issue := range issues {
		if !slices.Contains(paths, issue.Location.Path) {
			paths = append(paths, issue.Location.Path)
		}
	}
	slices.Sort(paths)
	if want := []string{".modellint.yaml", "deploy/serving.yaml"}; !slices.Equal(paths, want) {
		t.Errorf("GitLab paths %q, want %q", paths, want)
	}
	var log struct {
		Runs []struct {
			OriginalURIBaseIDs map[string]struct {
				URI string `json:"uri"`
			} `json:"originalUriBaseIds"`
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	readJSON(t, sarif, &log)
	run := log.Runs[0]
	if base := run.OriginalURIBaseIDs["%SRCROOT%"].URI; base != "file://"+filepath.ToSlash(dir)+"/" {
		t.Errorf("originalUriBaseIds %%SRCROOT%% = %q, want the working directory %s", base, dir)
	}
	for _, result := range run.Results {
		location := result.Locations[0].PhysicalLocation.ArtifactLocation
		if location.URIBaseID != "%SRCROOT%" || strings.Contains(location.URI, ":") || strings.HasPrefix(location.URI, "/") {
			t.Errorf("SARIF location %+v, want a relative uri with uriBaseId %%SRCROOT%%", location)
		}
	}
}

func readJSON(t *testing.T, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
