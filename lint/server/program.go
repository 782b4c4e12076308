package server

import (
	"path"
	"slices"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// ByProgram returns the runtime whose server the command line runs, or nil
// (also for anything NotServer names). It looks through launchers (env,
// uv run, python -m) to the program, and asks programs that do more than
// serve for their serving subcommand: "vllm serve" is vLLM, "vllm bench
// serve" is not.
func ByProgram(argv []string) *Runtime {
	if NotServer(argv) != "" {
		return nil
	}
	cmd := resolveCommand(argv)
	runtime := programRuntime(cmd)
	if runtime == nil {
		return nil
	}
	if serving, ok := runtime.Subcommands[cmd.name]; ok && !slices.Contains(serving, subcommand(cmd.args)) {
		return nil
	}
	return runtime
}

// DetectByFlags returns the runtime that one of the args is a unique flag of
// ("--flag" or "--flag=value"), or nil when there is none or when flags of
// two runtimes appear.
func DetectByFlags(args []string) *Runtime {
	var found *Runtime
	for _, arg := range args {
		// An arg may be written as one shell line ("--a=1 --b 2").
		for word := range strings.FieldsSeq(arg) {
			if !strings.HasPrefix(word, "--") {
				continue
			}
			flag, _, _ := strings.Cut(word, "=")
			for _, runtime := range Runtimes {
				if !slices.Contains(runtime.UniqueFlags, flag) {
					continue
				}
				if found != nil && found != runtime {
					return nil // flags of two servers: a wrapper or a mistake, not a guess to make
				}
				found = runtime
			}
		}
	}
	return found
}

// NotServer returns why a command line is not a model server whatever its
// image ("sleep", "a benchmark (vllm bench serve)"), or "" when it may be.
// argv is the final command line, after wrapper scripts were followed.
func NotServer(argv []string) string {
	cmd := resolveCommand(argv)
	if cmd.name == "" {
		return ""
	}
	if reason := idle(cmd); reason != "" {
		return reason
	}
	if programRuntime(cmd) != nil {
		for _, arg := range cmd.args {
			if arg == "--help" || arg == "--version" {
				return "help or version output (" + cmd.String() + " " + arg + ")"
			}
		}
	}
	sub := subcommand(cmd.args)
	for _, tool := range nonServers {
		if matched, _ := path.Match(tool.program, cmd.name); !matched {
			continue
		}
		if strings.HasPrefix(tool.program, "*") && startsServer.MatchString(cmd.name) {
			continue // download_and_serve.sh may do both
		}
		if len(tool.subcommands) > 0 && !slices.Contains(tool.subcommands, sub) {
			continue
		}
		shown := append([]string{cmd.String()}, leadingWords(cmd.args, tool.words)...)
		return tool.kind + " (" + strings.Join(shown, " ") + ")"
	}
	return ""
}

// KeepAlive names a command that only keeps a container running (sleep,
// tail -f /dev/null), "" for any other.
func KeepAlive(argv []string) string { return idle(resolveCommand(argv)) }

// idle names commands that only keep a container running.
func idle(cmd command) string {
	switch cmd.name {
	case "sleep":
		return "sleep"
	case "tail":
		if slices.Contains(cmd.args, "/dev/null") && slices.ContainsFunc(cmd.args, isFollowOption) {
			return "a keep-alive loop (tail -f /dev/null)"
		}
	case "cat":
		if len(cmd.args) == 0 {
			return "a keep-alive loop (cat, reading a stdin that never ends)"
		}
	case "pause":
		return "a pause container (pause)"
	case "true":
		return "true, which exits at once"
	}
	return ""
}

func isFollowOption(arg string) bool {
	return arg == "-f" || arg == "-F" || arg == "--follow" || strings.HasPrefix(arg, "--follow=")
}

// A tool is a program that never serves a model.
type tool struct {
	program     string   // base name, python module or script; a path.Match pattern
	subcommands []string // when set, only these subcommands make it this tool
	kind        string   // what it does instead, for the reason
	words       int      // how many leading words of its args the reason shows
}

var nonServers = []tool{
	// https://docs.vllm.ai/en/latest/cli/: vllm {chat,complete,serve,bench,collect-env,run-batch}
	{"vllm", []string{"bench"}, "a benchmark", 2},
	{"vllm.entrypoints.cli.main", []string{"bench"}, "a benchmark", 2},
	{"vllm", []string{"chat", "complete", "collect-env"}, "a client", 1},
	{"vllm", []string{"run-batch"}, "a batch job", 1},
	// python -m sglang.bench_serving, bench_one_batch, ...
	// (https://github.com/sgl-project/sglang/tree/main/python/sglang).
	{"sglang.bench_*", nil, "a benchmark", 0},
	// vLLM's and JetStream's benchmarks/ scripts
	// (https://github.com/vllm-project/vllm/tree/main/benchmarks,
	// https://github.com/AI-Hypercomputer/JetStream/tree/main/benchmarks).
	{"benchmark_*.py", nil, "a benchmark", 0},
	// Triton's load generators; perf_client is perf_analyzer's old name
	// (https://github.com/triton-inference-server/perf_analyzer).
	{"genai-perf", nil, "a benchmark", 1},
	{"perf_analyzer", nil, "a client", 0},
	{"perf_client", nil, "a client", 0},
	// https://docs.locust.io/
	{"locust", nil, "a load test", 0},
	// https://github.com/ollama/ollama#cli-reference: only ollama serve serves.
	{"ollama", []string{"pull"}, "a download", 1},
	{"ollama", []string{"run", "list", "ps", "show", "push", "create", "cp", "rm", "stop"}, "a client", 1},
	// "serve start" starts Serve on a running Ray cluster and exits
	// (https://docs.ray.io/en/latest/serve/api/index.html#serve-cli).
	{"serve", []string{"start", "deploy", "status", "config", "shutdown"}, "a Ray Serve client", 1},
	// https://github.com/huggingface/text-generation-inference/blob/main/server/text_generation_server/cli.py
	{"text-generation-server", []string{"download-weights"}, "a download", 1},
	// https://huggingface.co/docs/huggingface_hub/guides/cli
	{"huggingface-cli", []string{"download"}, "a download", 1},
	{"hf", []string{"download"}, "a download", 1},
	{"huggingface_hub*", nil, "a download", 1},
	// https://cloud.google.com/storage/docs/gsutil,
	// https://docs.aws.amazon.com/cli/latest/reference/s3/,
	// https://cloud.google.com/sdk/gcloud/reference/storage
	{"gsutil", nil, "a download", 1},
	{"aws", []string{"s3", "s3api"}, "a download", 2},
	{"gcloud", []string{"storage"}, "a download", 2},
	// https://www.gnu.org/software/wget/manual/wget.html, https://curl.se/docs/manpage.html,
	// https://rclone.org/commands/
	{"wget", nil, "a download", 0},
	{"curl", nil, "a download", 0},
	{"rclone", nil, "a download", 1},
	// https://git-scm.com/docs, https://git-lfs.com/
	{"git", []string{"clone", "fetch", "pull"}, "a download", 1},
	{"git", []string{"lfs"}, "a download", 2},
	// /storage-initializer/scripts/initializer-entrypoint copies storageUri to /mnt/models
	// (https://github.com/kserve/kserve/tree/master/python/storage-initializer).
	{"initializer-entrypoint", nil, "a download by the KServe storage initializer", 0},
	// NIM's utilities (https://docs.nvidia.com/nim/large-language-models/latest/utilities.html).
	{"download-to-cache", nil, "a download", 0},
	{"list-model-profiles", nil, "a listing", 0},
	{"nim_download_to_cache", nil, "a download", 0},
	{"nim_list_model_profiles", nil, "a listing", 0},
	// TensorRT-LLM builds engines from checkpoints: a conversion, not a server
	// (https://nvidia.github.io/TensorRT-LLM/commands/trtllm-build.html).
	{"trtllm-build", nil, "an engine build", 0},
	// Scripts and programs named for what they do instead (fetch_model.sh,
	// download_weights.py, run_benchmark.sh), as the projects' own are:
	// TensorRT-LLM's convert_checkpoint.py and quantize.py
	// (https://github.com/NVIDIA/TensorRT-LLM/tree/main/examples),
	// llama.cpp's convert_hf_to_gguf.py and llama-quantize
	// (https://github.com/ggml-org/llama.cpp).
	{"*download*", nil, "a download", 0},
	{"fetch_model*", nil, "a download", 0},
	{"fetch-model*", nil, "a download", 0},
	{"*convert*", nil, "a conversion", 0},
	{"*quantize*", nil, "a conversion", 0},
	{"*benchmark*", nil, "a benchmark", 0},
}

// startsServer matches program names that say they start a server too
// (download_and_serve.sh), which a name pattern of nonServers must not
// call a download.
var startsServer = lazyregexp.New(`(?i)serv|start|launch|entrypoint`)

// programRuntime returns the runtime whose program cmd runs, whatever the
// subcommand.
func programRuntime(cmd command) *Runtime {
	for _, runtime := range Runtimes {
		if _, ok := runtime.Subcommands[cmd.name]; ok {
			return runtime
		}
		for _, name := range runtime.Commands {
			if name == cmd.name || (strings.Contains(name, "/") && name == cmd.path) {
				return runtime
			}
		}
	}
	return nil
}

// A command is the program a command line runs once launchers are looked
// through, and the program's args.
type command struct {
	path   string // as written ("/usr/bin/tritonserver"), or the module of python -m
	name   string // base name, or the module of python -m
	module bool
	args   []string
}

func (c command) String() string {
	if c.module {
		return "python -m " + c.name
	}
	return c.name
}

// launchers run the command that follows their own options; the lists
// name their options that take a value.
var launchers = map[string][]string{
	"env":       {"-u", "--unset", "-C", "--chdir"},
	"nohup":     nil,
	"tini":      {"-p", "-e"},
	"dumb-init": {"-r", "--rewrite"},
	"uvx":       uvValueOptions,
}

var uvValueOptions = []string{"--with", "--with-requirements", "--with-editable", "--from", "--python", "-p",
	"--project", "--directory", "--env-file", "--extra", "--group", "--package", "--index", "--default-index"}

var pythonName = lazyregexp.New(`^python[0-9.]*$`)

func resolveCommand(argv []string) command {
	for len(argv) > 0 {
		name := path.Base(argv[0])
		valueOptions, isLauncher := launchers[name]
		switch {
		case isLauncher:
			argv = skipOptions(argv[1:], valueOptions, name == "env")
		case name == "uv" && len(argv) > 1 && argv[1] == "run":
			argv = skipOptions(argv[2:], uvValueOptions, false)
		case pythonName.MatchString(name):
			return pythonCommand(argv[1:])
		default:
			return command{path: argv[0], name: name, args: argv[1:]}
		}
	}
	return command{}
}

// skipOptions drops a launcher's leading options (and, for env, its
// NAME=value assignments) up to the command it runs.
func skipOptions(args, valueOptions []string, assignments bool) []string {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return args[i+1:]
		case slices.Contains(valueOptions, arg):
			i++
		case strings.HasPrefix(arg, "-"), assignments && strings.Contains(arg, "="):
		default:
			return args[i:]
		}
	}
	return nil
}

// pythonCommand reads the interpreter's options up to the module (-m) or
// script it runs; inline code (-c) and stdin name no program.
func pythonCommand(args []string) command {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "-m":
			if i+1 < len(args) {
				return command{path: args[i+1], name: args[i+1], module: true, args: args[i+2:]}
			}
			return command{}
		case strings.HasPrefix(arg, "-m"):
			return command{path: arg[2:], name: arg[2:], module: true, args: args[i+1:]}
		case arg == "-c", arg == "-":
			return command{}
		case arg == "-W", arg == "-X":
			i++ // the option's value
		case strings.HasPrefix(arg, "-"):
		default:
			return command{path: arg, name: path.Base(arg), args: args[i+1:]}
		}
	}
	return command{}
}

// subcommand is the first arg that is not an option.
func subcommand(args []string) string {
	if words := leadingWords(args, 1); len(words) == 1 {
		return words[0]
	}
	return ""
}

// leadingWords returns the first n args that are not options.
func leadingWords(args []string, n int) []string {
	var found []string
	for _, arg := range args {
		if len(found) == n {
			break
		}
		if !strings.HasPrefix(arg, "-") {
			found = append(found, arg)
		}
	}
	return found
}
