package rules

import (
	"fmt"
	"strings"

	"github.com/modellint/modellint/lint/image/launch"
)

// The words of the start-path findings (MDL301–MDL305): launch says what
// stops a container's start, these functions say it to the user, quoting
// the error the runtime, the shell or the loader prints.

// problemPath is the path a start-path finding names. A PATH lookup that
// found only files the user may not run names the first, with its mode.
func problemPath(p launch.Problem) string {
	if p.Reason == launch.InPathNotExecutable && len(p.Candidates) > 0 {
		return candidateText(p.Candidates[0])
	}
	return p.Path
}

// problemDetail says what is wrong, in words that fit after problemPath.
func problemDetail(p launch.Problem) string {
	switch p.Relation {
	case launch.ShebangInterpreter:
		return "(its #! interpreter of " + p.Of + ") " + reasonDetail(p)
	case launch.EnvLookup:
		return "(/usr/bin/env in its #! line looks up of " + p.Of + ") " + reasonDetail(p)
	}
	return reasonDetail(p)
}

func reasonDetail(p launch.Problem) string {
	if p.ExecBy != "" {
		if detail := execlineDetail(p); detail != "" {
			return detail
		}
	}
	switch p.Reason {
	case launch.NoCommand:
		return "neither the manifest nor the image sets a command (no command/args, ENTRYPOINT or CMD): the runtime fails " +
			"with \"no command specified\""
	case launch.Missing:
		return "does not exist in the image"
	case launch.MissingParent:
		return "does not exist in the image (" + p.At + " is missing)"
	case launch.ParentNotDirectory:
		return "does not exist: " + p.At + " is not a directory"
	case launch.SymlinkLoop:
		return "is a symlink loop (" + p.At + "): \"too many levels of symbolic links\""
	case launch.IsDirectory:
		return "is a directory, not a program"
	case launch.NotRegularFile:
		return fmt.Sprintf("is a %s, not a program", p.Type)
	case launch.ParentNotSearchable:
		reached := fmt.Sprintf("cannot be reached by %s: directory %s has mode %s (owner %d:%d)", p.User, p.At, p.Mode, p.UID, p.GID)
		if p.ByShell {
			// The shell cannot stat the file, so it is not the file's mode it
			// reports: bash says it did not find the command, dash keeps the
			// EACCES of the lookup.
			return fmt.Sprintf("%s, so the shell does not find it: bash fails with \"%s: command not found\", dash with "+
				"\"%s: Permission denied\" (exit 127)", reached, p.Name, p.Name)
		}
		return reached
	case launch.NoExecuteBit:
		if p.ByShell {
			return fmt.Sprintf("has mode %s (owner %d:%d): no execute bit for %s, so the shell fails with \"%s: Permission "+
				"denied\" (exit 126)", p.Mode, p.UID, p.GID, p.User, p.Name)
		}
		return fmt.Sprintf("has mode %s (owner %d:%d): no execute bit for %s, so exec fails with \"permission denied\"",
			p.Mode, p.UID, p.GID, p.User)
	case launch.NotInPath:
		if p.ByShell {
			return fmt.Sprintf("is not in any $PATH directory of the image (PATH=%s): the shell fails with \"%s: command not "+
				"found\" (exit 127)", p.PathValue, p.Name)
		}
		return fmt.Sprintf("is not in any $PATH directory of the image (PATH=%s): the runtime fails with \"executable file "+
			"not found in $PATH\"", p.PathValue)
	case launch.InPathNotExecutable:
		candidates := make([]string, len(p.Candidates))
		for i, candidate := range p.Candidates {
			candidates[i] = candidateText(candidate)
		}
		return fmt.Sprintf("is in $PATH but not executable for %s, so the runtime skips it and fails with \"executable file "+
			"not found in $PATH\" (candidates: %s)", p.User, strings.Join(candidates, ", "))
	case launch.ShellScriptMissing:
		return fmt.Sprintf("is the script the shell is told to run, and it is not in the image: the shell fails with \"%s: No "+
			"such file or directory\" (exit 127)", p.Name)
	case launch.EmptyFile:
		return "is an empty file: exec fails with \"exec format error\""
	case launch.UnknownFormat:
		return "is neither an ELF binary nor a script with a #! line: exec fails with \"exec format error\"; add a shebang " +
			"line or point the command at an interpreter"
	case launch.EmptyShebang:
		return "has an empty #! line: exec fails with \"exec format error\""
	case launch.CRLFShebang:
		// The carriage return is written \r so the reader sees it.
		shown := strings.TrimSuffix(p.Interpreter, "\r") + `\r`
		return fmt.Sprintf("has Windows line endings: its #! line names %q (with a trailing carriage return), which does "+
			"not exist, so exec fails with \"no such file or directory\"; convert it to LF (dos2unix, or .gitattributes "+
			"`*.sh text eol=lf`)", shown)
	case launch.TooManyInterpreters:
		return fmt.Sprintf("starts a chain of more than %d #! interpreters: exec fails with ELOOP", launch.MaxInterpreterDepth)
	case launch.LoaderMissing:
		return fmt.Sprintf("is the loader %s was linked for (PT_INTERP), and it is not in the image: exec fails with \"no "+
			"such file or directory\" although the binary exists%s", p.Of, loaderHint(p.Path, p.Loaders))
	case launch.LibraryNotFound:
		return fmt.Sprintf("needs %s, which is in none of the directories the loader searches (%s): the process fails "+
			"with \"error while loading shared libraries: %s: cannot open shared object file\"",
			p.Library, strings.Join(p.Searched, ":"), p.Library)
	case launch.VersionNotDefined:
		return fmt.Sprintf("needs %s from %s, but the image's %s (%s) defines versions only up to %s: the process fails "+
			"with \"%s: version `%s' not found (required by %s)\"", strings.Join(p.Missing, ", "), p.Library, p.LibraryPath,
			p.LibraryLayer, newestDefined(p), p.LibraryPath, p.Missing[len(p.Missing)-1], p.Path)
	case launch.UserSwitchFails:
		return fmt.Sprintf("cannot switch %s to %s: %s", p.User, p.Name, p.Switch)
	case launch.MachineMismatch:
		return fmt.Sprintf("is built for %s (%s) but the nodes are %s: exec fails with \"exec format error\"",
			launch.ArchOfMachine(p.Machine), p.Machine, p.Arch)
	}
	return "cannot be started"
}

