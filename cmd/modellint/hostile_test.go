package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modellint/modellint/lint/render/helm/helmtest"
)

// TestMain lets the test binary act as modellint in a subprocess, so bad
// input can be checked for exit code, time and peak memory from outside.
func TestMain(m *testing.M) {
	// The tests lint manifests that name public images; they must not ask
	// registries for them (tests that read images map them to local sources).
	os.Setenv(offlineEnv, "1")
	os.Setenv("XDG_CACHE_HOME", os.TempDir()+"/modellint-test-cache")
	helmtest.ServeOrUse()
	if os.Getenv("MODELLINT_TEST_AS_MAIN") == "1" {
		start := statusKiB("VmRSS:")
		code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		writePeakMemory(os.Getenv("MODELLINT_TEST_PEAK_FILE"), start)
		os.Exit(code)
	}
	code := m.Run()
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
	os.Exit(code)
}

// writePeakMemory records the process's own peak RSS (VmHWM) and its RSS
// when the run began, in KiB. The parent cannot use rusage for this: a
// child started with vfork counts the parent's pages until it execs.
func writePeakMemory(file string, start int64) {
	if file == "" {
		return
	}
	os.WriteFile(file, []byte(fmt.Sprintf("%d %d", start, statusKiB("VmHWM:"))), 0o644) //nolint:errcheck // the parent reports a missing file
}

// statusKiB reads a field of /proc/self/status ("VmHWM:   123456 kB"), 0
// when it is not there.
func statusKiB(field string) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if value, ok := strings.CutPrefix(line, field); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}

// The bounds a hostile input must end within. The CPU limit has room for
// the slowest legitimate cases, which inflate and hash a GiB or more: a
// model layer of 1.2 GiB of zeros (TestCompressibleModelLayer), and the
// bombs under --max-image-size 1Gi, 1.6 s and 1.4 s alone on a 2-core
// machine with igzip. A blow-up (exponential work, a hang) runs far past
// it.
const (
	hostileTimeLimit   = 10 * time.Second
	hostileMemoryLimit = 256 << 20
	// releaseStartRSS is what the release binary holds before it reads
	// anything (`modellint version` peaks at 14–18 MiB). The test binary
	// runs as modellint but starts ~45 MiB larger, its tests' code and
	// data mapped, so a run is held to the growth the release binary
	// could have within hostileMemoryLimit.
	releaseStartRSS = 24 << 20
)

func aliasBomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	previous := "a"
	for i := 0; i < 15; i++ {
		name := string(rune('b' + i))
		b.WriteString("  " + name + ": &" + name + " [" + strings.TrimSuffix(strings.Repeat("*"+previous+",", 9), ",") + "]\n")
		previous = name
	}
	return b.String()
}

func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	garbage := make([]byte, 64<<10)
	for i := range garbage {
		garbage[i] = byte(i*7919 + i/13)
	}
	cases := []struct {
		name    string
		content []byte
		want    string // in the one-line error, after the file name
	}{
		{"malformed.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: [a, b\n"), ":4: invalid YAML"},
		{"tabs.yaml", []byte("apiVersion: v1\nkind: Pod\nspec:\n\tcontainers: []\n"), ":4: invalid YAML"},
		{"huge.yaml", append([]byte("apiVersion: v1\nkind: ConfigMap\ndata: {x: \""), bytes.Repeat([]byte("a"), 100<<20)...), ": file is 100 MiB, more than the 32 MiB"},
		{"bomb.yaml", []byte(aliasBomb()), ": document 1: line"},
		{"garbage.yaml", garbage, ":1: binary data"},
		{"deep.yaml", []byte(strings.Repeat("[", 10000)), ":1: invalid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, c.content, 0o644); err != nil {
				t.Fatal(err)
			}
			stderr := runHostile(t, []string{path}, exitError)
			if !strings.Contains(stderr, path+c.want) {
				t.Errorf("error %q does not contain %q", stderr, path+c.want)
			}
		})
	}
}

// runHostile runs modellint with args in a subprocess and checks that it
// exits with want, without a panic, within the time and memory limits, and,
// on exit 2, with a one-line error. It returns stderr (stdout when the
// run is to end in findings).
//
// The time limit is on CPU time: the tests share the machine with the other
// packages' tests, which stretch wall time. A hang burns no CPU, so the
// subprocess is also killed after a generous wall time.
func runHostile(t *testing.T, args []string, want int) string {
	t.Helper()
	return runHostileWithin(t, args, want, hostileTimeLimit)
}

// runHostileWithin is runHostile with a CPU limit of its own: inputs that
// are only large, with nothing to inflate, must end within the 5 s the
// bounds promise.
func runHostileWithin(t *testing.T, args []string, want int, cpuLimit time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*hostileTimeLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	peakFile := filepath.Join(t.TempDir(), "peak")
	cmd.Env = append(os.Environ(), "MODELLINT_TEST_AS_MAIN=1", "MODELLINT_TEST_PEAK_FILE="+peakFile,
		"XDG_CACHE_HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("killed after %v of wall time", elapsed)
	}
	code := 0
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	message := strings.TrimSpace(stderr.String())
	if code != want {
		t.Fatalf("want exit %d, got %d (stderr %q, stdout %q)", want, code, message, truncate(stdout.String(), 2000))
	}
	if strings.Contains(message, "panic") || strings.Contains(stdout.String(), "panic:") {
		t.Errorf("panic: %q", message)
	}
	if want == exitError && (message == "" || strings.Contains(message, "\n")) {
		t.Errorf("want a one-line error, got %q", message)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	peak, atStart := readPeakMemory(t, peakFile)
	t.Logf("exit %d, CPU %v, wall %v, peak RSS %d MiB (%d MiB at the start)", code, cpu.Round(time.Millisecond), elapsed.Round(time.Millisecond), peak>>20, atStart>>20)
	if cpu > cpuLimit {
		t.Errorf("took %v of CPU (%v wall), limit %v", cpu, elapsed, cpuLimit)
	}
	if grown := peak - atStart; grown > hostileMemoryLimit-releaseStartRSS {
		t.Errorf("RSS grew by %d MiB, limit %d MiB (%d MiB past the release binary's start)", grown>>20,
			(hostileMemoryLimit-releaseStartRSS)>>20, hostileMemoryLimit>>20)
	}
	if want != exitError {
		return stdout.String()
	}
	return message
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// readPeakMemory reads what writePeakMemory wrote: the run's peak RSS
// and how much of it the process held when the run began, in bytes.
func readPeakMemory(t *testing.T, file string) (peak, start int64) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the subprocess did not record its peak memory: %v", err)
	}
	if _, err := fmt.Sscanf(string(data), "%d %d", &start, &peak); err != nil || peak == 0 {
		t.Fatalf("peak memory %q: %v", data, err)
	}
	return peak << 10, start << 10
}
