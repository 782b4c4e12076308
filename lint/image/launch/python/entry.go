package python

import (
	"path"
	"slices"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
)

// TargetKind says what an entry's word names.
type TargetKind int

const (
	// Script is a file python runs (python SCRIPT).
	Script TargetKind = iota + 1
	// Module is a module run or imported by name (python -m MODULE, a
	// gunicorn worker class).
	Module
	// App is MODULE:ATTR (uvicorn, gunicorn, hypercorn, serve run): the
	// module is imported with the working dir on sys.path.
	App
	// File is a file a program reads by path: node's script, java's jar,
	// fastapi's and streamlit's app file, a TorchServe .mar, a Ray Serve
	// config.
	File
)

// Target is one thing an entry names.
type Target struct {
	Kind TargetKind
	// Word is the index in the run's argv of the word that names it.
	Word int
	// Name is the script or file path, or the module, as written.
	Name string
	// Attr is the ATTR of MODULE:ATTR.
	Attr string
	// Base is the directory a relative File resolves from ("" for the
	// working dir): TorchServe's --model-store.
	Base string
	// AppDir is a directory the tool puts first on sys.path (uvicorn's
	// --app-dir, gunicorn's --chdir, relative to the working dir).
	AppDir string
	// ExtraPath are directories the tool adds to sys.path (gunicorn's
	// --pythonpath).
	ExtraPath []string
	// Unsure says the tool may load the target from elsewhere (a config
	// file that can set the path), so a miss is not certain.
	Unsure string
}

// Entry is what one program of the start runs in a language runtime.
type Entry struct {
	// Tool is the program's base name: python3, uvicorn, node …
	Tool string
	// Python says the targets are loaded by a CPython interpreter: Program
	// itself (python …), or the one its #! line names (console scripts).
	Python bool
	// Interpreter is the python as argv names it, when Program is python.
	Interpreter string
	Flags       Flags
	// Offset is the index in argv of the program after launchers (env,
	// tini) are looked through.
	Offset  int
	Targets []Target
}

var pythonProgram = lazyregexp.New(`^python(\d+(\.\d+)?t?)?$`)

// launchers run the command after their options.
var launchers = map[string][]string{
	"env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}, "tini": {"-p", "-e", "-l"}, "dumb-init": {"-r", "--rewrite"},
	"nohup": nil, "exec": nil,
}

// ParseEntry reads an argv for the language runtimes it knows; ok is false
// for any other program.
func ParseEntry(argv []string) (Entry, bool) {
	offset := 0
	for offset < len(argv) {
		name := path.Base(argv[offset])
		values, ok := launchers[name]
		if !ok {
			break
		}
		if name == "env" && slices.ContainsFunc(argv[offset+1:], func(a string) bool {
			return a == "-C" || a == "--chdir" || a == "-S" || strings.HasPrefix(a, "--chdir=")
		}) {
			return Entry{}, false // a directory or a split string env builds: not followed
		}
		next := offset + 1
		for next < len(argv) {
			arg := argv[next]
			if arg == "--" {
				next++
				break
			}
			if slices.Contains(values, arg) {
				next += 2
				continue
			}
			if strings.HasPrefix(arg, "-") || name == "env" && strings.Contains(arg, "=") {
				next++
				continue
			}
			break
		}
		offset = next
	}
	if offset >= len(argv) {
		return Entry{}, false
	}
	tool := path.Base(argv[offset])
	entry := Entry{Tool: tool, Offset: offset}
	args := argv[offset+1:]
	at := func(i int) int { return offset + 1 + i }
	switch {
	case pythonProgram.MatchString(tool):
		entry.Python, entry.Interpreter = true, argv[offset]
		return entry, entry.parsePython(args, at)
	case tool == "uvicorn", tool == "gunicorn", tool == "hypercorn", tool == "fastapi", tool == "serve", tool == "streamlit":
		entry.Python = true
		return entry, entry.parseTool(tool, args, at)
	case tool == "celery":
		entry.Python = true
		return entry, entry.parseCelery(args, at)
	case tool == "ray":
		// Ray's CLI (`ray start`, what KubeRay runs in every Ray container,
		// and `ray job submit`): a console script whose interpreter must
		// import the ray package (its entry point is
		// ray.scripts.scripts:main); the code it runs comes from the
		// cluster, not argv.
		entry.Python = true
		entry.Targets = append(entry.Targets, Target{Kind: Module, Word: -1, Name: "ray"})
		return entry, true
	case tool == "mlserver":
		// MLServer's CLI (mlserver start FOLDER), a console script whose
		// entry point is mlserver.cli:main; the models' runtimes it imports
		// are named by their model-settings.json, checked by FindModule.
		entry.Python = true
		entry.Targets = append(entry.Targets, Target{Kind: Module, Word: -1, Name: "mlserver"})
		return entry, true
	case tool == "vllm":
		// vLLM's CLI (vllm serve MODEL), what the vllm/vllm-openai image's
		// ENTRYPOINT runs: a console script whose entry point is
		// vllm.entrypoints.cli.main:main (vLLM's pyproject.toml), so its
		// interpreter must import the vllm package, and the frameworks
		// installed for it are the server's.
		entry.Python = true
		entry.Targets = append(entry.Targets, Target{Kind: Module, Word: -1, Name: "vllm"})
		return entry, true
	case tool == "torchserve":
		entry.parseTorchServe(args, at)
		return entry, len(entry.Targets) > 0
	case tool == "node" || tool == "nodejs":
		return entry, entry.parseNode(args, at)
	case tool == "java":
		return entry, entry.parseJava(args, at)
	}
	return Entry{}, false
}

