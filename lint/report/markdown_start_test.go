package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
	"github.com/modellint/modellint/lint"
)

// startsResult holds the start estimates of three containers: one a
// startupProbe restarts before its model has loaded (MDL402), one whose
// livenessProbe does, without a startupProbe (MDL203), and one that
// starts in time, throttled by its CPU limit, without a readinessProbe.
func startsResult() *lint.Result {
	return &lint.Result{
		Rules: testRules(),
		Files: []string{servingFile},
		Starts: []lint.StartEstimate{
			{
				Target: "Deployment/default/tf-serving", Container: "serving", Model: "models/resnet, version 1 resident",
				ModelBytes: 2 << 30, LoadSeconds: 30.48, StartupSeconds: 10, LoadMiBPerSecond: 100,
				ImageBytes: 600 << 20, PullMiBPerSecond: 100, PullSeconds: 6,
				Probes: []lint.ProbeTiming{
					{Kind: "startupProbe", PeriodSeconds: 5, FailureThreshold: 4},
					{Kind: "livenessProbe", PeriodSeconds: 10, FailureThreshold: 3},
					{Kind: "readinessProbe", InitialDelaySeconds: 5, PeriodSeconds: 10, FailureThreshold: 3},
				},
			},
			{
				Target: "Deployment/default/triton", Container: "triton", Model: "models/llm, weights",
				ModelBytes: 20 << 30, LoadSeconds: 214.8, StartupSeconds: 10, LoadMiBPerSecond: 100, MinStartupSeconds: 60,
				Probes: []lint.ProbeTiming{
					{Kind: "livenessProbe", InitialDelaySeconds: 5, PeriodSeconds: 10, FailureThreshold: 3},
					{Kind: "readinessProbe", PeriodSeconds: 10, FailureThreshold: 3},
				},
			},
			{
				Target: "Deployment/default/onnx", Container: "server", Model: "models/onnx",
				ModelBytes: 512 << 20, LoadSeconds: 30.2, StartupSeconds: 10, LoadMiBPerSecond: 100,
				ThrottledSeconds: 15.1, CPULimit: "250m",
				Probes: []lint.ProbeTiming{{Kind: "startupProbe", PeriodSeconds: 10, FailureThreshold: 30}},
			},
		},
	}
}

// neverReadyStartsResult is the start of testdata/examples/broken: a model
// that loads in 10s, a readinessProbe on a port nothing listens on (MDL204)
// and a volumeMount of no volume (MDL210), which keep the pod from ever
// becoming Ready, and a livenessProbe that allows less than
// probes.minStartupSeconds (MDL203). The claim not in the files (MDL210,
// info) does not keep it from Ready, and a suppressed finding is not drawn.
func neverReadyStartsResult() *lint.Result {
	const target = "Deployment/serving/resnet"
	at := func(line int, path string) lint.Location {
		return lint.Location{File: servingFile, Line: line, Column: 11, Path: "spec.template.spec." + path}
	}
	return &lint.Result{
		Rules: testRules(),
		Files: []string{servingFile},
		Findings: []lint.Finding{
			{RuleID: "MDL210", RuleName: "volume-mount-undefined", Severity: lint.Error, Target: target, NeverReady: true,
				Location: at(49, "containers[0].volumeMounts[0].name"),
				Message:  `container serving mounts volume "model" at /models/resnet, but the pod's volumes are "models": the API server rejects the pod, so none is created`},
			{RuleID: "MDL204", RuleName: "probe-port-unknown", Severity: lint.Error, Target: target, NeverReady: true,
				Location: at(44, "containers[0].readinessProbe.httpGet.port"),
				Message:  "container serving (TF Serving): readinessProbe probes port 8080, but the container listens on 8500 and 8501: the probe fails with connection refused, so the pod never becomes Ready"},
			{RuleID: "MDL210", RuleName: "volume-mount-undefined", Severity: lint.Info, Target: target,
				Location: at(54, "volumes[0].persistentVolumeClaim.claimName"),
				Message:  `volume "models" uses PersistentVolumeClaim "resnet-model", which is not in the linted files: the pod stays Pending until it exists`},
			{RuleID: "MDL404", RuleName: "probe-target-mismatch", Severity: lint.Error, Target: target, NeverReady: true,
				Location:    at(42, "containers[0].readinessProbe.httpGet.path"),
				Message:     "container serving (TF Serving): readinessProbe checks /v1/models/resnet50, but the server serves model \"resnet\": the probe gets 404 forever and the pod never becomes Ready",
				Suppression: &lint.Suppression{Kind: lint.SuppressedByAnnotation, Reason: "the model is renamed at start"}},
			{RuleID: "MDL204", RuleName: "probe-port-unknown", Severity: lint.Error, Target: "Deployment/serving/other", NeverReady: true,
				Location: at(90, "containers[0].readinessProbe.httpGet.port"),
				Message:  "container other: readinessProbe probes port 8080, but the container listens on 8501: the probe fails with connection refused, so the pod never becomes Ready"},
		},
		Starts: []lint.StartEstimate{{
			Target: target, Container: "serving", Model: "models/resnet",
			ModelBytes: 12 << 10, LoadSeconds: 10, StartupSeconds: 10, LoadMiBPerSecond: 100, MinStartupSeconds: 60,
			Probes: []lint.ProbeTiming{
				{Kind: "livenessProbe", PeriodSeconds: 10, FailureThreshold: 3},
				{Kind: "readinessProbe", PeriodSeconds: 10, FailureThreshold: 3},
			},
		}},
	}
}

