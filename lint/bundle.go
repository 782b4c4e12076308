package lint

import (
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/launch/python"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

// Bundle is what the engine knows of one container: what really runs (the
// start command from the manifest and the image config, wrapper scripts
// followed to the program they start), which server that is, and what the
// server is told. It is built once per container; rules read it.
type Bundle struct {
	// Container is nil for an image linted on its own.
	Container *manifest.Container
	// Image is the container's image; nil when it was not read.
	Image *image.Image
	// Spec is the effective start: argv, env, user and working dir as the
	// kubelet and the runtime compose them.
	Spec launch.Spec
	// Arch is the nodes' CPU architecture ("" when unknown).
	Arch string
	// Start is the start path replayed in the image; nil when its layers
	// were not read.
	Start *launch.Analysis
	// Server says which server runs, and how that was told.
	Server server.Recognition
	// Process is who the process runs as and what it starts with: user,
	// account, HOME, env (envFrom's literal values included), and where
	// the paths it writes land.
	Process launch.Process
	// Program is what the start's interpreters are told to load (a Python
	// script, module or app, node's script, java's jar) checked in the
	// image; nil when the start was not replayed.
	Program *python.Analysis
}

// Bundle returns the bundle of a container of the target, nil when the
// container is not the target's.
func (t *Target) Bundle(container *manifest.Container) *Bundle {
	for _, bundle := range t.Bundles {
		if bundle.Container == container {
			return bundle
		}
	}
	return nil
}

// ArgvFields are the manifest fields that wrote each word of an argv the
// container runs ("" for words from the image), as findings cite them.
func (b *Bundle) ArgvFields(argv []string) []string {
	if b.Container == nil {
		return make([]string, len(argv))
	}
	words := b.ArgvWords(argv)
	fields := make([]string, len(words))
	for i, word := range words {
		fields[i] = word.Field
	}
	return fields
}

// Env is the container's environment as the server sees it: the image's
// ENV, the literal values of the ConfigMaps envFrom names, then the
// manifest's literal values (the process's, once composed).
func (b *Bundle) Env() map[string]string {
	entries := b.Spec.Env
	if len(b.Process.Env) > 0 {
		entries = b.Process.Env
	}
	env := map[string]string{}
	for _, entry := range entries {
		name, value, _ := strings.Cut(entry, "=")
		env[name] = value
	}
	return env
}

// RunWords pairs each word of a program the container ends up running
// with the manifest field that wrote it, as ArgvWords does, and a word a
// wrapper script took whole from a variable ("${MODEL_ID}") with the
// manifest's env entry that gave the variable its value. A value from the
// image's ENV, from envFrom, or one the script set has no entry and keeps
// no field.
func (b *Bundle) RunWords(run launch.Run) []server.Word {
	words := b.ArgvWords(run.Argv)
	names := run.ArgvEnv()
	if b.Container == nil || names == nil {
		return words
	}
	index := b.Container.EnvIndex()
	for i, name := range names {
		at, ok := index[name]
		if name == "" || !ok || words[i].Field != "" || b.Container.Env[at].Value != words[i].Text {
			continue
		}
		words[i].Field = "env[" + strconv.Itoa(at) + "].value"
	}
	return words
}

// ArgvWords pairs each word of an argv with the manifest field that wrote it,
// so findings point at the line a user edits: the manifest's command and
// args keep their positions when they are what runs, or the tail of it
// when a wrapper passes them on ("$@"); the words of a manifest `sh -c`
// string point at that string; words from the image have no field.
func (b *Bundle) ArgvWords(argv []string) []server.Word {
	c, spec := b.Container, b.Spec
	fields := make([]string, len(spec.Argv))
	switch spec.ArgvFrom {
	case "command":
		for i := range fields {
			if i < len(c.Command) {
				fields[i] = "command[" + strconv.Itoa(i) + "]"
			} else {
				fields[i] = "args[" + strconv.Itoa(i-len(c.Command)) + "]"
			}
		}
	case "ENTRYPOINT", "args":
		for i := range c.Args {
			if at := len(fields) - len(c.Args) + i; at >= 0 {
				fields[at] = "args[" + strconv.Itoa(i) + "]"
			}
		}
	}
	words := make([]server.Word, len(argv))
	for i, word := range argv {
		words[i] = server.Word{Text: word}
	}
	if slices.Equal(argv, spec.Argv) {
		for i := range words {
			words[i].Field = fields[i]
		}
		return words
	}
	// A wrapper that passes the manifest's args on ends with them.
	for i := 1; i <= len(argv) && i <= len(spec.Argv); i++ {
		at, from := len(argv)-i, len(spec.Argv)-i
		if argv[at] != spec.Argv[from] || fields[from] == "" || !strings.HasPrefix(fields[from], "args[") {
			break
		}
		words[at].Field = fields[from]
	}
	if script, _, _, isString := launch.CommandString(c.Command); spec.ArgvFrom == "command" && isString {
		field := "command[" + strconv.Itoa(slices.Index(c.Command, script)) + "]"
		for i := range words {
			if words[i].Field == "" {
				words[i].Field = field
			}
		}
	}
	return words
}