// parsePython reads CPython's options (python --help) up to the script or
// -m module.
func (e *Entry) parsePython(args []string, at func(int) int) bool {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "-m" || strings.HasPrefix(arg, "-m") && !strings.HasPrefix(arg, "--"):
			module, word := strings.TrimPrefix(arg, "-m"), i
			if module == "" {
				if i+1 >= len(args) {
					return false
				}
				module, word, i = args[i+1], i+1, i+1
			}
			e.Targets = append(e.Targets, Target{Kind: Module, Word: at(word), Name: module})
			rest, restAt := args[i+1:], func(j int) int { return at(i + 1 + j) }
			switch tool := moduleTool(module); tool {
			case "":
			case "celery":
				e.parseCelery(rest, restAt)
			default:
				e.parseTool(tool, rest, restAt)
			}
			return true
		case arg == "-c", arg == "-", strings.HasPrefix(arg, "-c"):
			return false // inline code or stdin: no file to look for
		case arg == "-W", arg == "-X", arg == "--check-hash-based-pycs":
			i++
		case arg == "--":
			if i+1 < len(args) {
				e.Targets = append(e.Targets, Target{Kind: Script, Word: at(i + 1), Name: args[i+1]})
				return true
			}
			return false
		case strings.HasPrefix(arg, "--"):
			if arg == "--help" || arg == "--version" || strings.HasPrefix(arg, "--help-") {
				return false
			}
		case strings.HasPrefix(arg, "-"):
			letters := arg[1:]
			for j, letter := range letters {
				switch letter {
				case 'E':
					e.Flags.IgnoreEnvironment = true
				case 's':
					e.Flags.NoUserSite = true
				case 'S':
					e.Flags.NoSite = true
				case 'P':
					e.Flags.SafePath = true
				case 'I':
					e.Flags.IgnoreEnvironment, e.Flags.NoUserSite, e.Flags.SafePath = true, true, true
				case 'h', 'V', '?':
					return false
				case 'W', 'X':
					if j == len(letters)-1 {
						i++ // -uW error: the value follows
					}
				}
				if letter == 'W' || letter == 'X' {
					break
				}
			}
		default:
			e.Targets = append(e.Targets, Target{Kind: Script, Word: at(i), Name: arg})
			return true
		}
	}
	return false
}

// moduleTool names the tool a `python -m MODULE` runs.
func moduleTool(module string) string {
	switch module {
	case "uvicorn", "gunicorn", "hypercorn", "fastapi", "fastapi_cli":
		return strings.TrimSuffix(module, "_cli")
	case "ray.serve.scripts":
		return "serve"
	case "celery":
		return "celery"
	}
	return ""
}

// celeryValueOptions are celery's global options that take a value
// (celery --help of Celery 5); the others are flags.
var celeryValueOptions = []string{"-b", "--broker", "--result-backend", "--loader", "--config", "--workdir"}

// parseCelery reads celery's global options, which come before the
// subcommand (celery -A proj worker): -A/--app names the app's module
// (MODULE or MODULE:ATTR), imported with the working dir on sys.path
// (celery's import_from_cwd), after --workdir changes it.
func (e *Entry) parseCelery(args []string, at func(int) int) bool {
	target := Target{Kind: App, AppDir: ".", Word: -1}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, inline := strings.Cut(arg, "=")
		switch {
		case arg == "--help" || arg == "--version":
			return false
		case name == "--app" && inline:
			target.Word, target.Name = at(i), value
		case arg == "-A" || arg == "--app":
			if i+1 < len(args) {
				target.Word, target.Name = at(i+1), args[i+1]
				i++
			}
		case strings.HasPrefix(arg, "-A") && len(arg) > 2:
			// click gives a short option the rest of its word, so -A=proj
			// is the app "=proj" (click's parser.py, _match_short_opt).
			target.Word, target.Name = at(i), arg[2:]
		case name == "--workdir" && inline:
			target.AppDir = value
		case arg == "--workdir" && i+1 < len(args):
			target.AppDir = args[i+1]
			i++
		case slices.Contains(celeryValueOptions, name):
			if !inline {
				i++
			}
		case strings.HasPrefix(arg, "-"):
		default:
			i = len(args) // the subcommand: its options are its own
		}
	}
	if target.Name == "" {
		return false // the app from CELERY_APP or the default: not followed
	}
	module, attr, _ := strings.Cut(target.Name, ":")
	if module == "" || strings.ContainsAny(module, "/\\") {
		return false
	}
	target.Name, target.Attr = module, attr
	e.Targets = append(e.Targets, target)
	return true
}

