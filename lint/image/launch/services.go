package launch

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch/shell"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// Process supervisors run the programs their configuration names: the
// server is one of those, not the supervisor. Their programs are followed
// as side runs of the supervisor's run, as a wrapper's earlier commands are.

// Bounds on what a supervisor's configuration may make followed.
const (
	maxServiceFiles    = 32 // configuration files read, includes counted
	maxServices        = 32 // programs or service directories followed
	maxIncludeDepth    = 2  // [include] inside included files
	maxServiceConfSize = image.MaxSource
)

// supervisorDefaults are where supervisord looks for its configuration
// without -c (supervisor/options.py, Options.searchpaths), after the two
// beside its executable.
var supervisorDefaults = []string{"supervisord.conf", "etc/supervisord.conf", "/etc/supervisord.conf", "/etc/supervisor/supervisord.conf"}

// supervise follows the programs a process supervisor starts, when argv
// runs one: supervisord, s6-overlay's /init, runit's runsvdir or my_init.
// It reports whether argv was a supervisor.
func (c *checker) supervise(resolved string, argv []string, depth int) bool {
	base := path.Base(argv[0])
	switch {
	case base == "supervisord" || path.Base(resolved) == "supervisord":
		c.supervisord(resolved, argv, depth)
	case resolved == "/init" && c.isDir("/etc/s6-overlay") || resolved == "/init" && c.isDir("/etc/services.d"):
		c.serviceDirs(resolved, depth, "/etc/s6-overlay/s6-rc.d", "/etc/services.d")
	case base == "runsvdir":
		dir := "/etc/service"
		for _, arg := range argv[1:] {
			if !strings.HasPrefix(arg, "-") {
				dir = c.absolute(arg)
				break
			}
		}
		c.serviceDirs(resolved, depth, dir)
	case base == "my_init" || base == "runit" || base == "runsvdir-start":
		c.serviceDirs(resolved, depth, "/etc/service")
	default:
		return false
	}
	return true
}

// supervises says argv runs a process supervisor supervise follows (s6-overlay's
// /init is itself an execline script, followed as a supervisor).
func (c *checker) supervises(resolved string, argv []string) bool {
	base := path.Base(argv[0])
	switch {
	case base == "supervisord" || path.Base(resolved) == "supervisord":
	case resolved == "/init" && (c.isDir("/etc/s6-overlay") || c.isDir("/etc/services.d")):
	case base == "runsvdir" || base == "my_init" || base == "runit" || base == "runsvdir-start":
	default:
		return false
	}
	return true
}

func (c *checker) isDir(p string) bool {
	node, err := c.fs.Stat(p)
	return err == nil && node.Type == rootfs.Dir
}

// serviceDirs follows the run script of each service directory under dirs
// (s6's and runit's layout: DIR/NAME/run). An s6-rc service is followed
// only when its type is longrun.
func (c *checker) serviceDirs(supervisor string, depth int, dirs ...string) {
	if c.accounts == "" {
		// s6-overlay's cont-init.d and oneshots, my_init's my_init.d, run
		// before the services and often add or renumber their user.
		c.accounts = supervisor + " runs init scripts before its services, which may change the accounts"
	}
	followed := 0
	for _, dir := range dirs {
		node, err := c.fs.Stat(dir)
		if err != nil || node.Type != rootfs.Dir {
			continue
		}
		for _, name := range node.Children() {
			service := path.Join(dir, name)
			if strings.HasSuffix(dir, "s6-rc.d") {
				kind, ok := c.serviceText(path.Join(service, "type"))
				if !ok || strings.TrimSpace(string(kind)) != "longrun" {
					continue
				}
			}
			run := path.Join(service, "run")
			if runNode, err := c.fs.Stat(run); err != nil || runNode.Type != rootfs.Regular {
				continue
			}
			if followed == maxServices {
				c.analysis.Unchecked = append(c.analysis.Unchecked, fmt.Sprintf("%s: more than %d services, the rest not followed", supervisor, maxServices))
				return
			}
			followed++
			c.start(Hop{Script: service, Program: run, Exec: true}, []string{run}, depth)
		}
	}
}

