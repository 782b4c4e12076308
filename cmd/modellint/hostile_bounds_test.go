package main

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
)

// TestHostileBounds lints small inputs that once hung a run, blew its work
// up exponentially or read without end: each ends within the time and
// memory limits, in a one-line error naming the input or in the finding
// that is the right answer.
func TestHostileBounds(t *testing.T) {
	dir := repository(t)
	path := func(name string) string { return filepath.Join(dir, name) }
	write := func(name, content string) string {
		os.MkdirAll(filepath.Dir(path(name)), 0o755)
		if err := os.WriteFile(path(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path(name)
	}
	fifo := func(name string) string {
		os.MkdirAll(filepath.Dir(path(name)), 0o755)
		if err := syscall.Mkfifo(path(name), 0o644); err != nil {
			t.Fatal(err)
		}
		return path(name)
	}
	zero := func(name string) string {
		os.MkdirAll(filepath.Dir(path(name)), 0o755)
		if err := os.Symlink("/dev/zero", path(name)); err != nil {
			t.Fatal(err)
		}
		return path(name)
	}
	deployment := func(resources string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: q}\nspec:\n  template:\n    spec:\n      containers:\n" +
			"      - name: c\n        image: example.com/serve:1\n        env: [{name: X, value: \"1e-999999999\"}]\n" +
			"        resources:\n" + resources
	}
	// dag is an overlay of the given levels, each listing the one below
	// under 8 spellings: kustomize would build the base 8^levels times.
	dag := func(name string, levels int) string {
		write(name+"/l0/kustomization.yaml", "resources: [deploy.yaml]\n")
		write(name+"/l0/deploy.yaml", deployment("          limits: {memory: 1Gi}\n"))
		for level := 1; level <= levels; level++ {
			below := fmt.Sprintf("l%d", level-1)
			spellings := []string{"../" + below, "../" + below + "/", "./../" + below, "../" + below + "/.", "../" + below + "//",
				"./../" + below + "/", "../../" + name + "/" + below, "../" + below + "/./"}
			write(fmt.Sprintf("%s/l%d/kustomization.yaml", name, level), "resources:\n- "+strings.Join(spellings, "\n- ")+"\n")
		}
		return path(fmt.Sprintf("%s/l%d", name, levels))
	}
	plain := write("plain/deploy.yaml", deployment("          limits: {memory: 1Gi}\n"))
	chart := filepath.Join(chartsDir, "serving", "tfserving")

	cases := []struct {
		name string
		args func() []string
		exit int
		want string // in the error after the input, or in the report
		// input is what the error must name ("" for the last argument).
		input string
	}{
		{"cpu 1e-999999999", func() []string {
			return []string{"-f", "github", write("cpu.yaml", deployment("          limits: {cpu: \"1e-999999999\", memory: 1Gi}\n"))}
		}, exitFindings, "resources.limits.cpu: quantity \"1e-999999999\" has an exponent beyond", ""},
		{"memory 1E999999999", func() []string {
			return []string{"-f", "github", write("memory.yaml", deployment("          requests: {memory: \"1E999999999\"}\n"))}
		}, exitFindings, "resources.requests.memory: quantity \"1E999999999\"", ""},
		{"model.maxSize 1e-999999999", func() []string {
			return []string{"-c", write("maxsize.yaml", "model: {maxSize: \"1e-999999999\"}\n"), plain}
		}, exitError, "exponent beyond", "maxsize.yaml"},
		{"node allocatable 1e999999999", func() []string {
			return []string{"--cluster", write("nodes.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  allocatable: {cpu: \"1e999999999\"}\n"), plain}
		}, exitError, "allocatable.cpu: quantity", "nodes.yaml"},
		{"kustomize base under 8 spellings, 6 levels", func() []string { return []string{dag("dag6", 6)} },
			exitError, "builds more than 1000 kustomizations", "/dag6/l6/kustomization.yaml"},
		{"kustomize base under 8 spellings, 10 levels", func() []string { return []string{dag("dag10", 10)} },
			exitError, "builds more than 1000 kustomizations", "/dag10/l10/kustomization.yaml"},
		{"300 MiB kustomization.yaml", func() []string {
			file := write("bigk/kustomization.yaml", "resources: [")
			os.Truncate(file, 300<<20)
			return []string{path("bigk")}
		}, exitError, "300 MiB", "kustomization.yaml"},
		{"FIFO as PATH", func() []string { return []string{fifo("pipe.yaml")} }, exitError, "named pipe", ""},
		{"FIFO as a discovered .modellint.yaml", func() []string {
			fifo("found/.modellint.yaml")
			return []string{write("found/sub/deploy.yaml", deployment("          limits: {memory: 1Gi}\n"))}
		}, exitError, "named pipe", ".modellint.yaml"},
		{"FIFO as a kustomize resource", func() []string {
			write("fifores/kustomization.yaml", "resources: [pipe.yaml]\n")
			fifo("fifores/pipe.yaml")
			return []string{path("fifores")}
		}, exitError, "named pipe", "pipe.yaml"},
		{"FIFO as --helm-values", func() []string { return []string{"--helm-values", fifo("values.yaml"), chart} }, exitError, "named pipe", "values.yaml"},
		{"FIFO as --image REF=FILE", func() []string {
			return []string{"--image", "example.com/serve:1=" + fifo("image.tar"), plain}
		}, exitError, "named pipe", "image.tar"},
		{"FIFO as -c", func() []string { return []string{"-c", fifo("config.yaml"), plain} }, exitError, "named pipe", "config.yaml"},
		{"FIFO as --baseline", func() []string { return []string{"--baseline", fifo("baseline.json"), plain} }, exitError, "named pipe", "baseline.json"},
		{"PATH symlinked to /dev/zero", func() []string { return []string{zero("zero.yaml")} }, exitError, "character device", ""},
		{"-c /dev/zero", func() []string { return []string{"-c", zero("zero-config.yaml"), plain} }, exitError, "character device", "zero-config.yaml"},
		{"--baseline /dev/zero", func() []string { return []string{"--baseline", zero("zero-baseline.json"), plain} }, exitError, "character device", "zero-baseline.json"},
		{"--helm-values /dev/zero", func() []string { return []string{"--helm-values", zero("zero-values.yaml"), chart} }, exitError, "character device", "zero-values.yaml"},
		{"truncated docker-save tar as PATH", func() []string {
			return []string{write("broken.tar", strings.Repeat("x", 700))}
		}, exitError, "not a docker-save or OCI image tarball", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args()
			input := c.input
			if input == "" {
				input = args[len(args)-1]
			}
			output := runHostile(t, append([]string{"--no-color", "--no-cache"}, args...), c.exit)
			t.Log(output)
			if c.exit == exitError && !strings.Contains(output, input) {
				t.Errorf("error %q does not name %s", output, input)
			}
			if !strings.Contains(output, c.want) {
				t.Errorf("output %q does not contain %q", truncate(output, 4000), c.want)
			}
		})
	}
}

