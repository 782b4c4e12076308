package server

import (
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
	// PositionalAfter is the subcommand whose first argument is the model
	// path ("vllm serve MODEL", "mlserver start DIR").
	PositionalAfter string
	// ConfigFileFlags name a file that lists models (TF Serving's
	// --model_config_file), instead of a path on the command line.
	ConfigFileFlags []string
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
	Runtime         *Runtime
	ModelName       Value
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

// argument is one word of the command line and where it was written.
type argument struct {
	word  string
	field string
}

// Parse reads the model settings of a container running this runtime.
// $(VAR) references are expanded from the container env, as Kubernetes does.
func (r *Runtime) Parse(c Container) *Invocation {
	return r.parse(commandLine(c), c, len(c.Command) == 0)
}

// parse reads the model settings from a command line; fromImage says the
// image's own entrypoint starts the server, with its defaults.
func (r *Runtime) parse(argv []argument, c Container, fromImage bool) *Invocation {
	inv := &Invocation{Runtime: r, Copies: Value{Value: "1", From: "default"}}
	settings := r.Model
	if v, ok := flagIn(argv, settings.NameFlags); ok {
		inv.ModelName = v
	}
	for _, flag := range settings.PathFlags {
		inv.ModelPaths = append(inv.ModelPaths, flagValues(argv, flag)...)
	}
	if settings.PositionalAfter != "" {
		if v, ok := positionalAfter(argv, settings.PositionalAfter); ok {
			inv.ModelPaths = append(inv.ModelPaths, v)
		}
	}
	if len(inv.ModelPaths) == 0 {
		if v, ok := envIn(c, settings.PathEnv); ok {
			inv.ModelPaths = append(inv.ModelPaths, v)
		}
	}
	if v, ok := flagIn(argv, settings.ConfigFileFlags); ok {
		inv.ModelConfigFile = v
	}
	if v, ok := flagIn(argv, settings.CopiesFlags); ok {
		inv.Copies = v
	} else if v, ok := envIn(c, settings.CopiesEnv); ok {
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
		if inv.ModelName.Value == "" && settings.DefaultName != "" {
			inv.ModelName = Value{Value: kubevar.Expand(settings.DefaultName, lookup), From: "image default"}
		}
		if len(inv.ModelPaths) == 0 && settings.DefaultPath != "" && inv.ModelConfigFile.Value == "" {
			inv.ModelPaths = []Value{{Value: kubevar.Expand(settings.DefaultPath, lookup), From: "image default"}}
		}
	}
	return inv
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
// A shell script (sh -c "...") is split into words so flags inside it count.
func commandLine(c Container) []argument {
	lookup := func(name string) (string, bool) {
		value, ok := c.Env[name]
		return value, ok
	}
	var argv []argument
	add := func(list []string, field string) {
		for i, word := range list {
			field := field + "[" + strconv.Itoa(i) + "]"
			expanded := kubevar.Expand(word, lookup)
			if strings.ContainsAny(expanded, " \t\n") {
				for _, part := range strings.Fields(expanded) {
					argv = append(argv, argument{word: part, field: field})
				}
				continue
			}
			argv = append(argv, argument{word: expanded, field: field})
		}
	}
	add(c.Command, "command")
	add(c.Args, "args")
	return argv
}

func flagIn(argv []argument, flags []string) (Value, bool) {
	for _, flag := range flags {
		if values := flagValues(argv, flag); len(values) > 0 {
			return values[len(values)-1], true // the last one wins, as flag parsers do
		}
	}
	return Value{}, false
}

// flagValues finds every "--flag=value" and "--flag value" (also "-flag").
func flagValues(argv []argument, flag string) []Value {
	name := strings.TrimLeft(flag, "-")
	var values []Value
	for i, arg := range argv {
		if !strings.HasPrefix(arg.word, "-") {
			continue
		}
		key, value, hasValue := strings.Cut(strings.TrimLeft(arg.word, "-"), "=")
		if key != name {
			continue
		}
		field := arg.field
		if !hasValue {
			if i+1 >= len(argv) {
				continue
			}
			value, field = argv[i+1].word, argv[i+1].field
		}
		values = append(values, Value{Value: strings.Trim(value, `"'`), From: flag, Field: field})
	}
	return values
}

func positionalAfter(argv []argument, subcommand string) (Value, bool) {
	for i, arg := range argv {
		if arg.word == subcommand && i+1 < len(argv) && !strings.HasPrefix(argv[i+1].word, "-") {
			next := argv[i+1]
			return Value{Value: next.word, From: subcommand + " argument", Field: next.field}, true
		}
	}
	return Value{}, false
}

func envIn(c Container, names []string) (Value, bool) {
	for _, name := range names {
		if value, ok := c.Env[name]; ok {
			field := ""
			if i, ok := c.EnvIndex[name]; ok {
				field = "env[" + strconv.Itoa(i) + "].value"
			}
			return Value{Value: value, From: "env " + name, Field: field}, true
		}
	}
	return Value{}, false
}
