package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"

	"github.com/modellint/modellint/internal/peakrss"
)

// Scale: 10,000 workloads across 1,000 files, the shared corpus, and
// start-up. The process benchmarks run modellint, built as users get it,
// in a subprocess and report its peak RSS (peak-MiB) beside the wall
// time; the in-process ones are what -cpuprofile sees.

const (
	scaleFiles            = 1000
	scaleWorkloadsPerFile = 10
)

// writeScaleManifests generates the manifests: per file, ten model-server
// Deployments and the ConfigMap, Secret, Service and PVC they refer to,
// with a mix of mistakes so the rules have findings to report.
func writeScaleManifests(tb testing.TB, files int) string {
	tb.Helper()
	dir := tb.TempDir()
	for file := 0; file < files; file++ {
		var b strings.Builder
		namespace := fmt.Sprintf("team-%03d", file%50)
		fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings-%d, namespace: %s}\ndata: {log-level: \"1\"}\n", file, namespace)
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Secret\nmetadata: {name: token-%d, namespace: %s}\nstringData: {token: x}\n", file, namespace)
		for w := 0; w < scaleWorkloadsPerFile; w++ {
			name := fmt.Sprintf("model-%d-%d", file, w)
			limits := "{memory: 16Gi, nvidia.com/gpu: 1}"
			if w%3 == 0 {
				limits = "{nvidia.com/gpu: 1}" // MDL205
			}
			fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[2]s
  labels: {app: %[1]s}
spec:
  replicas: %[3]d
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.%[4]d
          args: [--model, /models/%[1]s, --port, "8000", --served-model-name, %[1]s]
          env:
            - name: LOG_LEVEL
              valueFrom: {configMapKeyRef: {name: settings-%[5]d, key: log-level}}
            - name: HF_TOKEN
              valueFrom: {secretKeyRef: {name: token-%[6]d, key: token}}
          ports: [{containerPort: 8000, name: http}]
          readinessProbe:
            httpGet: {path: /health, port: http}
          livenessProbe:
            httpGet: {path: /health, port: %[7]d}
            periodSeconds: 10
          resources:
            requests: {cpu: "4", memory: 8Gi, nvidia.com/gpu: 1}
            limits: %[8]s
          volumeMounts: [{name: models, mountPath: /models}]
      volumes:
        - name: models
          persistentVolumeClaim: {claimName: models-%[5]d}
---
apiVersion: v1
kind: Service
metadata: {name: %[1]s, namespace: %[2]s}
spec:
  selector: {app: %[1]s}
  ports: [{port: 80, targetPort: http}]
`, name, namespace, 1+w%3, w, file, file+w%2, 8000+w%2, limits)
		}
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: models-%d, namespace: %s}\nspec: {accessModes: [ReadOnlyMany], resources: {requests: {storage: 100Gi}}}\n", file, namespace)
		path := filepath.Join(dir, fmt.Sprintf("team-%03d", file%50), fmt.Sprintf("models-%04d.yaml", file))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// builtBinary is modellint built as `make build` and the release build it
// (static, stripped, with modellint-helm beside it): start-up and the
// binary's own pages are what users run, which this test binary (cgo,
// Helm linked for the tests, the testing package) is not.
var builtBinary struct {
	once sync.Once
	dir  string
	err  error
}

func modellintBinary(b *testing.B) string {
	b.Helper()
	if err := peakrss.Works(); err != nil {
		b.Skip(err)
	}
	builtBinary.once.Do(func() {
		if builtBinary.dir, builtBinary.err = os.MkdirTemp("", "modellint-bench-"); builtBinary.err != nil {
			return
		}
		build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", builtBinary.dir+string(filepath.Separator), ".", "../modellint-helm", "../../internal/yamlfloor")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			builtBinary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if builtBinary.err != nil {
		b.Fatal(builtBinary.err)
	}
	return filepath.Join(builtBinary.dir, "modellint")
}

// runProcess runs the built modellint in a subprocess and returns its peak
// RSS in bytes; it fails unless the exit code is one of want.
func runProcess(b *testing.B, stdin string, args []string, want ...int) int64 {
	b.Helper()
	_, peak := measuredRun(b, modellintBinary(b), stdin, args, want...)
	return peak
}

// runUntimed runs the built modellint alone, without GNU time, and returns
// its CPU time (user and system, with the children it waited for): GNU
// time's own process costs ~1 ms, most of a start-up's CPU time.
func runUntimed(b *testing.B, args []string, want ...int) time.Duration {
	b.Helper()
	cmd := exec.Command(modellintBinary(b), args...)
	runChecked(b, cmd, "", args, want)
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// runChecked runs cmd with the file stdin (when not empty) as its standard
// input; it fails unless the exit code is one of want.
func runChecked(b *testing.B, cmd *exec.Cmd, stdin string, args []string, want []int) {
	b.Helper()
	if stdin != "" {
		input, err := os.Open(stdin)
		if err != nil {
			b.Fatal(err)
		}
		defer input.Close()
		cmd.Stdin = input
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	err := cmd.Run()
	code := 0
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	} else if err != nil {
		b.Fatal(err)
	}
	if !slices.Contains(want, code) {
		b.Fatalf("modellint %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
}

// benchmarkProcess reports the subprocess's peak RSS (peak-MiB) and its
// CPU time per run (cpu-s, user and system, with the render children it
// waited for).
func benchmarkProcess(b *testing.B, args []string, want ...int) {
	benchmarkProcessInput(b, "", args, want...)
}

// benchmarkProcessInput is benchmarkProcess with the file stdin (when not
// empty) as the subprocess's standard input.
func benchmarkProcessInput(b *testing.B, stdin string, args []string, want ...int) {
	benchmarkRuns(b, 1, stdin, args, want...)
}

// benchmarkRuns runs the subprocess runs times per iteration and reports
// its peak RSS and CPU time per run. A run too short to time alone (runs >
// 1) runs without GNU time, which would add its own CPU to each, and once
// more under it for the peak; it also reports its wall time per run (run-s),
// where ns/op is of all.
func benchmarkRuns(b *testing.B, runs int, stdin string, args []string, want ...int) {
	modellintBinary(b) // built, and GNU time found, before the clock starts
	if runs > 1 {
		peak := runProcess(b, stdin, args, want...)
		var cpu time.Duration
		start := time.Now()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for range runs {
				cpu += runUntimed(b, args, want...)
			}
		}
		b.StopTimer()
		per := float64(b.N * runs)
		b.ReportMetric(time.Since(start).Seconds()/per, "run-s")
		b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
		b.ReportMetric(cpu.Seconds()/per, "cpu-s")
		return
	}
	var peak int64
	before := childrenCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		peak = max(peak, runProcess(b, stdin, args, want...))
	}
	b.StopTimer()
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	b.ReportMetric((childrenCPU()-before).Seconds()/float64(b.N), "cpu-s")
}

// childrenCPU is the CPU time of the subprocesses waited for so far.
func childrenCPU() time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &usage); err != nil {
		return 0
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// scaleArgs lints the directory with every report format written.
func scaleArgs(dir, out string) []string {
	return []string{"--offline", "--no-color", "-f", "json=" + filepath.Join(out, "report.json"),
		"-f", "sarif=" + filepath.Join(out, "report.sarif"), "-f", "junit=" + filepath.Join(out, "report.xml"), "-f", "table", dir}
}

// BenchmarkManifests10k lints 10,000 Deployments in 1,000 files, the
// table report on standard output, as `modellint DIR` does.
func BenchmarkManifests10k(b *testing.B) {
	benchmarkManifestsAgainstFloor(b, scaleFiles)
}

// BenchmarkManifests100k is the same at ten times the size (196 MB of
// YAML), past the size from which the workloads' files sleep deeply.
func BenchmarkManifests100k(b *testing.B) {
	benchmarkManifestsAgainstFloor(b, 10*scaleFiles)
}

// benchmarkManifestsAgainstFloor lints the manifests of files files and
// measures cat and internal/yamlfloor on them. modellint and yamlfloor run
// in turn, floorPairs times each per iteration, and the times are the
// medians of each: the machine's speed moves by a third within minutes,
// and one run of each put the ratio anywhere within ±10% of its median.
// The peaks are the largest.
func benchmarkManifestsAgainstFloor(b *testing.B, files int) {
	dir := writeScaleManifests(b, files)
	floor := catFloor(b, dir)
	args := []string{"--offline", "--no-color", dir}
	yamlfloor := filepath.Join(filepath.Dir(modellintBinary(b)), "yamlfloor")
	var wall, cpu, parseCPU []time.Duration
	var peak, parsePeak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for range floorPairs {
			start := time.Now()
			runCPU, runPeak := measuredRun(b, modellintBinary(b), "", args, exitFindings)
			wall = append(wall, time.Since(start))
			floorCPU, floorPeak := measuredRun(b, yamlfloor, "", []string{dir}, 0)
			cpu, parseCPU = append(cpu, runCPU), append(parseCPU, floorCPU)
			peak, parsePeak = max(peak, runPeak), max(parsePeak, floorPeak)
		}
	}
	b.StopTimer()
	b.ReportMetric(median(wall).Seconds(), "run-s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	b.ReportMetric(median(cpu).Seconds(), "cpu-s")
	b.ReportMetric(floor.Seconds(), "cat-floor-s")
	b.ReportMetric(median(parseCPU).Seconds(), "parse-floor-cpu-s")
	b.ReportMetric(float64(parsePeak)/(1<<20), "parse-floor-MiB")
}

// floorPairs is how many times the manifests rows run modellint and
// yamlfloor each, in turn.
const floorPairs = 3

// measuredRun runs a built program under GNU time, with the file stdin (when
// not empty) as its standard input, and returns its CPU time (user and
// system, with the children it waited for) and peak RSS; it fails unless
// the exit code is one of want.
func measuredRun(b *testing.B, program, stdin string, args []string, want ...int) (time.Duration, int64) {
	b.Helper()
	peakFile := filepath.Join(b.TempDir(), "peak")
	cmd := peakrss.Command(peakFile, program, args...)
	runChecked(b, cmd, stdin, args, want)
	peak, err := peakrss.Read(peakFile)
	if err != nil {
		b.Fatal(err)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), peak
}

// median is the middle of durations (the upper one of an even count).
func median(durations []time.Duration) time.Duration {
	sorted := slices.Clone(durations)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

// BenchmarkManifests10kAllReports is the same run writing every report
// format a CI job keeps: JSON, SARIF, JUnit and the table.
func BenchmarkManifests10kAllReports(b *testing.B) {
	dir := writeScaleManifests(b, scaleFiles)
	floor := catFloor(b, dir)
	benchmarkProcess(b, scaleArgs(dir, b.TempDir()), exitFindings)
	b.ReportMetric(floor.Seconds(), "cat-floor-s")
}

// catFloor is what reading the same YAML costs: cat of every file.
func catFloor(b *testing.B, dir string) time.Duration {
	b.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no YAML under %s", dir)
	}
	start := time.Now()
	cmd := exec.Command("cat", files...)
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// writeObjectStream writes objects Kubernetes objects as one YAML stream,
// as `helm template | modellint -` pipes them: per four objects a
// model-server Deployment and the Service, ConfigMap and Secret beside
// it, in flow style so a 100,000-object stream fits the 32 MiB bound.
func writeObjectStream(tb testing.TB, objects int) string {
	tb.Helper()
	var b strings.Builder
	for i := 0; i < objects/4; i++ {
		namespace := fmt.Sprintf("team-%03d", i%50)
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: model-%[1]d, namespace: %[2]s}
spec:
  selector: {matchLabels: {app: model-%[1]d}}
  template:
    metadata: {labels: {app: model-%[1]d}}
    spec:
      containers:
        - {name: server, image: "vllm/vllm-openai:v0.6.%[3]d", args: [--model, /models/m, --port, "8000"], resources: {limits: {memory: 16Gi, nvidia.com/gpu: 1}}, envFrom: [{configMapRef: {name: settings-%[1]d}}]}
---
{apiVersion: v1, kind: Service, metadata: {name: model-%[1]d, namespace: %[2]s}, spec: {selector: {app: model-%[1]d}, ports: [{port: 80}]}}
---
{apiVersion: v1, kind: ConfigMap, metadata: {name: settings-%[1]d, namespace: %[2]s}, data: {LOG_LEVEL: "1"}}
---
{apiVersion: v1, kind: Secret, metadata: {name: token-%[1]d, namespace: %[2]s}, stringData: {token: x}}
`, i, namespace, i%10)
	}
	return writeBenchFile(tb, "stream.yaml", b.String())
}

