package server

import (
	"maps"
	"path"
	"slices"
	"strings"
)

// Word is one word of a command line, with the manifest field that wrote it
// ("args[2]"); words from the image (its ENTRYPOINT, CMD or a wrapper
// script) have none.
type Word struct {
	Text  string
	Field string
}

// Process is what is known of what a container runs.
type Process struct {
	// Image is the image reference, the last hint.
	Image string
	// Runs are the command lines of the programs that finally run, after
	// wrapper scripts were followed in the image: one per candidate.
	Runs [][]Word
	// Command is the start command as the manifest or image config gives
	// it, when it could not be followed (it may be a wrapper).
	Command []Word
	// Args are words given to an entrypoint that is not known (args only,
	// and the image not read).
	Args []Word
	// Declared is the runtime the serving platform names for the
	// container (KServe's modelFormat), nil when none.
	Declared *Runtime
	// Batch says the container runs to completion (a Job's, a RayJob's
	// cluster): only a server program or its flags make it a server, not
	// its image, whose other tools (downloads, conversions) such jobs run.
	Batch bool
}

// Recognition says which server a container runs and how that was told.
type Recognition struct {
	Runtime *Runtime
	// By says how: "program tensorflow_model_server", "flag
	// --model_base_path", "the image name".
	By string
	// NotServer says why the container is no model server whatever its
	// image ("sleep", "a benchmark (vllm bench serve)").
	NotServer string
	// Argv is the server's command line: the program that runs, or the
	// words given to an entrypoint that is not known.
	Argv []Word
	// FromImage says the server is started by the image's own entrypoint,
	// which is not known: the runtime's image defaults apply.
	FromImage bool
}

// Recognise decides which server a container runs: first from the program
// that finally runs, then from flags only one runtime has, then from what
// the serving platform declares, and from the image name only when what
// runs is not known. A client, a benchmark, a download or a keep-alive
// loop is no model server, whatever its image.
func Recognise(p Process) Recognition {
	for _, run := range p.Runs {
		if runtime := ByProgram(texts(run)); runtime != nil {
			return Recognition{Runtime: runtime, By: "program " + programName(texts(run)), Argv: run}
		}
	}
	// A keep-alive a wrapper ends on after starting something else (an app
	// started with &, then tail -f /dev/null) does not make the container
	// no server: what it started may be one.
	startsOther := slices.ContainsFunc(p.Runs, func(run []Word) bool { return KeepAlive(texts(run)) == "" })
	for _, run := range p.Runs {
		if reason := NotServer(texts(run)); reason != "" && !(startsOther && KeepAlive(texts(run)) != "") {
			return Recognition{NotServer: reason}
		}
	}
	if p.Command != nil {
		if runtime := ByProgram(texts(p.Command)); runtime != nil {
			return Recognition{Runtime: runtime, By: "program " + programName(texts(p.Command)), Argv: p.Command}
		}
		if reason := NotServer(texts(p.Command)); reason != "" {
			return Recognition{NotServer: reason}
		}
	}
	if reason := notServerImage(p.Image); reason != "" {
		return Recognition{NotServer: reason}
	}
	words, fromImage := p.Args, true
	switch {
	case len(p.Runs) > 0:
		words, fromImage = p.Runs[0], false
	case p.Command != nil:
		words, fromImage = p.Command, false
	}
	if runtime := DetectByFlags(texts(words)); runtime != nil {
		// A server that wraps an engine passes the engine's flags on: vLLM's
		// flags given to KServe's Hugging Face server make it no vLLM.
		if wrapper, by := p.wrapperOf(runtime); wrapper != nil {
			return Recognition{Runtime: wrapper, By: by, Argv: words, FromImage: fromImage}
		}
		return Recognition{Runtime: runtime, By: "flags only " + runtime.Title + " has", Argv: words, FromImage: fromImage}
	}
	if p.Batch {
		return Recognition{}
	}
	if p.Declared != nil {
		return Recognition{Runtime: p.Declared, By: "the serving platform", Argv: words, FromImage: fromImage}
	}
	if len(p.Runs) == 0 && (p.Command == nil || mayWrap(texts(p.Command))) {
		if runtime := ByImage(p.Image); runtime != nil {
			return Recognition{Runtime: runtime, By: "the image name", Argv: words, FromImage: fromImage}
		}
	}
	return Recognition{}
}