// TestHostileCharts renders charts whose templates never end or grow
// without bound: each is a one-line error naming the chart, within the
// bounds of the render's child process.
func TestHostileCharts(t *testing.T) {
	cases := []struct {
		name, template, values, want string
	}{
		{"tpl calling itself", "{{ tpl .Values.loop . }}\n", "loop: '{{ tpl .Values.loop . }}'\n", "rendering"},
		{"nested until loops", "{{ range until 1000000 }}{{ range until 1000000 }}{{ end }}{{ end }}\n", "", "did not finish within 2s"},
		{"repeat 1000000000", "data: {{ repeat 1000000000 \"x\" }}\n", "", "rendering"},
		// Helm's own guard stops the recursion in half a second of CPU; the
		// deadline is kept well above that, so a busy machine still sees it.
		{"include recursion", "{{ define \"r\" }}{{ include \"r\" . }}{{ include \"r\" . }}{{ end }}{{ include \"r\" . }}\n", "", "nested reference"},
	}
	timeout := map[string]string{"include recursion": "30s"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			chart := t.TempDir()
			os.WriteFile(filepath.Join(chart, "Chart.yaml"), []byte("apiVersion: v2\nname: hostile\nversion: 0.1.0\n"), 0o644)
			os.WriteFile(filepath.Join(chart, "values.yaml"), []byte(c.values), 0o644)
			os.MkdirAll(filepath.Join(chart, "templates"), 0o755)
			os.WriteFile(filepath.Join(chart, "templates", "cm.yaml"), []byte(c.template), 0o644)
			output := runHostile(t, []string{"--no-color", "--render-timeout", cmp.Or(timeout[c.name], "2s"), chart}, exitError)
			t.Log(truncate(output, 400))
			if !strings.Contains(output, chart) || !strings.Contains(output, c.want) {
				t.Errorf("error %q does not name %s and say %q", truncate(output, 2000), chart, c.want)
			}
			if len(output) > 1<<10 {
				t.Errorf("error of %d bytes, want at most 1 KiB", len(output))
			}
		})
	}
}