func writeBenchFile(tb testing.TB, name, content string) string {
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkStream100k lints a stream of 100,000 objects on standard input.
func BenchmarkStream100k(b *testing.B) {
	benchmarkProcessInput(b, writeObjectStream(b, 100_000), []string{"--offline", "--no-color", "-"}, exitClean, exitFindings)
}

// BenchmarkConfigMapLargest lints one ConfigMap of 120,000 keys, nearly
// as many values as a document may hold (manifest.MaxDocumentValues).
func BenchmarkConfigMapLargest(b *testing.B) {
	benchmarkProcess(b, []string{"--offline", "--no-color", writeBenchFile(b, "settings.yaml", hugeConfigMap(120_000, false))}, exitClean, exitFindings)
}

// BenchmarkConfigMapMillionKeys lints one ConfigMap of 10⁶ keys: an error
// naming the bound it passes, before it is parsed.
func BenchmarkConfigMapMillionKeys(b *testing.B) {
	benchmarkProcess(b, []string{"--offline", "--no-color", writeBenchFile(b, "settings.yaml", hugeConfigMap(1_000_000, false))}, exitError)
}

// BenchmarkCluster2000 lints 2,000 Deployments, each selecting a node
// pool of its own, against --cluster nodes of 2,000 GKE nodes (32 MB).
func BenchmarkCluster2000(b *testing.B) {
	dir := b.TempDir()
	nodes, pods := writeIn(dir, "nodes.yaml", clusterOfNodes(2000)), writeIn(dir, "deploy.yaml", podsSelecting(2000, 0))
	benchmarkProcess(b, []string{"--offline", "--no-color", "--cluster", nodes, pods}, exitFindings)
}

// BenchmarkManifests10kInProcess is the same run without the process:
// go test -bench Manifests10kInProcess -cpuprofile cpu.out ./cmd/modellint.
func BenchmarkManifests10kInProcess(b *testing.B) {
	args := scaleArgs(writeScaleManifests(b, scaleFiles), b.TempDir())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var stderr strings.Builder
		if code := run(args, nil, io.Discard, &stderr); code != exitFindings {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}

// BenchmarkOverlays20 lints 20 Kustomize overlays (ten copies of the
// serving tree, each a base, a component and two overlays), which one
// renderer process builds one after another.
func BenchmarkOverlays20(b *testing.B) {
	dir := b.TempDir()
	for i := range 10 {
		if err := os.CopyFS(filepath.Join(dir, fmt.Sprintf("app%d", i)), os.DirFS("../../testdata/kustomize/serving")); err != nil {
			b.Fatal(err)
		}
	}
	benchmarkProcess(b, []string{"--offline", "--no-color", dir}, exitFindings)
}

// BenchmarkCorpusProcess lints the shared real corpus in a subprocess.
func BenchmarkCorpusProcess(b *testing.B) {
	if _, err := os.Stat(corpusDir); err != nil {
		b.Skipf("corpus %s not present (%v)", corpusDir, err)
	}
	benchmarkProcess(b, []string{"--offline", "--no-color", corpusDir}, exitClean, exitFindings)
}

// startupRuns is how many times the start-up benchmarks run modellint per
// iteration: one run is a few ms, less than the CPU clock's resolution on
// some kernels, and make bench runs each benchmark once.
const startupRuns = 20

// BenchmarkVersion is start-up: `modellint version`, per run.
func BenchmarkVersion(b *testing.B) {
	benchmarkRuns(b, startupRuns, "", []string{"version"}, exitClean)
}

// BenchmarkModelOnly is start-up plus a small model dir, no manifests:
// what a model-only run pays for the packages it links but does not use.
func BenchmarkModelOnly(b *testing.B) {
	benchmarkRuns(b, startupRuns, "", []string{"--offline", "--no-color", "../../testdata/models/saved_model_half_plus_two_cpu"}, exitClean)
}

// TestScaleManifests keeps the generated manifests honest on a slice of
// them: they lint without errors, every workload is a target, and the
// generated references resolve where they are meant to.
func TestScaleManifests(t *testing.T) {
	const files = 20
	dir := writeScaleManifests(t, files)
	result, err := engine.Run(engine.Options{Paths: []string{dir}, Rules: rules.All(), Config: &lint.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, evaluation := range result.Evaluations {
		targets[evaluation.Target] = true
	}
	if len(result.Files) != files || len(targets) != files*scaleWorkloadsPerFile {
		t.Errorf("%d files, %d targets; want %d and %d", len(result.Files), len(targets), files, files*scaleWorkloadsPerFile)
	}
	counts := map[string]int{}
	for _, finding := range result.Findings {
		counts[finding.RuleID]++
	}
	// Every third workload has no memory limit; every second names a
	// Secret of another namespace.
	want := map[string]int{"MDL205": files * 4, "MDL209": files * scaleWorkloadsPerFile / 2}
	for rule, n := range want {
		if counts[rule] != n {
			t.Errorf("%s: %d findings, want %d (%v)", rule, counts[rule], n, counts)
		}
	}
	if counts["MDL002"] != 0 {
		t.Errorf("the generated manifests are invalid: %v", counts)
	}
}

// TestParallelRunIsDeterministic: parsing, decoding, the rules and the
// table report run on every CPU, and the reports are byte-identical to a
// run on one.
func TestParallelRunIsDeterministic(t *testing.T) {
	// More files than the table report lays out in one batch.
	dir := writeScaleManifests(t, 70)
	reports := map[int]map[string][]byte{}
	for _, procs := range []int{1, 8} {
		out := t.TempDir()
		var table bytes.Buffer
		previous := runtime.GOMAXPROCS(procs)
		code := run(scaleArgs(dir, out), nil, &table, io.Discard)
		runtime.GOMAXPROCS(previous)
		if code != exitFindings {
			t.Fatalf("GOMAXPROCS=%d: exit %d", procs, code)
		}
		reports[procs] = map[string][]byte{"table": table.Bytes()}
		for _, name := range []string{"report.json", "report.sarif", "report.xml"} {
			data, err := os.ReadFile(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			reports[procs][name] = data
		}
	}
	for name, data := range reports[1] {
		if !bytes.Equal(data, reports[8][name]) {
			t.Errorf("%s differs between GOMAXPROCS=1 and GOMAXPROCS=8", name)
		}
	}
}
