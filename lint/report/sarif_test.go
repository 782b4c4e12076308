package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/modellint/modellint/lint"
)

// multitoolEnv names Microsoft's SARIF Multitool when it is not on PATH.
const multitoolEnv = "MODELLINT_SARIF_MULTITOOL"

// sarifSamples are the SARIF logs every validator checks.
func sarifSamples(t *testing.T) map[string][]byte {
	t.Helper()
	samples := map[string]*lint.Result{
		"findings": testResult(),
		"helper":   helperResult(),
		"clean":    cleanResult(),
		"real":     realResult(t),
		"empty":    {},
		"unlisted": unlistedRuleResult(),
	}
	logs := map[string][]byte{}
	for name, result := range samples {
		var out bytes.Buffer
		if err := Write(&out, "sarif", result, testOptions); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		logs[name] = out.Bytes()
	}
	// Absolute paths made relative to the directory the report was
	// written in, which originalUriBaseIds names.
	var based bytes.Buffer
	if err := Write(&based, "sarif", absolutePathsResult("/work/repo/.modellint.yaml"), Options{ToolVersion: "1.2.0", BaseDir: "/work/repo"}); err != nil {
		t.Fatal(err)
	}
	logs["based"] = based.Bytes()
	return logs
}

// unlistedRuleResult has findings of rules the result does not list, with
// awkward file names.
func unlistedRuleResult() *lint.Result {
	return &lint.Result{
		Files: []string{"a:b.yaml", "/abs/dir/deploy.yaml", "<stdin>"},
		Findings: []lint.Finding{
			{RuleID: "MDL001", RuleName: "suppression-reason-missing", Severity: lint.Warning, Message: "no reason",
				Location: lint.Location{File: ".modellint.yaml", Line: 4, Column: 3, Path: "ignore[0]"}},
			{RuleID: "MDL900", Severity: lint.Error, Message: "colon", Location: lint.Location{File: "a:b.yaml", Line: 1}},
			{RuleID: "MDL900", Severity: lint.Error, Message: "absolute", Location: lint.Location{File: "/abs/dir/deploy.yaml", Line: 2, Column: 1}},
			{RuleID: "MDL900", Severity: lint.Info, Message: "stdin", Location: lint.Location{File: "<stdin>"},
				Suppression: &lint.Suppression{Kind: "config"}},
		},
	}
}

func TestSARIFSchema(t *testing.T) {
	schema := compileSARIFSchema(t)
	for name, log := range sarifSamples(t) {
		t.Run(name, func(t *testing.T) {
			instance, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(instance); err != nil {
				t.Errorf("not valid SARIF 2.1.0: %v", err)
			}
		})
	}
}