// flagOnly are the options of the ASGI/WSGI servers that take no value;
// every other --option takes one (or is written --option=value).
var flagOnly = map[string][]string{
	"uvicorn": {"--reload", "--factory", "--proxy-headers", "--no-proxy-headers", "--server-header", "--no-server-header",
		"--date-header", "--no-date-header", "--use-colors", "--no-use-colors", "--access-log", "--no-access-log",
		"--ws-per-message-deflate", "--reset-contextvars"},
	"gunicorn": {"--reload", "--preload", "-D", "--daemon", "-R", "--enable-stdio-inheritance", "--capture-output",
		"--check-config", "--print-config", "--spew", "--strip-header-spaces", "--no-sendfile", "--reuse-port",
		"--proxy-protocol", "--suppress-ragged-eofs", "--do-handshake-on-connect", "--disable-redirect-access-to-syslog",
		"--initgroups", "--permit-unconventional-http-method", "--permit-unconventional-http-version",
		"--casefold-http-method"},
	"hypercorn": {"--debug", "--reload"},
	"fastapi":   {"--reload", "--no-reload", "--proxy-headers", "--no-proxy-headers", "--help"},
	"serve":     {"--blocking", "--non-blocking", "--reload", "--help"},
	"streamlit": {"--help"},
}

// parseTool reads the app the ASGI/WSGI servers and CLIs load.
func (e *Entry) parseTool(tool string, args []string, at func(int) int) bool {
	var positional []int
	values := map[string]string{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--help" || arg == "-h" || arg == "--version" || arg == "-v" && tool == "gunicorn":
			// gunicorn's and hypercorn's argparse take -h for --help, and
			// the click CLIs (uvicorn, fastapi, serve, streamlit) define
			// no -h: either way the app is not loaded.
			return false
		case arg == "--":
			for j := i + 1; j < len(args); j++ {
				positional = append(positional, j)
			}
			i = len(args)
		case strings.HasPrefix(arg, "--") && strings.Contains(arg, "="):
			name, value, _ := strings.Cut(arg, "=")
			values[name] = value
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			if slices.Contains(flagOnly[tool], arg) {
				continue
			}
			if tool == "gunicorn" && len(arg) > 2 && arg[1] != '-' {
				values[arg[:2]] = arg[2:] // -w4, -kgevent
				continue
			}
			if i+1 < len(args) {
				values[arg] = args[i+1]
			}
			i++
		default:
			positional = append(positional, i)
		}
	}
	target := Target{AppDir: "."}
	switch tool {
	case "uvicorn":
		if dir, ok := values["--app-dir"]; ok {
			target.AppDir = dir
		}
		if len(positional) == 0 {
			return false // the app from UVICORN_APP or a config: not followed
		}
	case "gunicorn":
		if dir, ok := values["--chdir"]; ok {
			target.AppDir = dir
		}
		if extra, ok := values["--pythonpath"]; ok {
			target.ExtraPath = strings.Split(extra, ",")
		}
		if _, ok := values["-c"]; ok {
			target.Unsure = "gunicorn reads the config file given with -c, which may change its path"
		} else if _, ok := values["--config"]; ok {
			target.Unsure = "gunicorn reads the config file given with --config, which may change its path"
		}
		if worker := firstOf(values, "-k", "--worker-class"); strings.Contains(worker, ".") {
			module := worker[:strings.LastIndexByte(worker, '.')]
			workerTarget := target
			workerTarget.Kind, workerTarget.Name, workerTarget.Word = Module, module, at(indexOf(args, worker))
			e.Targets = append(e.Targets, workerTarget)
		}
		if len(positional) == 0 {
			return len(e.Targets) > 0
		}
	case "hypercorn":
		if len(positional) == 0 {
			return false
		}
	case "fastapi":
		if len(positional) == 0 || args[positional[0]] != "run" && args[positional[0]] != "dev" {
			return false
		}
		if len(positional) < 2 {
			return false // the default file search (main.py, app.py, app/main.py …): not followed
		}
		word := positional[1]
		e.Targets = append(e.Targets, Target{Kind: File, Word: at(word), Name: args[word]})
		return true
	case "streamlit":
		if len(positional) < 2 || args[positional[0]] != "run" || strings.Contains(args[positional[1]], "://") {
			return false
		}
		word := positional[1]
		e.Targets = append(e.Targets, Target{Kind: File, Word: at(word), Name: args[word]})
		return true
	case "serve":
		if len(positional) < 2 || args[positional[0]] != "run" {
			return false
		}
		for _, remote := range []string{"--working-dir", "--runtime-env", "--runtime-env-json", "--address", "-a"} {
			if _, ok := values[remote]; ok {
				return false // the code comes with a runtime env, or runs on another cluster
			}
		}
		if dir := firstOf(values, "--app-dir", "-d"); dir != "" {
			target.AppDir = dir
		}
		word := positional[1]
		name := args[word]
		if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") {
			e.Targets = append(e.Targets, Target{Kind: File, Word: at(word), Name: name})
			return true
		}
		module, attr, found := strings.Cut(name, ":")
		if !found {
			// Ray also takes module.attr.
			dot := strings.LastIndexByte(name, '.')
			if dot < 0 {
				return false
			}
			module, attr = name[:dot], name[dot+1:]
		}
		target.Kind, target.Word, target.Name, target.Attr = App, at(word), module, attr
		e.Targets = append(e.Targets, target)
		return true
	}
	word := positional[0]
	module, attr, _ := strings.Cut(args[word], ":")
	if module == "" || strings.ContainsAny(module, "/\\") || strings.HasSuffix(module, ".py") {
		return len(e.Targets) > 0 // a file path (hypercorn takes some): not a module name
	}
	target.Kind, target.Word, target.Name, target.Attr = App, at(word), module, attr
	e.Targets = append(e.Targets, target)
	return true
}