// hostileStartsResult names its workload and container with what would
// end a gantt task's name or add a line of its own.
func hostileStartsResult() *lint.Result {
	return &lint.Result{
		Rules: testRules(),
		Starts: []lint.StartEstimate{{
			Target: "Deployment/x/a:b;c#d\nclick load href \"javascript:alert(1)\"", Container: "s`e|r<v>er%%{init}%%",
			Model: "models/[x](y)", ModelBytes: 1 << 30, LoadSeconds: 20.24, StartupSeconds: 10, LoadMiBPerSecond: 100,
		}},
	}
}

func TestMarkdownStartsGolden(t *testing.T) {
	for name, result := range map[string]*lint.Result{"starts.md": startsResult(), "starts.hostile.md": hostileStartsResult(),
		"starts.never-ready.md": neverReadyStartsResult()} {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			if err := Write(&got, "markdown", result, testOptions); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(goldenDir, name)
			if *update {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./lint/report -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("output differs from %s (run go test ./lint/report -update after checking the change):\n%s", path, got.String())
			}
		})
	}
}

// TestMarkdownStartsNeverReady: a pod that findings say never becomes
// Ready gets a red bar naming their rules instead of its estimated Ready,
// and the minimum start-up MDL203 judges its livenessProbe by is drawn.
func TestMarkdownStartsNeverReady(t *testing.T) {
	var out bytes.Buffer
	if err := Write(&out, "markdown", neverReadyStartsResult(), testOptions); err != nil {
		t.Fatal(err)
	}
	blocks := mermaidBlocks(out.String())
	if len(blocks) != 1 {
		t.Fatalf("%d charts, want 1:\n%s", len(blocks), out.String())
	}
	chart := blocks[0]
	for _, want := range []string{
		"    never Ready (MDL204 MDL210) :crit, never-ready, 10, 60\n",
		"    livenessProbe restarts the container after 30s :liveness-probe, 0, 30\n",
		"    probes.minStartupSeconds 60s to start a model server :min-startup, 0, 60\n",
	} {
		if !strings.Contains(chart, want) {
			t.Errorf("the chart lacks %q:\n%s", want, chart)
		}
	}
	if strings.Contains(chart, ":milestone, ready,") {
		t.Errorf("the chart draws the pod Ready:\n%s", chart)
	}
	if strings.Contains(chart, "MDL404") {
		t.Errorf("the chart names a suppressed finding's rule:\n%s", chart)
	}
	text := strings.Split(out.String(), "```mermaid")[0]
	for _, want := range []string{
		"The pod never becomes Ready, whatever the load takes: see MDL204 probe-port-unknown, MDL210 volume-mount-undefined.",
		"the livenessProbe allows 30s to start, less than the 60s a model server is given (probes.minStartupSeconds, MDL203)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the sentence lacks %q:\n%s", want, text)
		}
	}

	// Without the findings the same start is Ready after the load.
	result := neverReadyStartsResult()
	result.Findings = nil
	out.Reset()
	if err := Write(&out, "markdown", result, testOptions); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "    Ready (readinessProbe passes) :milestone, ready, 10, 10\n") || strings.Contains(out.String(), "never Ready") {
		t.Errorf("without findings the pod is not drawn Ready after the load:\n%s", out.String())
	}
}

