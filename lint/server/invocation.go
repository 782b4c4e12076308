package server

import (
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/internal/kubevar"
)

// ModelSettings say where a runtime reads the model's name and location.
type ModelSettings struct {
	NameFlags []string
	// PathFlags and PathEnv set the model's base path (one model) or the
	// model repository (several models, Repository true).
	PathFlags  []string
	PathEnv    []string
	Repository bool
	// IDFlags name a model id the server loads in place of its path, from
	// the Hugging Face Hub (KServe's --model_id, which wins over
	// --model_dir).
	IDFlags []string
	// FlagsAdd says each repeated path or name flag adds one more (Triton's
	// --model-repository and --load-model); for other servers the last one
	// given wins, as their flag parsers keep the last value.
	FlagsAdd bool
	// NamesModeFlag and NamesMode say the server reads its name flags only
	// when that flag has that value (any case), and else loads every model
	// it finds; AllNames is the name that loads every model.
	NamesModeFlag, NamesMode, AllNames string
	// PositionalAfter is the subcommand whose first argument is the model
	// path ("vllm serve MODEL", "mlserver start DIR").
	PositionalAfter string
	// ConfigFileFlags and ConfigFileEnv name a file that lists models or
	// the model store (TF Serving's --model_config_file, TorchServe's
	// --ts-config), besides or instead of a path on the command line; the
	// env var wins. DefaultConfigFile is the one the image's own start
	// passes.
	ConfigFileFlags   []string
	ConfigFileEnv     []string
	DefaultConfigFile string
	// CopiesFlags and CopiesEnv set how many copies of the model the server
	// loads (workers); one when unset.
	CopiesFlags []string
	CopiesEnv   []string
	// DefaultName and DefaultPath apply when the image's own entrypoint
	// starts the server (the container sets no command); $(VAR) is expanded
	// from the container env, then from ImageEnv.
	DefaultName string
	DefaultPath string
	ImageEnv    map[string]string
	// Layout is the model dir layout the server reads, a model.Layout name
	// ("tensorflow-serving"); "" when it reads several.
	Layout string
}

// Value is a setting and where it was written, so findings can point at it.
type Value struct {
	Value string
	// From says how it was set: a flag ("--model_base_path"), "env NAME",
	// or "image default".
	From string
	// Field is the field path relative to the container ("args[2]",
	// "command[1]", "env[0].value"), empty for defaults.
	Field string
}

// Invocation is what a container tells its server through command, args and env.
type Invocation struct {
	Runtime *Runtime
	// Engine is the runtime whose engine serves the model: Runtime itself,
	// or the engine a wrapping server starts (KServe's Hugging Face server
	// starts vLLM's); Backend is the setting that chose it.
	Engine  *Runtime
	Backend Value
	// ModelNames are the models the server is told to serve: one, or each
	// of a flag that adds (Triton's --load-model); none when not told or
	// when it serves every model it finds.
	ModelNames      []Value
	ModelPaths      []Value // several for repeated --model-repository
	ModelConfigFile Value
	// Copies is how many copies of the model the server loads (≥ 1).
	Copies Value
}

// Container is the part of a container spec an invocation is read from.
type Container struct {
	Command []string
	Args    []string
	// Env holds literal env values by name, and EnvIndex their position.
	Env      map[string]string
	EnvIndex map[string]int
}

// Parse reads the model settings of a container running this runtime.
// $(VAR) references are expanded from the container env, as Kubernetes does.
func (r *Runtime) Parse(c Container) *Invocation {
	return r.parse(NewArgs(commandLine(c), c.Env, c.EnvIndex), c, len(c.Command) == 0)
}

