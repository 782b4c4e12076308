package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
)

// checkCodeQuality holds a report to the contract GitLab documents for a
// custom tool: a JSON array (no BOM) of issues with a description, a
// check_name, a fingerprint unique in the report, one of the five severities,
// and a relative location.path with lines.begin >= 1.
func checkCodeQuality(t *testing.T, report []byte) []map[string]any {
	t.Helper()
	if bytes.HasPrefix(report, []byte("\xef\xbb\xbf")) {
		t.Fatal("the report starts with a byte order mark, which GitLab rejects")
	}
	var issues []map[string]any
	decoder := json.NewDecoder(bytes.NewReader(report))
	decoder.UseNumber()
	if err := decoder.Decode(&issues); err != nil {
		t.Fatalf("not a JSON array of objects: %v", err)
	}
	if issues == nil {
		t.Fatal("the report is null; GitLab wants an array, even an empty one")
	}
	severities := map[string]bool{"info": true, "minor": true, "major": true, "critical": true, "blocker": true}
	seen := map[string]bool{}
	for i, issue := range issues {
		text := func(key string) string {
			value, _ := issue[key].(string)
			if strings.TrimSpace(value) == "" {
				t.Errorf("issue %d: %s is missing or empty", i, key)
			}
			return value
		}
		text("description")
		text("check_name")
		fingerprint := text("fingerprint")
		if seen[fingerprint] {
			t.Errorf("issue %d: fingerprint %s is not unique; GitLab would merge the issues", i, fingerprint)
		}
		seen[fingerprint] = true
		if severity := text("severity"); !severities[severity] {
			t.Errorf("issue %d: severity %q is not one GitLab knows", i, severity)
		}
		location, _ := issue["location"].(map[string]any)
		path, _ := location["path"].(string)
		if path == "" || strings.HasPrefix(path, "/") {
			t.Errorf("issue %d: location.path %q is not a relative path", i, path)
		}
		lines, _ := location["lines"].(map[string]any)
		begin, err := lines["begin"].(json.Number).Int64()
		if err != nil || begin < 1 {
			t.Errorf("issue %d: location.lines.begin %v is not a line number >= 1", i, lines["begin"])
		}
	}
	return issues
}

func writeCodeQuality(t *testing.T, result *lint.Result) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := Write(&out, "gitlab", result, testOptions); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestCodeQualityContract(t *testing.T) {
	samples := map[string]*lint.Result{
		"findings": testResult(), "hostile": hostileResult(), "real": realResult(t),
	}
	for name, result := range samples {
		t.Run(name, func(t *testing.T) {
			issues := checkCodeQuality(t, writeCodeQuality(t, result))
			unsuppressed := 0
			for _, finding := range result.Findings {
				if !finding.Suppressed() {
					unsuppressed++
				}
			}
			// An input error is an issue too: the report is incomplete.
			if len(issues) != unsuppressed+len(result.InputErrors) {
				t.Errorf("%d issues for %d unsuppressed findings and %d input errors", len(issues), unsuppressed, len(result.InputErrors))
			}
		})
	}
	for name, result := range map[string]*lint.Result{"clean": cleanResult(), "empty": {}} {
		t.Run(name, func(t *testing.T) {
			if got := strings.TrimSpace(string(writeCodeQuality(t, result))); got != "[]" {
				t.Errorf("report = %s, want []", got)
			}
		})
	}
}

// TestCodeQualityFingerprintsSurviveMovedLines inserts lines above every
// finding, as an edit above them would, and expects the same issues.
func TestCodeQualityFingerprintsSurviveMovedLines(t *testing.T) {
	result := realResult(t)
	before := checkCodeQuality(t, writeCodeQuality(t, result))
	for i := range result.Findings {
		if result.Findings[i].Location.Line > 0 {
			result.Findings[i].Location.Line += 3
		}
	}
	after := checkCodeQuality(t, writeCodeQuality(t, result))
	for i := range before {
		if before[i]["fingerprint"] != after[i]["fingerprint"] {
			t.Errorf("issue %d (%s): fingerprint changed when its line moved", i, before[i]["description"])
		}
	}
}

func TestCodeQualityMatchesSARIFFingerprints(t *testing.T) {
	result := testResult()
	var sarif struct {
		Runs []struct {
			Results []struct {
				PartialFingerprints map[string]string `json:"partialFingerprints"`
				Suppressions        []any             `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	var out bytes.Buffer
	if err := Write(&out, "sarif", result, testOptions); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &sarif); err != nil {
		t.Fatal(err)
	}
	var sarifFingerprints []string
	for _, r := range sarif.Runs[0].Results {
		if len(r.Suppressions) == 0 {
			sarifFingerprints = append(sarifFingerprints, r.PartialFingerprints[sarifFingerprint])
		}
	}
	issues := checkCodeQuality(t, writeCodeQuality(t, result))
	for i, issue := range issues {
		if issue["fingerprint"] != sarifFingerprints[i] {
			t.Errorf("issue %d: Code Quality fingerprint %v, SARIF %s", i, issue["fingerprint"], sarifFingerprints[i])
		}
	}
}