// compileSARIFSchema compiles the vendored OASIS schema. Its region
// definition carries the 2.1.0 errata's "at least one of startLine,
// charOffset, byteOffset" as an anyOf inside "properties", where it is a
// schema error (a property named anyOf) instead of a constraint; the test
// moves it up to the region, where the errata means it.
func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(schemaDir, "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	document, err := jsonschema.UnmarshalJSON(file)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	region, _ := document.(map[string]any)["definitions"].(map[string]any)["region"].(map[string]any)
	if properties, ok := region["properties"].(map[string]any); ok {
		if anyOf, misplaced := properties["anyOf"].([]any); misplaced {
			delete(properties, "anyOf")
			region["anyOf"] = anyOf
		}
	}
	compiler := jsonschema.NewCompiler()
	compiler.AssertFormat()
	if err := compiler.AddResource(path, document); err != nil {
		t.Fatal(err)
	}
	schema, err := compiler.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// TestSARIFGitHubRequirements checks what GitHub code scanning needs beyond
// the schema; an upload that misses one is rejected or loses alerts.
func TestSARIFGitHubRequirements(t *testing.T) {
	for name, log := range sarifSamples(t) {
		t.Run(name, func(t *testing.T) {
			for _, problem := range githubProblems(log) {
				t.Error(problem)
			}
		})
	}
}

func githubProblems(data []byte) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string        `json:"id"`
						Name             string        `json:"name"`
						ShortDescription *sarifMessage `json:"shortDescription"`
						FullDescription  *sarifMessage `json:"fullDescription"`
						Help             *sarifMessage `json:"help"`
						Properties       struct {
							Tags []string `json:"tags"`
						} `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			AutomationDetails struct {
				ID string `json:"id"`
			} `json:"automationDetails"`
			Results *[]struct {
				RuleID    string        `json:"ruleId"`
				RuleIndex *int          `json:"ruleIndex"`
				Message   *sarifMessage `json:"message"`
				Locations []struct {
					PhysicalLocation *struct {
						ArtifactLocation *struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region *struct {
							StartLine   *int `json:"startLine"`
							StartColumn *int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		return []string{err.Error()}
	}
	if log.Version != "2.1.0" || log.Schema == "" {
		fail("version %q, $schema %q: GitHub wants 2.1.0 and a schema", log.Version, log.Schema)
	}
	if len(log.Runs) != 1 {
		fail("%d runs: one run per file keeps the upload category unique", len(log.Runs))
		return problems
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name == "" {
		fail("tool.driver.name is empty")
	}
	if run.AutomationDetails.ID == "" {
		fail("automationDetails.id is empty")
	}
	for i, rule := range run.Tool.Driver.Rules {
		for field, message := range map[string]*sarifMessage{
			"shortDescription": rule.ShortDescription, "fullDescription": rule.FullDescription, "help": rule.Help,
		} {
			switch {
			case message == nil || strings.TrimSpace(message.Text) == "":
				fail("rules[%d] (%s): %s.text is empty", i, rule.ID, field)
			case field != "help" && utf16Len(message.Text) > sarifTextLimit:
				fail("rules[%d] (%s): %s.text is longer than %d characters", i, rule.ID, field, sarifTextLimit)
			}
		}
		if rule.ID == "" || rule.Name == rule.ID || len(rule.Name) > sarifNameLimit {
			fail("rules[%d]: id %q and name %q must be set and differ", i, rule.ID, rule.Name)
		}
		if len(rule.Properties.Tags) > 20 {
			fail("rules[%d] (%s): %d tags, GitHub accepts 20", i, rule.ID, len(rule.Properties.Tags))
		}
	}
	if run.Results == nil {
		fail("results array missing: upload-sarif rejects the run")
		return problems
	}
	if len(*run.Results) > 25000 {
		fail("%d results, GitHub accepts 25000 per run", len(*run.Results))
	}
	for i, result := range *run.Results {
		rules := run.Tool.Driver.Rules
		switch {
		case result.RuleIndex == nil:
			fail("results[%d]: no ruleIndex", i)
		case *result.RuleIndex < 0 || *result.RuleIndex >= len(rules):
			fail("results[%d]: ruleIndex %d out of range", i, *result.RuleIndex)
		case rules[*result.RuleIndex].ID != result.RuleID:
			fail("results[%d]: ruleIndex %d is %s, ruleId is %s", i, *result.RuleIndex, rules[*result.RuleIndex].ID, result.RuleID)
		}
		if result.Message == nil || strings.TrimSpace(result.Message.Text) == "" {
			fail("results[%d]: message.text is empty", i)
		}
		if len(result.Locations) == 0 || len(result.Locations) > 10 {
			fail("results[%d]: %d locations, want 1 to 10", i, len(result.Locations))
			continue
		}
		physical := result.Locations[0].PhysicalLocation
		if physical == nil || physical.ArtifactLocation == nil || physical.ArtifactLocation.URI == "" {
			fail("results[%d]: no artifactLocation.uri", i)
			continue
		}
		uri := physical.ArtifactLocation.URI
		if strings.Contains(uri, "..") || strings.HasPrefix(uri, "/") {
			fail("results[%d]: uri %q is not a path below the repository", i, uri)
		}
		if region := physical.Region; region != nil {
			if region.StartLine == nil || *region.StartLine < 1 {
				fail("results[%d]: region without a startLine of at least 1", i)
			}
			if region.StartColumn != nil && *region.StartColumn < 1 {
				fail("results[%d]: startColumn %d, must be at least 1", i, *region.StartColumn)
			}
		}
		if result.PartialFingerprints[sarifFingerprint] == "" {
			fail("results[%d]: no %s fingerprint", i, sarifFingerprint)
		}
	}
	return problems
}

// TestSARIFMultitool runs Microsoft's validator with its SARIF and GitHub
// rules; any error-level result fails the test. Its exit code does not tell
// errors apart, so the test reads the log it writes.
func TestSARIFMultitool(t *testing.T) {
	tool := multitoolBinary(t, findValidator(t, multitoolEnv, "sarif-multitool",
		"npm install -g @microsoft/sarif-multitool"))
	// One run over all samples: the tool takes seconds to start.
	dir := t.TempDir()
	output := filepath.Join(dir, "validation.sarif")
	arguments := []string{"validate", "--rule-kind", "Sarif;Gh", "--output", output}
	for name, log := range sarifSamples(t) {
		input := filepath.Join(dir, name+".sarif")
		if err := os.WriteFile(input, log, 0o644); err != nil {
			t.Fatal(err)
		}
		arguments = append(arguments, input)
	}
	sort.Strings(arguments[5:])
	command := exec.Command(tool, arguments...)
	// The .NET runtime needs ICU unless told to work without it.
	command.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
	console, err := command.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, console)
	}
	errors, err := multitoolErrors(output)
	if err != nil {
		t.Fatalf("%v\n%s", err, console)
	}
	if errors > 0 {
		t.Errorf("the SARIF Multitool reports %d errors:\n%s", errors, console)
	}
	t.Logf("%s", console)

	// The tool's exit code is 0 even when it finds errors, so make sure
	// reading its log does notice them.
	broken, brokenOutput := filepath.Join(dir, "broken.sarif"), filepath.Join(dir, "broken-validation.sarif")
	if err := os.WriteFile(broken, brokenSARIF(t), 0o644); err != nil {
		t.Fatal(err)
	}
	command = exec.Command(tool, "validate", "--rule-kind", "Sarif;Gh", "--output", brokenOutput, broken)
	command.Env = append(os.Environ(), "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1")
	if console, err = command.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, console)
	}
	if errors, err := multitoolErrors(brokenOutput); err != nil || errors == 0 {
		t.Errorf("a broken log gives %d errors (%v), want some:\n%s", errors, err, console)
	}
}

// multitoolErrors counts the error-level results and notifications in the
// Multitool's own SARIF log. A result without a level takes its rule's.
func multitoolErrors(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("the SARIF Multitool wrote no log: %w", err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID                   string             `json:"id"`
						DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				ExecutionSuccessful        bool                `json:"executionSuccessful"`
				ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications"`
				ToolConfigurationNotices   []sarifNotification `json:"toolConfigurationNotifications"`
			} `json:"invocations"`
			Results []struct {
				RuleID string `json:"ruleId"`
				Level  string `json:"level"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	errors := 0
	for _, run := range log.Runs {
		defaults := map[string]string{}
		for _, rule := range run.Tool.Driver.Rules {
			defaults[rule.ID] = rule.DefaultConfiguration.Level
		}
		for _, result := range run.Results {
			level := result.Level
			if level == "" {
				level = defaults[result.RuleID]
			}
			if level == "error" {
				errors++
			}
		}
		for _, invocation := range run.Invocations {
			if !invocation.ExecutionSuccessful {
				errors++
			}
			for _, notification := range append(invocation.ToolExecutionNotifications, invocation.ToolConfigurationNotices...) {
				if notification.Level == "error" {
					errors++
				}
			}
		}
	}
	return errors, nil
}

// TestSARIFSchemaIsShared checks that the vendored schema is the one the
// project's shared folder holds, when that folder is checked out next to it.
func TestSARIFSchemaIsShared(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "schemas", "sarif-schema-2.1.0.json")
	want, err := os.ReadFile(shared)
	if os.IsNotExist(err) {
		t.Skipf("%s does not exist: no shared schema to compare with", shared)
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(schemaDir, "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("testdata/schemas/sarif-schema-2.1.0.json differs from %s: copy it again", shared)
	}
}

func TestSARIFURI(t *testing.T) {
	tests := []struct{ path, uri, base string }{
		{"deploy/serving.yaml", "deploy/serving.yaml", "%SRCROOT%"},
		{"deploy/batch job.yaml", "deploy/batch%20job.yaml", "%SRCROOT%"},
		{"a:b.yaml", "a%3Ab.yaml", "%SRCROOT%"},
		{"<stdin>", "%3Cstdin%3E", "%SRCROOT%"},
		{"dir\\win.yaml", "dir/win.yaml", "%SRCROOT%"},
		{"ünïcode/100%.yaml", "%C3%BCn%C3%AFcode/100%25.yaml", "%SRCROOT%"},
		{"/abs/dir/x y.yaml", "file:///abs/dir/x%20y.yaml", ""},
	}
	for _, test := range tests {
		uri, base := sarifURI(test.path)
		if uri != test.uri || base != test.base {
			t.Errorf("sarifURI(%q) = %q, %q; want %q, %q", test.path, uri, base, test.uri, test.base)
		}
	}
}

func TestSARIFSuppressions(t *testing.T) {
	kinds := map[string]string{"inline": "inSource", "annotation": "inSource", "config": "external", "baseline": "external"}
	for kind, want := range kinds {
		finding := lint.Finding{RuleID: "MDL205", Message: "m", Location: lint.Location{File: "a.yaml"},
			Suppression: &lint.Suppression{Kind: kind, Reason: "accepted"}}
		result := sarifResultOf(finding, 0, "")
		if len(result.Suppressions) != 1 || result.Suppressions[0].Kind != want || result.Suppressions[0].Justification != "accepted" {
			t.Errorf("suppression kind %s: got %+v, want kind %s with the reason", kind, result.Suppressions, want)
		}
	}
}

// TestSemanticVersion: driver.version is dotted numbers (SARIF2005) and
// semanticVersion is set for every build, releases and the rest.
func TestSemanticVersion(t *testing.T) {
	tests := map[string][2]string{
		"1.2.0": {"1.2.0", "1.2.0"}, "v1.2.0": {"1.2.0", "1.2.0"},
		"v0.0.0-20260101120000-abcdef123456": {"0.0.0", "0.0.0-20260101120000-abcdef123456"},
		"1.0.0-rc.1+build.5":                 {"1.0.0", "1.0.0-rc.1+build.5"},
		"dev":                                {"0.0.0", "0.0.0-dev"}, "(devel)": {"0.0.0", "0.0.0-devel"}, "1.2": {"0.0.0", "0.0.0-1-2"},
		"": {"0.0.0", "0.0.0-dev"}, "f24f3c2-dirty": {"0.0.0", "0.0.0-f24f3c2-dirty"},
	}
	for version, want := range tests {
		var out bytes.Buffer
		if err := Write(&out, "sarif", &lint.Result{}, Options{ToolVersion: version}); err != nil {
			t.Fatal(err)
		}
		var log sarifLog
		if err := json.Unmarshal(out.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		driver := log.Runs[0].Tool.Driver
		if driver.Version != want[0] || driver.SemanticVersion != want[1] || !semverPattern.MatchString(driver.SemanticVersion) {
			t.Errorf("version %q: version %q, semanticVersion %q, want %q", version, driver.Version, driver.SemanticVersion, want)
		}
	}
}

func TestTruncateText(t *testing.T) {
	long := strings.Repeat("word ", 300)
	tests := []struct {
		name, text string
		limit      int
	}{
		{"short", "fits", 10},
		{"words", long, sarifTextLimit},
		{"no spaces", strings.Repeat("x", 2000), sarifTextLimit},
		{"astral", strings.Repeat("🙂", 600), sarifTextLimit},
		{"invalid UTF-8", strings.Repeat("a\xff", 600), sarifTextLimit},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			got := truncateText(test.text, test.limit)
			if utf16Len(got) > test.limit {
				t.Errorf("%d characters, limit %d", utf16Len(got), test.limit)
			}
			if utf16Len(test.text) <= test.limit && got != test.text {
				t.Errorf("a text within the limit changed: %q", got)
			}
			if utf16Len(test.text) > test.limit && !strings.HasSuffix(got, "…") {
				t.Errorf("a shortened text does not end with an ellipsis: %q", got[len(got)-10:])
			}
		})
	}
}

// brokenSARIF is the findings log with the mistakes GitHub rejects uploads
// for, to show that the checks above notice them.
func brokenSARIF(t *testing.T) []byte {
	t.Helper()
	var log map[string]any
	if err := json.Unmarshal(sarifSamples(t)["findings"], &log); err != nil {
		t.Fatal(err)
	}
	run := log["runs"].([]any)[0].(map[string]any)
	rules := run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)
	rules[0].(map[string]any)["shortDescription"] = map[string]any{"text": ""}
	results := run["results"].([]any)
	region := results[1].(map[string]any)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["region"].(map[string]any)
	region["startColumn"] = 0
	results[2].(map[string]any)["ruleIndex"] = 3
	data, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSARIFChecksCatchMistakes(t *testing.T) {
	broken := brokenSARIF(t)
	instance, err := jsonschema.UnmarshalJSON(bytes.NewReader(broken))
	if err != nil {
		t.Fatal(err)
	}
	if err := compileSARIFSchema(t).Validate(instance); err == nil {
		t.Error("the schema accepts startColumn 0")
	}
	problems := strings.Join(githubProblems(broken), "\n")
	for _, want := range []string{"shortDescription.text is empty", "startColumn 0", "ruleIndex 3 is MDL401"} {
		if !strings.Contains(problems, want) {
			t.Errorf("the GitHub checks miss %q; they found:\n%s", want, problems)
		}
	}
	var withoutResults map[string]any
	if err := json.Unmarshal(broken, &withoutResults); err != nil {
		t.Fatal(err)
	}
	delete(withoutResults["runs"].([]any)[0].(map[string]any), "results")
	data, err := json.Marshal(withoutResults)
	if err != nil {
		t.Fatal(err)
	}
	if problems := strings.Join(githubProblems(data), "\n"); !strings.Contains(problems, "results array missing") {
		t.Errorf("the GitHub checks miss a run without results; they found:\n%s", problems)
	}
}