// candidateText is a file found in PATH with its mode and owner.
func candidateText(c launch.Candidate) string {
	return fmt.Sprintf("%s (%s, owner %d:%d)", c.Path, c.Mode, c.UID, c.GID)
}

// loaderHint names the loaders the image has instead of the missing one,
// and what a glibc loader on a musl image (or the reverse) means.
func loaderHint(missing string, present []string) string {
	if len(present) == 0 {
		return ""
	}
	hint := "; the image has " + strings.Join(present, ", ")
	switch {
	case strings.Contains(missing, "ld-linux") && strings.Contains(present[0], "musl"):
		hint += ": a glibc binary on a musl (Alpine) image — build it for musl, link it statically, or use a glibc base image"
	case strings.Contains(missing, "musl") && strings.Contains(present[0], "ld-linux"):
		hint += ": a musl binary on a glibc image — build it for glibc or link it statically"
	}
	return hint
}

// newestDefined is the newest version the library defines of the family
// the binary needs (GLIBC_2.31), or says it defines none of them.
func newestDefined(p launch.Problem) string {
	if p.Newest != "" {
		return p.Newest
	}
	family, _, _ := strings.Cut(p.Missing[0], "_")
	return "none of " + family + "_*"
}

// uncheckedReasons are what the replayed start could not check, in the
// order it met them: facts it lacked, and the problems of branches a
// wrapper script may not take.
func uncheckedReasons(analysis *launch.Analysis) []string {
	var reasons []string
	next := 0
	for _, branch := range analysis.NotTaken {
		reasons = append(reasons, analysis.Unchecked[next:branch.AfterUnchecked]...)
		next = branch.AfterUnchecked
		reasons = append(reasons, fmt.Sprintf("%s may also run %s, which %s (not reported: another branch starts)",
			branch.Script, problemPath(branch.Problem), problemDetail(branch.Problem)))
	}
	return append(reasons, analysis.Unchecked[next:]...)
}

// execlineDetail says how the program that execs another fails to: a run
// script's execline program as execvp does, reported with skalibs'
// "unable to exec" (strerr_dieexec), or a wrapper given the program in
// its argv (gosu, su-exec …) in its own words; "" for a reason it does
// not change.
func execlineDetail(p launch.Problem) string {
	fails := func(why string) string {
		return execFailure(p.ExecBy, p.Name, why, p.Reason)
	}
	switch p.Reason {
	case launch.Missing, launch.MissingParent:
		return "does not exist in the image: " + fails("No such file or directory")
	case launch.NotInPath:
		return fmt.Sprintf("is not in any $PATH directory of the image (PATH=%s): %s", p.PathValue, fails("No such file or directory"))
	case launch.InPathNotExecutable:
		candidates := make([]string, len(p.Candidates))
		for i, candidate := range p.Candidates {
			candidates[i] = candidateText(candidate)
		}
		return fmt.Sprintf("is in $PATH but not executable for %s: %s (candidates: %s)", p.User, fails("Permission denied"),
			strings.Join(candidates, ", "))
	case launch.NoExecuteBit:
		return fmt.Sprintf("has mode %s (owner %d:%d): no execute bit for %s, so %s", p.Mode, p.UID, p.GID, p.User, fails("Permission denied"))
	case launch.ParentNotSearchable:
		return fmt.Sprintf("cannot be reached by %s: directory %s has mode %s (owner %d:%d), so %s", p.User, p.At, p.Mode, p.UID, p.GID,
			fails("Permission denied"))
	}
	return ""
}

// execFailure is the error with which execBy fails to exec name for
// reason, why being the C library's strerror.
func execFailure(execBy, name, why string, reason launch.Reason) string {
	var message string
	switch execBy {
	case "gosu":
		// Go's exec.LookPath, before it execs (tianon/gosu main.go): a
		// path is stat'ed, then checked with eaccess(X_OK).
		goWhy := strings.ToLower(why)
		switch reason {
		case launch.NotInPath, launch.InPathNotExecutable:
			goWhy = "executable file not found in $PATH"
		case launch.Missing, launch.MissingParent, launch.ParentNotSearchable:
			goWhy = "stat " + name + ": " + goWhy
		}
		message = fmt.Sprintf("error: exec: %q: %s", name, goWhy)
	case "su-exec":
		message = fmt.Sprintf("su-exec: %s: %s", name, why) // err(1, "%s", argv[0]) after execvp (su-exec.c)
	case "setpriv", "runuser":
		message = fmt.Sprintf("%s: failed to execute %s: %s", execBy, name, why) // util-linux errexec
	case "chroot":
		message = fmt.Sprintf("chroot: failed to run command '%s': %s", name, why) // coreutils chroot.c, in the C locale
	case "env", "tini", "dumb-init", "nohup", "nice", "stdbuf", "timeout", "command":
		return fmt.Sprintf("%s cannot exec it (%s)", execBy, why)
	default:
		message = fmt.Sprintf("%s: fatal: unable to exec %s: %s", execBy, name, why)
	}
	return fmt.Sprintf("%s fails with \"%s\"", execBy, message)
}