// mermaidBlocks are the ```mermaid blocks of a Markdown text.
func mermaidBlocks(markdown string) []string {
	var blocks []string
	for _, part := range strings.Split(markdown, "```mermaid\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		blocks = append(blocks, block)
	}
	return blocks
}

// TestMarkdownStartsLines checks what the chart must hold whatever the
// text: one line per task, each name free of what ends it.
func TestMarkdownStartsLines(t *testing.T) {
	var out bytes.Buffer
	if err := Write(&out, "markdown", hostileStartsResult(), testOptions); err != nil {
		t.Fatal(err)
	}
	blocks := mermaidBlocks(out.String())
	if len(blocks) != 1 {
		t.Fatalf("%d charts, want 1:\n%s", len(blocks), out.String())
	}
	task := regexp.MustCompile(`^[^:;#%]+ :(crit, )?(milestone, )?[a-z-]+, \d+, \d+$`)
	for _, line := range strings.Split(strings.TrimSpace(blocks[0]), "\n")[1:] {
		line = strings.TrimSpace(line)
		keyword, rest, _ := strings.Cut(line, " ")
		switch keyword {
		case "title":
			if strings.ContainsAny(rest, ":;#%`<>\"") {
				t.Errorf("the title holds text Mermaid reads: %q", line)
			}
		case "dateFormat", "axisFormat", "section":
		default:
			if !task.MatchString(line) {
				t.Errorf("a line is not one of the chart's tasks: %q", line)
			}
		}
	}
	var clean bytes.Buffer
	if err := Write(&clean, "markdown", cleanResult(), testOptions); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(clean.String(), "mermaid") {
		t.Error("a result without start estimates drew a chart")
	}
}

// mermaidModulesEnv names a node_modules directory holding mermaid and
// jsdom; by default the one .ci/run installs into .ci/tools.
const mermaidModulesEnv = "MODELLINT_MERMAID_MODULES"

// TestMarkdownStartsMermaid parses every chart of the golden summaries
// with mermaid's own parser (mermaid.parse, under jsdom: @mermaid-js/parser
// has no gantt grammar, and mermaid without a DOM fails in DOMPurify).
func TestMarkdownStartsMermaid(t *testing.T) {
	install := "npm install --prefix .ci/tools -g mermaid@11 jsdom@26, as .ci/run does"
	modules := os.Getenv(mermaidModulesEnv)
	if modules == "" {
		modules = filepath.Join("..", "..", ".ci", "tools", "lib", "node_modules")
	}
	node, err := exec.LookPath("node")
	_, mermaidErr := os.Stat(filepath.Join(modules, "mermaid", "package.json"))
	_, jsdomErr := os.Stat(filepath.Join(modules, "jsdom", "package.json"))
	if err != nil || mermaidErr != nil || jsdomErr != nil {
		testenv.Unavailable(t, fmt.Sprintf("node with mermaid and jsdom is not installed (%s), and %s does not name a node_modules holding them", install, mermaidModulesEnv))
	}
	modules, err = filepath.Abs(modules)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files []string
	for _, golden := range []string{"starts.md", "starts.hostile.md", "starts.never-ready.md"} {
		data, err := os.ReadFile(filepath.Join(goldenDir, golden))
		if err != nil {
			t.Fatal(err)
		}
		for i, block := range mermaidBlocks(string(data)) {
			file := filepath.Join(dir, fmt.Sprintf("%s.%d.mmd", golden, i+1))
			if err := os.WriteFile(file, []byte(block), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, file)
		}
	}
	if len(files) < 5 {
		t.Fatalf("%d charts in the goldens, want 5", len(files))
	}
	// One that does not parse shows that the check can fail.
	broken := filepath.Join(dir, "broken.mmd")
	if err := os.WriteFile(broken, []byte("gantt\n    dateFormat X\n    a task without its data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	command := exec.Command(node, append([]string{filepath.Join("testdata", "mermaid-parse.mjs"), modules}, append(files, broken)...)...)
	out, err := command.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("node mermaid-parse.mjs: %v (want exit 1, for the broken chart)\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], broken+": ") {
		t.Errorf("mermaid rejected charts the summary writes:\n%s", out)
	}
}
