package rules

import (
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// MDL230: a command line the kubelet cannot run as written. Kubernetes
// passes command and args to exec as they are, one element per argument,
// with no shell to split them.

var argvMalformed = &lint.Rule{
	ID: "MDL230", Name: "argv-malformed", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A container's command is a whole command line in one element, or a flag's value starts or ends with whitespace.",
		Why: "Kubernetes runs command and args without a shell: each element is one argument, exactly as written. " +
			"`command: [\"vllm serve org/model\"]` makes the runtime look for an executable file named \"vllm serve org/model\", " +
			"and the container fails at once with \"exec: \\\"vllm serve org/model\\\": executable file not found in $PATH\" " +
			"(StartError, exit 128, CrashLoopBackOff). A flag written `--model-repository= s3://bucket/models` passes the value " +
			"\" s3://bucket/models\" with its leading space: the server looks for a repository of that name and exits. " +
			"Elements that a shell reads (`sh -c`, `bash -c`) or a Python `-c` program are not checked.",
		Bad: `command: ["vllm serve meta-llama/Llama-3.1-8B-Instruct"]
args: ["--port= 8000"]`,
		Good: `command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
args: ["--port=8000"]`,
		Fix: "Write one argument per list element (or run the line through `sh -c` on purpose), and remove the whitespace around flag values.",
		References: []string{
			"https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/",
			"https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#entrypoint",
		},
	},
	Check: checkArgv,
}

// spacedValue is a flag whose value starts or ends with whitespace:
// "--model-repository= s3://…", "--port=8000 ".
var spacedValue = lazyregexp.New(`^--?[A-Za-z][\w.-]*=(\s+\S.*|.*\S\s+)$`)

func checkArgv(pass *lint.Pass) {
	for _, c := range pass.Workload().Containers {
		if c.PlatformCommand != nil {
			continue // the platform runs the command and args as shell text (KubeRay's bash -c)
		}
		if len(c.Command) > 0 && strings.ContainsAny(strings.TrimSpace(c.Command[0]), " \t\n") {
			pass.Reportf(manifest.IndexPath(c.Path+".command", 0),
				"%s: command[0] is %q, a whole command line in one element: Kubernetes runs it without a shell, so the "+
					"runtime looks for an executable file of that name and the container fails with \"executable file not found in "+
					"$PATH\"; write one argument per element: %s", c.Label(), c.Command[0], splitSuggestion(c.Command[0]))
		}
		for _, field := range []struct {
			name  string
			argv  []string
			first int // index in the whole command line
		}{{"command", c.Command, 0}, {"args", c.Args, len(c.Command)}} {
			for i, arg := range field.argv {
				// "=" and white space, which spacedValue needs, before its match.
				spaced := strings.Contains(arg, "=") && strings.ContainsAny(arg, "\t\n\f\r ") && spacedValue.MatchString(arg)
				if !spaced || readByProgram(c.Command, c.Args, field.first+i) {
					continue
				}
				flag, value, _ := strings.Cut(arg, "=")
				pass.Reportf(manifest.IndexPath(c.Path+"."+field.name, i),
					"%s: %s[%d] passes %s the value %q, whitespace included: the program gets no shell to trim it, so it "+
						"reads a path, URL or number with spaces in it; write %s=%s",
					c.Label(), field.name, i, flag, value, flag, strings.TrimSpace(value))
			}
		}
	}
}

// readByProgram reports whether the argument at index of the whole command
// line is read by a shell or interpreter rather than passed on as is: the
// operand of sh -c / bash -c / python -c, and what follows it.
func readByProgram(command, args []string, index int) bool {
	argv := append(append([]string{}, command...), args...)
	for i := 0; i < index && i < len(argv); i++ {
		if argv[i] == "-c" || strings.HasPrefix(argv[i], "-") && strings.HasSuffix(argv[i], "c") && len(argv[i]) <= 4 && !strings.HasPrefix(argv[i], "--") {
			return true
		}
	}
	return false
}

// splitSuggestion writes a command line as a YAML list of its words.
func splitSuggestion(line string) string {
	words := strings.Fields(line)
	quoted := make([]string, len(words))
	for i, word := range words {
		quoted[i] = `"` + word + `"`
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
