package launch

import (
	"path"

	"github.com/modellint/modellint/lint/image/launch/shell"
)

// CommandString is the string of a `sh -c STRING [NAME [ARGS…]]` argv,
// read the way the start path reads it.
func CommandString(argv []string) (command, name string, args []string, ok bool) {
	if len(argv) == 0 || !shell.IsShell(path.Base(argv[0])) {
		return "", "", nil, false
	}
	command, name, args, file, ok := ShellOperands(argv)
	return command, name, args, ok && file == ""
}
