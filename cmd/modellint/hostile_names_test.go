package main

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hostileName holds what a name in an untrusted tree may carry to attack
// whoever reads the output: a colour escape, an OSC 8 hyperlink, a line
// break followed by a forged GitHub workflow command, and a right-to-left
// override.
const hostileName = "evil\x1b[31mred\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\\n::warning file=forged.yaml::forged\u202etxt ##[error]legacy"

// TestHostileNamesEscaped lints a manifest file and objects whose names
// hold hostile control sequences, a malformed file named the same, and a
// file named as a workflow command, with every format (to stdout and to
// files, at -v) and checks that no output holds a raw control character
// (but line ends), a C1 control or a bidi override, and that no line
// starts a workflow command but the annotations the github format writes.
func TestHostileNamesEscaped(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // the table's header line for a file is its path
	writeFile(t, dir, "::error file=forged.yaml::forged.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers: [{name: x, image: x}]\n")
	// In YAML's double-quoted style: \e is ESC, \\ a backslash, \n a line break.
	yamlName := strings.NewReplacer("\x1b", `\e`, "\\", `\\`, "\n", `\n`, "\u202e", `\u202E`).Replace(hostileName)
	writeFile(t, dir, hostileName+".yaml", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: "`+yamlName+`"
  annotations: {note: "`+yamlName+`"}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      containers:
        - name: "`+yamlName+`"
          image: "registry.example.com/`+yamlName+`"
          livenessProbe:
            httpGet: {path: "/`+yamlName+`", port: 8000}
`)
	writeFile(t, dir, "broken-"+hostileName+".yaml", "apiVersion: v1\nkind: [Pod\n")

	check := func(code int, outputs map[string]string) {
		t.Helper()
		if code != exitError {
			t.Errorf("exit %d, want %d for the malformed file", code, exitError)
		}
		for name, output := range outputs {
			if !strings.Contains(output, "x1b") || !strings.Contains(output, "31mred") {
				t.Errorf("%s does not name the file or object, escaped:\n%s", name, output)
			}
			checkPrintable(t, name, output, name == "github" || name == "stdout -f github")
		}
	}
	// On stdout, where the Actions runner reads workflow commands.
	for _, format := range []string{"github", "markdown"} {
		code, stdout, stderr := lintArgs(t, "", "--no-color", "-v", "-f", format, ".")
		check(code, map[string]string{"stdout -f " + format: stdout, "stderr": stderr})
	}
	check(lintEveryFormat(t, "--no-color", "-v", "."))
}

// checkPrintable fails the test for each raw control character but "\n",
// C1 control or bidi control in output, and for each line that starts a
// workflow command other than the annotations of a github report.
func checkPrintable(t *testing.T, name, output string, annotations bool) {
	t.Helper()
	for i, r := range output {
		switch {
		case r == utf8.RuneError:
			t.Errorf("%s: byte %d is not UTF-8: %q", name, i, output[max(0, i-20):min(len(output), i+20)])
		case r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			t.Errorf("%s: raw %U at byte %d: %q", name, r, i, output[max(0, i-20):min(len(output), i+20)])
		}
	}
	// The runner reads "::" after leading white space, "##[" anywhere.
	for _, line := range strings.Split(output, "\n") {
		if strings.Contains(line, "##[") {
			t.Errorf("%s: a line holds a legacy workflow command: %q", name, line)
		}
		command, ok := strings.CutPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::")
		if !ok {
			continue
		}
		kind, properties, _ := strings.Cut(command, " ")
		if !annotations || kind != "error" && kind != "warning" && kind != "notice" ||
			!strings.HasPrefix(properties, "file=") || strings.HasPrefix(properties, "file=forged.yaml") {
			t.Errorf("%s: a line starts a workflow command: %q", name, line)
		}
	}
}