// supervisord follows each [program:x] command of supervisord's
// configuration.
func (c *checker) supervisord(resolved string, argv []string, depth int) {
	conf := ""
	for i := 1; i < len(argv); i++ {
		arg := argv[i]
		switch {
		case (arg == "-c" || arg == "--configuration") && i+1 < len(argv):
			conf = argv[i+1]
		case strings.HasPrefix(arg, "--configuration="):
			conf = strings.TrimPrefix(arg, "--configuration=")
		case strings.HasPrefix(arg, "-c") && len(arg) > 2:
			conf = arg[2:]
		}
	}
	if conf == "" {
		here := path.Dir(path.Dir(resolved))
		for _, candidate := range append([]string{path.Join(here, "etc", "supervisord.conf"), path.Join(here, "supervisord.conf")}, supervisorDefaults...) {
			if node, err := c.fs.Stat(c.absolute(candidate)); err == nil && node.Type == rootfs.Regular {
				conf = candidate
				break
			}
		}
		if conf == "" {
			c.analysis.Unchecked = append(c.analysis.Unchecked, resolved+": no supervisord.conf where supervisord looks for it, its programs not followed")
			return
		}
	}
	files := 0
	programs := 0
	var read func(file string, depth int)
	read = func(file string, includeDepth int) {
		if files == maxServiceFiles {
			c.analysis.Unchecked = append(c.analysis.Unchecked, fmt.Sprintf("%s: more than %d supervisord configuration files, the rest not read", resolved, maxServiceFiles))
			return
		}
		files++
		text, ok := c.serviceText(file)
		if !ok {
			return
		}
		sections := parseINI(text)
		for _, section := range sections {
			name, isProgram := strings.CutPrefix(section.name, "program:")
			switch {
			case isProgram:
				if programs == maxServices {
					c.analysis.Unchecked = append(c.analysis.Unchecked, fmt.Sprintf("%s: more than %d supervisord programs, the rest not followed", file, maxServices))
					return
				}
				programs++
				c.supervisorProgram(file, name, section, depth)
			case section.name == "include" && includeDepth < maxIncludeDepth:
				for _, pattern := range strings.Fields(section.value("files").text) {
					if !strings.HasPrefix(pattern, "/") {
						pattern = path.Join(path.Dir(file), pattern)
					}
					for _, included := range c.glob(pattern) {
						read(included, includeDepth+1)
					}
				}
			}
		}
	}
	read(c.absolute(conf), 0)
}

// serviceText reads a configuration file, asking for it when it was not
// captured.
func (c *checker) serviceText(file string) ([]byte, bool) {
	node, resolved, err := c.fs.Resolve(file, true)
	if err != nil || node.Type != rootfs.Regular {
		c.analysis.Unchecked = append(c.analysis.Unchecked, file+": not in the image, the programs it names not followed")
		return nil, false
	}
	facts := c.img.Facts(node)
	if facts == nil || facts.Text == nil {
		if node.Size <= maxServiceConfSize {
			c.analysis.Needs = append(c.analysis.Needs, node)
		}
		c.analysis.Unchecked = append(c.analysis.Unchecked, resolved+": content not read, the programs it names not followed")
		return nil, false
	}
	return facts.Text, true
}

// glob expands a pattern's last element in its directory, sorted.
func (c *checker) glob(pattern string) []string {
	dir, base := path.Split(pattern)
	node, err := c.fs.Stat(dir)
	if err != nil || node.Type != rootfs.Dir {
		return nil
	}
	var out []string
	for _, name := range node.Children() {
		if matched, _ := path.Match(base, name); matched {
			out = append(out, path.Join(dir, name))
		}
	}
	slices.Sort(out)
	return out
}

// supervisorProgram follows one [program:x] section's command.
func (c *checker) supervisorProgram(file, name string, section iniSection, depth int) {
	if autostart := strings.ToLower(section.value("autostart").text); autostart == "false" || autostart == "0" || autostart == "no" || autostart == "off" {
		return
	}
	command := section.value("command")
	if command.text == "" {
		return
	}
	expand := func(value string) (string, bool) {
		return c.supervisorExpand(value, file, name)
	}
	text, ok := expand(command.text)
	if !ok {
		c.analysis.Unchecked = append(c.analysis.Unchecked, fmt.Sprintf("%s line %d: program %s's command uses an expansion not followed", file, command.line, name))
		return
	}
	argv, ok := splitWords(text)
	if !ok || len(argv) == 0 {
		c.analysis.Unchecked = append(c.analysis.Unchecked, fmt.Sprintf("%s line %d: program %s's command does not split into words", file, command.line, name))
		return
	}
	hop := Hop{Script: file, Line: command.line, Program: argv[0], Exec: true}
	if dir, ok := expand(section.value("directory").text); ok && dir != "" {
		hop.Dir = dir
	}
	if env, ok := expand(section.value("environment").text); ok && env != "" {
		hop.Env = supervisorEnv(env)
	}
	if user := section.value("user"); user.text != "" {
		sw := shell.Switch{Wrapper: "supervisord", Line: user.line}
		if sw.User, ok = expand(user.text); !ok {
			sw.Unknown = fmt.Sprintf("%s line %d: program %s's user uses an expansion not followed", file, user.line, name)
		}
		hop.Switches = []shell.Switch{sw}
	}
	c.start(hop, argv, depth)
}