// wrapperOf is the server the platform declares, or else the image names,
// when it starts engine's engine (a Backend choice), and how it was told.
func (p Process) wrapperOf(engine *Runtime) (*Runtime, string) {
	starts := func(r *Runtime) bool {
		return r != nil && r.Backend != nil && slices.Contains(slices.Collect(maps.Values(r.Backend.Engines)), engine.Name)
	}
	if starts(p.Declared) {
		return p.Declared, "the serving platform"
	}
	if len(p.Runs) == 0 && (p.Command == nil || mayWrap(texts(p.Command))) {
		if r := ByImage(p.Image); starts(r) {
			return r, "the image name"
		}
	}
	return nil, ""
}

// mayWrap reports whether a command that was not followed may be a wrapper
// that starts the image's server: a script, or a shell running one.
func mayWrap(argv []string) bool {
	if len(argv) == 0 {
		return true
	}
	base := path.Base(argv[0])
	switch base {
	case "sh", "bash", "dash", "ash", "tini", "dumb-init", "entrypoint", "docker-entrypoint":
		return true
	}
	return strings.HasSuffix(base, ".sh") || strings.Contains(base, "entrypoint")
}

// nonServerImages are images of tools beside model servers whose names
// or flags look like a server's.
var nonServerImages = []struct{ pattern, kind string }{
	// https://github.com/vllm-project/semantic-router: an Envoy ext_proc
	// that routes requests to vLLM.
	{"semantic-router", "a request router"},
	// https://github.com/llm-d/llm-d-inference-sim: answers vLLM's API
	// with no model.
	{"inference-sim", "a simulator"},
	// The same simulator under its first name (ghcr.io/llm-d/vllm-sim,
	// quay.io/llm-d/vllm-sim), and AIBrix's vLLM simulator
	// (aibrix/vllm-simulator) and mock (aibrix/vllm-mock),
	// https://github.com/vllm-project/aibrix/tree/main/development/app:
	// they take vLLM's flags and answer its API with no model.
	{"/vllm-sim", "a simulator"},
	{"/vllm-mock", "a simulator"},
	// https://github.com/llm-d/llm-d-routing-sidecar: proxies prefill and
	// decode pods.
	{"routing-sidecar", "a request router"},
}

// notServerImage says why an image is no model server, "" when it may be.
func notServerImage(image string) string {
	repository := imageRepository(image)
	for _, tool := range nonServerImages {
		if strings.Contains(repository, tool.pattern) {
			return tool.kind + " (image " + repository + ")"
		}
	}
	return ""
}

// ByImage returns the runtime an image reference names, the longest
// matching pattern winning (so "kserve-pmmlserver" is KServe's PMML server
// and not Seldon's "mlserver"), or nil.
func ByImage(image string) *Runtime {
	if notServerImage(image) != "" {
		return nil
	}
	repository := imageRepository(image)
	var best *Runtime
	bestLength := 0
	for _, runtime := range Runtimes {
		for _, pattern := range runtime.Images {
			if strings.Contains(repository, pattern) && len(pattern) > bestLength {
				best, bestLength = runtime, len(pattern)
			}
		}
	}
	return best
}

// ParseProcess reads the model settings from the command line of a server
// that was recognised from what runs. env is the process environment (the
// image's ENV, then the manifest's values), envIndex the positions of the
// manifest's literal values for field paths; fromImage says the image's
// own entrypoint starts the server, so its defaults apply.
func (r *Runtime) ParseProcess(argv []Word, env map[string]string, envIndex map[string]int, fromImage bool) *Invocation {
	return r.parse(NewArgs(argv, env, envIndex), Container{Env: env, EnvIndex: envIndex}, fromImage)
}

func texts(words []Word) []string {
	out := make([]string, len(words))
	for i, word := range words {
		out[i] = word.Text
	}
	return out
}

// programName names the program of a command line for reports.
func programName(argv []string) string {
	command := resolveCommand(argv)
	if command.name != "" {
		return command.String()
	}
	if len(argv) > 0 {
		return path.Base(argv[0])
	}
	return ""
}