func firstOf(values map[string]string, names ...string) string {
	for _, name := range names {
		if value, ok := values[name]; ok {
			return value
		}
	}
	return ""
}

func indexOf(args []string, value string) int {
	for i, arg := range args {
		if arg == value || strings.HasSuffix(arg, value) {
			return i
		}
	}
	return 0
}

// parseTorchServe reads --models NAME=FILE.mar … and --model-store DIR.
func (e *Entry) parseTorchServe(args []string, at func(int) int) {
	store := ""
	var models []int
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; {
		case arg == "--model-store" && i+1 < len(args):
			store = args[i+1]
			i++
		case strings.HasPrefix(arg, "--model-store="):
			store = strings.TrimPrefix(arg, "--model-store=")
		case arg == "--models":
			for j := i + 1; j < len(args) && !strings.HasPrefix(args[j], "-"); j++ {
				models = append(models, j)
				i = j
			}
		case arg == "--ts-config" || arg == "--ts-config-file":
			i++
		}
	}
	if store == "" {
		return // the store comes from config.properties: not followed
	}
	for _, i := range models {
		value := args[i]
		if _, file, ok := strings.Cut(value, "="); ok {
			value = file
		}
		if !strings.HasSuffix(value, ".mar") || strings.Contains(value, "://") {
			continue // all, a directory name, or a URL
		}
		e.Targets = append(e.Targets, Target{Kind: File, Word: at(i), Name: value, Base: store})
	}
}

// nodeValueOptions are node's options that take the next word.
var nodeValueOptions = []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions",
	"--input-type", "--title", "--env-file", "--inspect-port", "--stack-size", "--max-http-header-size"}

func (e *Entry) parseNode(args []string, at func(int) int) bool {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "-e" || arg == "--eval" || arg == "-p" || arg == "--print" || arg == "-" || arg == "-i" || arg == "--test" ||
			arg == "-v" || arg == "--version" || arg == "-h" || arg == "--help":
			return false
		case slices.Contains(nodeValueOptions, arg):
			i++
		case arg == "--":
			if i+1 < len(args) {
				e.Targets = append(e.Targets, Target{Kind: File, Word: at(i + 1), Name: args[i+1]})
				return true
			}
			return false
		case strings.HasPrefix(arg, "-"):
		default:
			e.Targets = append(e.Targets, Target{Kind: File, Word: at(i), Name: arg})
			return true
		}
	}
	return false
}

func (e *Entry) parseJava(args []string, at func(int) int) bool {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "-jar":
			if i+1 < len(args) {
				e.Targets = append(e.Targets, Target{Kind: File, Word: at(i + 1), Name: args[i+1]})
				return true
			}
			return false
		case arg == "-cp" || arg == "-classpath" || arg == "--class-path" || arg == "-p" || arg == "--module-path" ||
			arg == "--add-modules" || arg == "-m" || arg == "--module":
			if arg == "-m" || arg == "--module" {
				return false
			}
			i++
		case strings.HasPrefix(arg, "-"):
		default:
			return false // a main class: classpath lookups are not followed
		}
	}
	return false
}
