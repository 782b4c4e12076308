package launch

import (
	"fmt"
	"path"
	"strings"

	"github.com/modellint/modellint/lint/image/launch/shell"
)

// An execline script (s6 and s6-overlay run scripts: #!/command/execlineb
// -P) is one command line that execlineb builds from the file and execs
// into (https://skarnet.org/software/execline/execlineb.html). Each
// program of it is a chain-loader that does one thing (moves a file
// descriptor, drops privileges) and execs into the rest: the last one is
// the service's program. Only the simple shape is read: words, "quoted
// strings", comments; no { } blocks and no $ substitutions, which are
// recorded as not followed.

// ExeclineWord is one word of an execline script and the line it is on.
type ExeclineWord struct {
	Text string
	Line int
}

// maxExeclineWords bounds the words read of one script: run scripts have
// a dozen.
const maxExeclineWords = 4096

// ParseExecline splits an execline script into its words as execlineb
// does for the simple shape: words are separated by blanks and newlines;
// # at the start of a word comments out the rest of the line (the #!
// line with it); a double-quoted string is one word, where \" \\ \n \t
// and a backslash before a newline are the escapes read. A { } block, a $
// substitution, a backslash outside quotes or another escape is an error
// that says so.
func ParseExecline(text []byte) ([]ExeclineWord, error) {
	var words []ExeclineWord
	line := 1
	for i := 0; i < len(text); {
		ch := text[i]
		switch {
		case ch == '\n':
			line++
			i++
			continue
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
			continue
		case ch == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		}
		if len(words) == maxExeclineWords {
			return nil, fmt.Errorf("more than %d words", maxExeclineWords)
		}
		start := line
		var word strings.Builder
		for i < len(text) && !blank(text[i]) {
			ch := text[i]
			switch ch {
			case '"':
				end, err := readQuoted(text, i+1, &word, &line)
				if err != nil {
					return nil, fmt.Errorf("line %d: %w", start, err)
				}
				i = end
				continue
			case '{', '}':
				return nil, fmt.Errorf("line %d: a { } block", line)
			case '$':
				return nil, fmt.Errorf("line %d: a $ substitution", line)
			case '\\':
				return nil, fmt.Errorf("line %d: a backslash outside a quoted string", line)
			}
			word.WriteByte(ch)
			i++
		}
		words = append(words, ExeclineWord{Text: word.String(), Line: start})
	}
	return words, nil
}

