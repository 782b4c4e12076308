package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

type dockerInstruction struct {
	keyword, arguments string
}

// parseDockerfile splits a Dockerfile into instructions, joining continued
// lines and dropping comments, as the builder reads it.
func parseDockerfile(t *testing.T, path string) []dockerInstruction {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var instructions []dockerInstruction
	var pending string
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && pending == "") {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			pending += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		full := pending + trimmed
		pending = ""
		if full == "" {
			continue
		}
		keyword, arguments, _ := strings.Cut(full, " ")
		instructions = append(instructions, dockerInstruction{strings.ToUpper(keyword), strings.TrimSpace(arguments)})
	}
	if pending != "" {
		t.Fatalf("%s ends in a continued line", path)
	}
	return instructions
}

// TestDockerfile checks the image's Dockerfile without a Docker engine: the
// builder's Go matches go.mod, the binary is built as a release is, and
// the image is Debian slim with a shell, a non-root user and modellint as
// its entrypoint.
func TestDockerfile(t *testing.T) {
	instructions := parseDockerfile(t, filepath.Join(repoRoot, "Dockerfile"))
	goMod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(goMod)
	if goVersion == nil {
		t.Fatal("go.mod has no go line")
	}

	var stages [][]dockerInstruction
	for _, instruction := range instructions {
		switch {
		case instruction.keyword == "FROM":
			stages = append(stages, []dockerInstruction{instruction})
		case len(stages) == 0:
			if instruction.keyword != "ARG" {
				t.Errorf("%s before the first FROM", instruction.keyword)
			}
			if name, value, _ := strings.Cut(instruction.arguments, "="); name == "GO_VERSION" && value != string(goVersion[1]) {
				t.Errorf("GO_VERSION=%s, but go.mod needs go %s", value, goVersion[1])
			}
		default:
			stages[len(stages)-1] = append(stages[len(stages)-1], instruction)
		}
	}
	if len(stages) != 2 {
		t.Fatalf("%d stages, want 2 (build, image)", len(stages))
	}
	build, image := stages[0], stages[1]
	if !strings.HasPrefix(build[0].arguments, "golang:${GO_VERSION}-") || !strings.HasSuffix(build[0].arguments, " AS build") {
		t.Errorf("build stage FROM %s", build[0].arguments)
	}
	buildCommand := ""
	for _, instruction := range build {
		if instruction.keyword == "RUN" && strings.Contains(instruction.arguments, "go build") {
			buildCommand = instruction.arguments
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-X main.version=${VERSION}", "./cmd/modellint ", "./cmd/modellint-helm"} {
		if !strings.Contains(buildCommand, want) {
			t.Errorf("the go build command %q lacks %s", buildCommand, want)
		}
	}
	if !regexp.MustCompile(`^debian:[a-z]+-slim$`).MatchString(image[0].arguments) {
		t.Errorf("image FROM %s, want a Debian slim base (GitLab jobs need a shell)", image[0].arguments)
	}
	last := map[string]string{}
	copied := false
	for _, instruction := range image {
		last[instruction.keyword] = instruction.arguments
		copied = copied || (instruction.keyword == "COPY" && strings.HasPrefix(instruction.arguments, "--from=build ") &&
			strings.Contains(instruction.arguments, "/modellint ") && strings.Contains(instruction.arguments, "/modellint-helm "))
		if instruction.keyword == "RUN" && strings.Contains(instruction.arguments, "apt-get install") &&
			(!strings.Contains(instruction.arguments, "--no-install-recommends") || !strings.Contains(instruction.arguments, "rm -rf /var/lib/apt/lists")) {
			t.Errorf("apt-get install without --no-install-recommends or without removing the lists: %s", instruction.arguments)
		}
	}
	if !copied {
		t.Error("the image does not copy modellint and modellint-helm from the build stage")
	}
	if user := last["USER"]; user == "" || user == "0" || user == "root" {
		t.Errorf("USER %q: the image must not run as root", user)
	}
	if last["ENTRYPOINT"] != `["modellint"]` {
		t.Errorf("ENTRYPOINT %s, want [\"modellint\"] in exec form", last["ENTRYPOINT"])
	}
	ignore, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	if err != nil || !regexp.MustCompile(`(?m)^\.git$`).Match(ignore) {
		t.Errorf(".dockerignore must leave .git out of the build context (%v)", err)
	}
}