// supervisorExpand fills in the %(name)s expansions supervisord knows of a
// program: ENV_X, here, program_name, process_num, group_name.
func (c *checker) supervisorExpand(value, file, program string) (string, bool) {
	var out strings.Builder
	for {
		start := strings.Index(value, "%(")
		if start < 0 {
			out.WriteString(value)
			return out.String(), true
		}
		end := strings.IndexByte(value[start:], ')')
		if end < 0 || start+end+1 >= len(value) {
			return "", false
		}
		out.WriteString(value[:start])
		key := value[start+2 : start+end]
		rest := value[start+end+1:]
		// the conversion: s, d, or a width such as 02d
		conv := strings.IndexAny(rest, "sd")
		if conv < 0 || strings.Trim(rest[:conv], "0123456789") != "" {
			return "", false
		}
		rest = rest[conv+1:]
		switch {
		case strings.HasPrefix(key, "ENV_"):
			v, ok := Lookup(c.spec.Env, strings.TrimPrefix(key, "ENV_"))
			if !ok {
				return "", false
			}
			out.WriteString(v)
		case key == "here":
			out.WriteString(path.Dir(file))
		case key == "program_name" || key == "group_name":
			out.WriteString(program)
		case key == "process_num":
			out.WriteString("0")
		default:
			return "", false
		}
		value = rest
	}
}

// supervisorEnv reads environment=KEY="value",KEY2=value2.
func supervisorEnv(value string) []string {
	var env []string
	var current strings.Builder
	quote := byte(0)
	flush := func() {
		if pair := strings.TrimSpace(current.String()); strings.Contains(pair, "=") {
			env = append(env, pair)
		}
		current.Reset()
	}
	for i := 0; i < len(value); i++ {
		ch := value[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote == 0 && (ch == '"' || ch == '\''):
			quote = ch
		case quote == 0 && ch == ',':
			flush()
		default:
			current.WriteByte(ch)
		}
	}
	flush()
	return env
}

// splitWords splits a command line as Python's shlex.split does, which
// supervisord uses: blanks separate words, quotes and backslashes escape.
func splitWords(line string) ([]string, bool) {
	var words []string
	var word strings.Builder
	inWord := false
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			} else {
				word.WriteByte(ch)
			}
		case quote == '"':
			switch {
			case ch == '"':
				quote = 0
			case ch == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\'):
				i++
				word.WriteByte(line[i])
			default:
				word.WriteByte(ch)
			}
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
		case ch == '\\':
			if i+1 >= len(line) {
				return nil, false
			}
			i++
			word.WriteByte(line[i])
			inWord = true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, true
}

// iniSection is one [section] of an INI file.
type iniSection struct {
	name   string
	values []iniValue
}

type iniValue struct {
	key, text string
	line      int
}

// value is a key's value (the last one set), zero when unset.
func (s iniSection) value(key string) iniValue {
	for i := len(s.values) - 1; i >= 0; i-- {
		if s.values[i].key == key {
			return s.values[i]
		}
	}
	return iniValue{}
}

// Bounds on one INI file: sections and values kept.
const (
	maxINISections = 256
	maxINIValues   = 4096
)

// parseINI reads an INI file as Python's configparser does for supervisord:
// [section] headers, key = value or key: value, ; and # comment lines, an
// inline comment after " ;", indented lines continuing a value.
func parseINI(text []byte) []iniSection {
	var sections []iniSection
	values := 0
	var current *iniSection
	last := -1 // the value an indented line continues
	for number, line := range strings.Split(string(text), "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || trimmed[0] == ';' || trimmed[0] == '#':
			last = -1
		case (line[0] == ' ' || line[0] == '\t') && current != nil && last >= 0:
			if len(current.values[last].text) < maxServiceConfSize {
				current.values[last].text += " " + trimmed
			}
		case trimmed[0] == '[':
			end := strings.IndexByte(trimmed, ']')
			if end < 0 || len(sections) == maxINISections {
				current, last = nil, -1
				continue
			}
			sections = append(sections, iniSection{name: strings.TrimSpace(trimmed[1:end])})
			current, last = &sections[len(sections)-1], -1
		case current != nil && values < maxINIValues:
			separator := strings.IndexAny(trimmed, "=:")
			if separator <= 0 {
				last = -1
				continue
			}
			value := strings.TrimSpace(trimmed[separator+1:])
			if comment := strings.Index(value, " ;"); comment >= 0 {
				value = strings.TrimSpace(value[:comment])
			}
			current.values = append(current.values, iniValue{key: strings.ToLower(strings.TrimSpace(trimmed[:separator])), text: value, line: number + 1})
			values++
			last = len(current.values) - 1
		}
	}
	return sections
}