// parse reads the model settings from a command line; fromImage says the
// image's own entrypoint starts the server, with its defaults.
func (r *Runtime) parse(args Args, c Container, fromImage bool) *Invocation {
	inv := &Invocation{Runtime: r, Engine: r, Copies: Value{Value: "1", From: "default"}}
	if b := r.Backend; b != nil {
		inv.Backend = Value{Value: b.Default, From: "default " + b.Flag}
		if b.Flag == "" {
			inv.Backend.From = "the server's only engine"
		}
		engine := b.Default
		if v, ok := args.Value(Flags(b.Flag)); ok && b.Flag != "" {
			inv.Backend = v
			if name, known := b.Engines[v.Value]; known {
				engine = name
			}
		}
		if named := Named(engine); named != nil {
			inv.Engine = named
		}
	}
	settings := r.Model
	inv.ModelNames = settings.modelNames(args)
	for _, flag := range settings.PathFlags {
		values := args.Values(flag)
		if !settings.FlagsAdd && len(values) > 1 {
			values = values[len(values)-1:]
		}
		inv.ModelPaths = append(inv.ModelPaths, values...)
	}
	if settings.PositionalAfter != "" {
		if v, ok := args.Positional(settings.PositionalAfter); ok {
			inv.ModelPaths = append(inv.ModelPaths, v)
		}
	}
	if v, ok := args.Value(Flags(settings.IDFlags...)); ok && len(settings.IDFlags) > 0 && v.Value != "" {
		inv.ModelPaths = []Value{v}
	}
	if len(inv.ModelPaths) == 0 {
		if v, ok := args.Value(Setting{Env: settings.PathEnv}); ok {
			inv.ModelPaths = append(inv.ModelPaths, v)
		}
	}
	// TorchServe reads TS_CONFIG_FILE before its --ts-config flag.
	if v, ok := args.Value(Setting{Env: settings.ConfigFileEnv}); ok && len(settings.ConfigFileEnv) > 0 {
		inv.ModelConfigFile = v
	} else if v, ok := args.Value(Flags(settings.ConfigFileFlags...)); ok {
		inv.ModelConfigFile = v
	}
	if v, ok := args.Value(Setting{Flags: settings.CopiesFlags, Env: settings.CopiesEnv}); ok {
		inv.Copies = v
	}
	if fromImage {
		// The image's entrypoint starts the server with its own defaults.
		lookup := func(name string) (string, bool) {
			if value, ok := c.Env[name]; ok {
				return value, true
			}
			value, ok := settings.ImageEnv[name]
			return value, ok
		}
		if len(inv.ModelNames) == 0 && settings.DefaultName != "" {
			inv.ModelNames = []Value{{Value: kubevar.Expand(settings.DefaultName, lookup), From: "image default"}}
		}
		if len(inv.ModelPaths) == 0 && settings.DefaultPath != "" && inv.ModelConfigFile.Value == "" {
			inv.ModelPaths = []Value{{Value: kubevar.Expand(settings.DefaultPath, lookup), From: "image default"}}
		}
		if inv.ModelConfigFile.Value == "" && settings.DefaultConfigFile != "" {
			inv.ModelConfigFile = Value{Value: settings.DefaultConfigFile, From: "image default"}
		}
	}
	return inv
}

// modelNames reads the name flags: each value of flags that add, else the
// last value of the first flag given; none when the server ignores them or
// is told to load every model.
func (s ModelSettings) modelNames(args Args) []Value {
	if s.NamesModeFlag != "" {
		if mode, _ := args.Flag(s.NamesModeFlag); !strings.EqualFold(mode, s.NamesMode) {
			return nil
		}
	}
	var names []Value
	if s.FlagsAdd {
		for _, flag := range s.NameFlags {
			names = append(names, args.Values(flag)...)
		}
	} else if name, ok := args.Value(Flags(s.NameFlags...)); ok {
		names = []Value{name}
	}
	if s.AllNames != "" && slices.ContainsFunc(names, func(name Value) bool { return name.Value == s.AllNames }) {
		return nil
	}
	return names
}

// CopiesCount returns the number of model copies, at least 1.
func (inv *Invocation) CopiesCount() int {
	n, err := strconv.Atoi(strings.TrimSpace(inv.Copies.Value))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// commandLine lists command then args, each expanded, with its field path.
func commandLine(c Container) []Word {
	lookup := func(name string) (string, bool) {
		value, ok := c.Env[name]
		return value, ok
	}
	var argv []Word
	add := func(list []string, field string) {
		for i, word := range list {
			argv = append(argv, Word{Text: kubevar.Expand(word, lookup), Field: field + "[" + strconv.Itoa(i) + "]"})
		}
	}
	add(c.Command, "command")
	add(c.Args, "args")
	return argv
}