// TestHostileOverlay builds an overlay whose base holds a YAML alias bomb
// (nine levels of nine aliases: 387 million strings once expanded), which
// kustomize expands in full: in modellint's own process it took 24 GiB and
// was killed after 98 s. The build runs in the renderer, within its bounds,
// so it is a one-line error naming the overlay.
func TestHostileOverlay(t *testing.T) {
	dir := repository(t)
	bomb := []string{"apiVersion: v1", "kind: ConfigMap", "metadata: {name: lol}", "data:",
		`  a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]`}
	previous := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb = append(bomb, fmt.Sprintf("  %s: &%s [%s]", name, name, strings.TrimSuffix(strings.Repeat("*"+previous+", ", 9), ", ")))
		previous = name
	}
	os.MkdirAll(filepath.Join(dir, "base"), 0o755)
	os.MkdirAll(filepath.Join(dir, "overlay"), 0o755)
	os.WriteFile(filepath.Join(dir, "base", "cm.yaml"), []byte(strings.Join(bomb, "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "base", "kustomization.yaml"), []byte("resources: [cm.yaml]\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "overlay", "kustomization.yaml"), []byte("resources: [../base]\n"), 0o644)
	overlay := filepath.Join(dir, "overlay")
	// A deadline the expansion cannot reach first on a loaded machine, so
	// that the memory bound is what stops it.
	output := runHostile(t, []string{"--no-color", "--render-timeout", "2m", overlay}, exitError)
	want := overlay + ": rendering needed more than 512 MiB of memory"
	if !strings.Contains(output, want) {
		t.Errorf("output %q does not say %q", truncate(output, 2000), want)
	}
}

