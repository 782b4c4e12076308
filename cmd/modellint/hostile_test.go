package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as modellint in a subprocess, so bad
// input can be checked for exit code, time and peak memory from outside.
func TestMain(m *testing.M) {
	if os.Getenv("MODELLINT_TEST_AS_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

const (
	hostileTimeLimit   = 5 * time.Second
	hostileMemoryLimit = 256 << 20
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
			ctx, cancel := context.WithTimeout(context.Background(), 2*hostileTimeLimit)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], path)
			cmd.Env = append(os.Environ(), "MODELLINT_TEST_AS_MAIN=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			elapsed := time.Since(start)
			exitErr, ok := err.(*exec.ExitError)
			if !ok || exitErr.ExitCode() != exitError {
				t.Fatalf("want exit 2, got %v (stderr %q)", err, stderr.String())
			}
			message := strings.TrimSpace(stderr.String())
			if strings.Contains(message, "\n") || strings.Contains(message, "panic") {
				t.Errorf("want a one-line error, got %q", message)
			}
			if !strings.Contains(message, path+c.want) {
				t.Errorf("error %q does not contain %q", message, path+c.want)
			}
			if elapsed > hostileTimeLimit {
				t.Errorf("took %v, limit %v", elapsed, hostileTimeLimit)
			}
			peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
			if peak > hostileMemoryLimit {
				t.Errorf("peak RSS %d MiB, limit %d MiB", peak>>20, hostileMemoryLimit>>20)
			}
		})
	}
}