func blank(ch byte) bool { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' }

// readQuoted reads a quoted string from after its opening quote into
// word, and returns the index after its closing quote.
func readQuoted(text []byte, i int, word *strings.Builder, line *int) (int, error) {
	for ; i < len(text); i++ {
		ch := text[i]
		switch ch {
		case '"':
			return i + 1, nil
		case '$':
			return 0, fmt.Errorf("a $ substitution")
		case '\n':
			*line++
		case '\\':
			if i+1 >= len(text) {
				return 0, fmt.Errorf("an unclosed quoted string")
			}
			i++
			switch text[i] {
			case '"', '\\':
				word.WriteByte(text[i])
			case 'n':
				word.WriteByte('\n')
			case 't':
				word.WriteByte('\t')
			case '\n':
				*line++ // a line continued: nothing is added
			default:
				return 0, fmt.Errorf("the escape \\%c in a quoted string", text[i])
			}
			continue
		}
		word.WriteByte(ch)
	}
	return 0, fmt.Errorf("an unclosed quoted string")
}

// chainLoader is the grammar of a program that does one thing and execs
// into the rest of its argv: the options that take an argument and those
// that do not (getopt letters), then how many operands come before the
// program.
type chainLoader struct {
	flags, valued string
	operands      int
}

// chainLoaders are the chain-loading programs of execline, s6 and
// s6-overlay that run scripts put before the program, with their
// interfaces as documented:
//
//	exec [ -c ] [ -l ] [ -a argv0 ] prog...            https://skarnet.org/software/execline/exec.html
//	cd dir prog...                                     https://skarnet.org/software/execline/cd.html
//	export var value prog...                           https://skarnet.org/software/execline/export.html
//	umask mask prog...                                 https://skarnet.org/software/execline/umask.html
//	fdmove [ -c ] fdto fdfrom prog...                  https://skarnet.org/software/execline/fdmove.html
//	fdclose fd prog...                                 https://skarnet.org/software/execline/fdclose.html
//	fdswap fd1 fd2 prog...                             https://skarnet.org/software/execline/fdswap.html
//	redirfd [ -r|-w|-u|-a|-c|-x ] [ -n ] [ -b ] fd file prog...
//	                                                   https://skarnet.org/software/execline/redirfd.html
//	s6-setuidgid account prog...                       https://skarnet.org/software/s6/s6-setuidgid.html
//	s6-applyuidgid [ -z ] [ -u uid ] [ -g gid ] [ -G gidlist ] [ -U ] prog...
//	                                                   https://skarnet.org/software/s6/s6-applyuidgid.html
//	s6-envdir [ -I|-i ] [ -n ] [ -f ] [ -L ] [ -c nullis ] dir prog...
//	                                                   https://skarnet.org/software/s6/s6-envdir.html
//	s6-notifyoncheck [ -d ] [ -3 notiffd ] [ -s initialsleep ] [ -T globaltimeout ] [ -t localtimeout ]
//	  [ -w waitingtime ] [ -n n ] [ -c checkprog ] prog...
//	                                                   https://skarnet.org/software/s6/s6-notifyoncheck.html
//	with-contenv prog...                               https://github.com/just-containers/s6-overlay#container-environment
var chainLoaders = map[string]chainLoader{
	"exec":             {flags: "cl", valued: "a"},
	"cd":               {operands: 1},
	"export":           {operands: 2},
	"umask":            {operands: 1},
	"fdmove":           {flags: "c", operands: 2},
	"fdclose":          {operands: 1},
	"fdswap":           {operands: 2},
	"redirfd":          {flags: "rwuacxnb", operands: 2},
	"s6-setuidgid":     {operands: 1},
	"s6-applyuidgid":   {flags: "zU", valued: "ugG"},
	"s6-envdir":        {flags: "IinfL", valued: "c", operands: 1},
	"s6-notifyoncheck": {flags: "d", valued: "3sTtwnc"},
	"with-contenv":     {},
}

// unfollowed are the execline and s6 programs a script may run that are
// not peeled: blocks, substitutions, conditionals, other environment
// changes. A script that runs one is not followed past it.
var unfollowed = map[string]bool{
	"background": true, "backtick": true, "define": true, "dollarat": true, "elgetopt": true, "elgetpositionals": true,
	"elglob": true, "emptyenv": true, "envfile": true, "exit": true, "fdblock": true, "fdreserve": true,
	"forbacktickx": true, "foreground": true, "forstdin": true, "forx": true, "getcwd": true, "getpid": true,
	"heredoc": true, "homeof": true, "if": true, "ifelse": true, "ifte": true, "ifthenelse": true, "importas": true,
	"loopwhilex": true, "multidefine": true, "multisubstitute": true, "pipeline": true, "piperw": true, "runblock": true,
	"shift": true, "trap": true, "tryexec": true, "unexport": true, "wait": true, "withstdinas": true,
	"s6-envuidgid": true, "s6-softlimit": true, "s6-setsid": true,
}

// peelExecline takes the chain-loaders off the front of an execline
// script's words and returns the program it ends up execing into, with
// the directory and the variables they set on the way, and the program
// that execs it (the last chain-loader, or execlineb); reason says why it
// could not (a program not followed, a chain-loader's argv cut short).
func peelExecline(words []ExeclineWord) (command shell.Command, execBy, reason string) {
	command.Exec = true
	execBy = "execlineb"
	for len(words) > 0 {
		name := path.Base(words[0].Text)
		loader, known := chainLoaders[name]
		if !known {
			if unfollowed[name] {
				return command, "", fmt.Sprintf("line %d runs %s, an execline or s6 program whose effect is not modelled", words[0].Line, name)
			}
			break
		}
		at := words[0].Line
		rest, options, values, operands, ok := loaderArguments(loader, words[1:])
		if !ok {
			return command, "", fmt.Sprintf("line %d: %s is not given the options and operands it takes before the program", at, name)
		}
		switch name {
		case "cd":
			command.Dir = operands[0]
			if !strings.HasPrefix(command.Dir, "/") && command.Dir != "" {
				return command, "", fmt.Sprintf("line %d: cd to the relative directory %s", at, command.Dir)
			}
		case "export":
			command.Env = append(command.Env, operands[0]+"="+operands[1])
		case "s6-envdir":
			command.Tainted = append(command.Tainted, fmt.Sprintf("line %d: s6-envdir sets variables from the files of %s", at, operands[0]))
		case "s6-setuidgid":
			if operands[0] != "" { // an empty account changes nothing
				command.Switches = append(command.Switches, shell.Switch{Wrapper: name, Line: at, User: operands[0]})
			}
		case "s6-applyuidgid":
			sw := shell.Switch{Wrapper: name, Line: at, User: values['u'], Group: values['g']}
			if list, given := values['G']; given {
				sw.SetGroups = true
				if list != "" {
					sw.Groups = strings.Split(list, ",")
				}
			}
			if strings.Contains(options, "U") {
				// -U takes the ids from the environment s6-envuidgid sets;
				// -u, -g or -G after it win.
				sw = shell.Switch{Wrapper: name, Line: at, Unknown: fmt.Sprintf("line %d: s6-applyuidgid -U takes the ids from $UID, $GID and $GIDLIST", at)}
			}
			command.Switches = append(command.Switches, sw)
		case "exec":
			if strings.Contains(options, "c") {
				command.Tainted = append(command.Tainted, fmt.Sprintf("line %d: exec -c empties the environment", at))
			}
		}
		words, execBy = rest, name
	}
	if len(words) == 0 {
		return command, "", "it runs no program after its chain-loaders"
	}
	command.Line = words[0].Line
	for _, word := range words {
		command.Argv = append(command.Argv, word.Text)
	}
	return command, execBy, ""
}

// loaderArguments reads a chain-loader's options (getopt style, as
// skalibs' subgetopt: letters grouped, an option's argument attached or
// the next word, -- ending them) and operands: options are the letters
// given, values the argument of each option that takes one (the last
// given), and rest starts at the program.
func loaderArguments(loader chainLoader, words []ExeclineWord) (rest []ExeclineWord, options string, values map[byte]string, operands []string, ok bool) {
	i := 0
	values = map[byte]string{}
options:
	for i < len(words) {
		word := words[i].Text
		if word == "--" {
			i++
			break
		}
		if len(word) < 2 || word[0] != '-' {
			break
		}
		for j := 1; j < len(word); j++ {
			options += word[j : j+1]
			switch {
			case strings.IndexByte(loader.flags, word[j]) >= 0:
			case strings.IndexByte(loader.valued, word[j]) >= 0:
				values[word[j]] = word[j+1:]
				if j == len(word)-1 {
					i++ // the argument is the next word
					if i >= len(words) {
						return nil, "", nil, nil, false
					}
					values[word[j]] = words[i].Text
				}
				i++
				continue options
			default:
				return nil, "", nil, nil, false
			}
		}
		i++
	}
	if len(words)-i < loader.operands {
		return nil, "", nil, nil, false
	}
	for _, word := range words[i : i+loader.operands] {
		operands = append(operands, word.Text)
	}
	return words[i+loader.operands:], options, values, operands, true
}

// IsExecline says a script's #! line names execlineb.
func IsExecline(head []byte) bool {
	shebang, ok := ParseShebang(head)
	return ok && path.Base(shebang.Interpreter) == "execlineb"
}