// TestHostileModelEntries lints model dirs with a FIFO or a device where a
// file belongs: a finding naming it, never a blocked open.
func TestHostileModelEntries(t *testing.T) {
	dir := t.TempDir()
	triton := filepath.Join(dir, "repository", "resnet")
	os.MkdirAll(filepath.Join(triton, "1"), 0o755)
	os.WriteFile(filepath.Join(triton, "1", "model.onnx"), []byte("onnx"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(triton, "config.pbtxt"), 0o644); err != nil {
		t.Fatal(err)
	}
	output := runHostile(t, []string{"--no-color", "-f", "github", triton}, exitFindings)
	if !strings.Contains(output, "config.pbtxt is a named pipe (FIFO), not a file") {
		t.Errorf("output %q does not report the FIFO config.pbtxt", truncate(output, 4000))
	}

	device := filepath.Join(dir, "llm")
	os.MkdirAll(device, 0o755)
	os.WriteFile(filepath.Join(device, "config.json"), []byte(`{"model_type": "llama"}`), 0o644)
	// /dev/zero's numbers (1, 5) need CAP_MKNOD; without it, a whiteout
	// (character device 0, 0), which Linux 5.8 and later let any user make.
	node := filepath.Join(device, "model.safetensors")
	if err := syscall.Mknod(node, syscall.S_IFCHR|0o644, 1<<8|5); err != nil {
		if whiteout := syscall.Mknod(node, syscall.S_IFCHR|0o644, 0); whiteout != nil {
			testenv.Unavailable(t, fmt.Sprintf("cannot make a device node here: %v; nor a whiteout (Linux before 5.8?): %v", err, whiteout))
		}
	}
	output = runHostile(t, []string{"--no-color", "-f", "github", device}, exitFindings)
	if !strings.Contains(output, "model.safetensors is a character device, not a file") {
		t.Errorf("output %q does not report the device model.safetensors", truncate(output, 4000))
	}
}

// TestHostilePickleFrame lints a model whose pickle opens a FRAME of 2^63
// bytes: the unpickler fails on it, so MDL140 says the file could not be
// scanned rather than passing it.
func TestHostilePickleFrame(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bert")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"model_type": "bert"}`), 0o644)
	frame := []byte{0x80, 0x04, 0x95, 0, 0, 0, 0, 0, 0, 0, 0x80, 'N', '.'}
	os.WriteFile(filepath.Join(dir, "pytorch_model.bin"), frame, 0o644)
	output := runHostile(t, []string{"--no-color", "-f", "github", dir}, exitClean)
	if !strings.Contains(output, "MDL140") || !strings.Contains(output, "FRAME of 9223372036854775808 bytes") {
		t.Errorf("output %q does not report the FRAME", truncate(output, 4000))
	}
}

// TestHostileMessages checks that what libraries log and what hostile
// values hold never break the one-line error rule.
func TestHostileMessages(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	os.WriteFile(config, []byte("failOn: \""+strings.Repeat("x", 10<<20)+"\"\n"), 0o644)
	output := runHostile(t, []string{"--no-color", "-c", config, dir}, exitError)
	if len(output) > 1100 || !strings.Contains(output, config) {
		t.Errorf("error of %d bytes %q, want one naming %s of at most about 1 KB", len(output), truncate(output, 200), config)
	}

	// Helm's engine logs, in the render's child process, a value it cannot
	// merge: a -v note, one line, and nothing on stderr. A link inside the
	// chart is followed without a word.
	chart := filepath.Join(dir, "chart")
	os.MkdirAll(filepath.Join(chart, "templates"), 0o755)
	os.MkdirAll(filepath.Join(chart, "shared"), 0o755)
	os.WriteFile(filepath.Join(chart, "Chart.yaml"), []byte("apiVersion: v2\nname: linked\nversion: 0.1.0\n"), 0o644)
	os.WriteFile(filepath.Join(chart, "values.yaml"), []byte("a: 1\n"), 0o644)
	os.WriteFile(filepath.Join(chart, "shared", "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: linked}\ndata: {a: b}\n"), 0o644)
	if err := os.Symlink(filepath.Join(chart, "shared", "cm.yaml"), filepath.Join(chart, "templates", "cm.yaml")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "--no-color", "-v", "--helm-set", "a.b=1", chart)
	cmd.Env = append(os.Environ(), "MODELLINT_TEST_AS_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Errorf("%v, stderr %q; want exit 0 and nothing on stderr", err, stderr.String())
	}
	for _, note := range []string{
		"  " + chart + ": warning: skipped value for linked.a: Not a table.\n",
	} {
		if !strings.Contains(stdout.String(), note) {
			t.Errorf("-v output %q does not note %q", stdout.String(), note)
		}
	}
}

// repository is a temporary directory that stands for a checkout (it holds
// .git), so an overlay in it may build on a base in a sibling directory.
func repository(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
