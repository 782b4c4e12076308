package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/launch/python"
)

// The words of the program findings (MDL320–MDL322): python says what the
// interpreter would fail to load, these say it to the user with the error
// the interpreter or the app server prints.

// programSubject names what the finding is about.
func programSubject(p python.Problem) string {
	if p.Kind == python.ImportMissing {
		subject := fmt.Sprintf("%s line %d", p.Path, p.Line)
		if p.Importer != "" {
			subject += " (imported by " + p.Importer + ")"
		}
		return subject
	}
	shown := "`" + commandLine(p) + "`: "
	if p.ServeApp != "" {
		shown = fmt.Sprintf("Ray Serve application %q (serveConfigV2 import_path %s): ", p.ServeApp, importPath(p))
	}
	switch {
	case p.Kind == python.ModuleMissing:
		return shown + "module " + p.Target
	case p.Store:
		return fmt.Sprintf("%s%s (%s in the model store %s)", shown, p.Path, p.Target, p.WorkingDir)
	case p.Target != p.Path && !strings.HasPrefix(p.Target, "/"):
		return fmt.Sprintf("%s%s (%s from the working dir %s)", shown, p.Path, p.Target, p.WorkingDir)
	}
	return shown + p.Path
}

// interpreterText names the Python that runs: "Python 3.11 at
// /opt/venv/bin/python (venv /opt/venv)".
func interpreterText(in *python.Interpreter) string {
	if in == nil {
		return ""
	}
	text := "Python " + in.Version + " at " + in.Executable
	if in.Venv != "" {
		text += " (venv " + in.Venv + ")"
	}
	return text
}

// searchedText lists the import path searched, at most eight entries.
func searchedText(entries []string) string {
	if len(entries) > 8 {
		return strings.Join(entries[:8], ", ") + fmt.Sprintf(" and %d more", len(entries)-8)
	}
	return strings.Join(entries, ", ")
}

func programDetail(p python.Problem) string {
	switch p.Kind {
	case python.FileMissing:
		return fileDetail(p)
	case python.ModuleMissing:
		return moduleDetail(p)
	}
	return importDetail(p)
}

func fileDetail(p python.Problem) string {
	instead := ""
	if len(p.Siblings) > 0 {
		names := make([]string, len(p.Siblings))
		for i, sibling := range p.Siblings {
			names[i] = path.Base(sibling)
		}
		instead = fmt.Sprintf(" (%s holds %s)", path.Dir(p.Path), strings.Join(names, ", "))
	}
	missing := "is not in the image" + instead
	switch {
	case p.Reason == python.Unreadable:
		return fmt.Sprintf("%s: python fails at once with \"%s: can't open file '%s': [Errno 13] Permission denied\" (exit 2)",
			deniedText(p), p.Program, p.Path)
	case p.Reason == python.NoMain:
		return fmt.Sprintf("is a directory without __main__.py: python fails at once with \"%s: can't find '__main__' module in '%s'\" (exit 1)",
			p.Program, p.Path)
	case p.Interpreter != nil && p.Tool != "fastapi" && p.Tool != "serve" && p.Tool != "streamlit":
		return fmt.Sprintf("%s: python fails at once with \"%s: can't open file '%s': [Errno 2] No such file or directory\" (exit 2)",
			missing, p.Program, p.Path)
	case p.Tool == "node" || p.Tool == "nodejs":
		return fmt.Sprintf("%s: node fails at once with \"Error: Cannot find module '%s'\" (exit 1)", missing, p.Path)
	case p.Tool == "java":
		return fmt.Sprintf("%s: java fails at once with \"Error: Unable to access jarfile %s\" (exit 1)", missing, p.Target)
	case p.Tool == "torchserve":
		return fmt.Sprintf("%s: TorchServe fails to register the model (\"Model not found in model store: %s\") and its endpoints answer 404", missing, p.Target)
	case p.Tool == "streamlit":
		return fmt.Sprintf("%s: streamlit exits with \"Error: Invalid value: File does not exist: %s\" (exit 2)", missing, p.Target)
	case p.Tool == "fastapi":
		return fmt.Sprintf("%s: fastapi run exits before serving, with \"Path does not exist %s\"", missing, p.Target)
	}
	return missing + ": serve run exits before deploying the application"
}

// attrFailure is how the server fails when the app module lacks ATTR.
func attrFailure(p python.Problem) string {
	switch p.Tool {
	case "uvicorn":
		return fmt.Sprintf("\"Error loading ASGI app. Attribute \\\"%s\\\" not found in module \\\"%s\\\".\" (exit 1)", p.Attr, p.Target)
	case "gunicorn":
		return fmt.Sprintf("\"Failed to find attribute '%s' in '%s'.\" (exit 4)", p.Attr, p.Target)
	case "celery":
		return fmt.Sprintf("\"Unable to load celery application. Module '%s' has no attribute '%s'\" (exit 2)", p.Target, p.Attr)
	}
	return fmt.Sprintf("\"AttributeError: module '%s' has no attribute '%s'\"", p.Target, p.Attr)
}

// attrTool names what loads ATTR from the app module.
func attrTool(p python.Problem) string {
	if p.ServeApp != "" {
		return "Ray Serve's deploy"
	}
	return p.Tool
}

func moduleDetail(p python.Problem) string {
	searched := fmt.Sprintf(" (%s searches %s)", interpreterText(p.Interpreter), searchedText(p.SysPath))
	abi := otherABIText(p)
	executable := p.Interpreter.Executable
	if p.Reason == python.AttrMissing {
		return fmt.Sprintf("is %s, which never mentions %s (no assignment, def, class or import of that name): %s fails with %s",
			p.Path, p.Attr, attrTool(p), attrFailure(p))
	}
	if p.Reason == python.NoMain {
		return fmt.Sprintf("is a package without __main__.py: python fails with \"%s: No module named %s; '%s' is a package and cannot "+
			"be directly executed\" (exit 1)", executable, p.Module, p.Target)
	}
	notFound := fmt.Sprintf("is on none of the import path%s%s", searched, abi)
	if p.Module != p.Target && !strings.HasPrefix(p.Target, p.Module+".") {
		notFound = fmt.Sprintf("needs %s, which is on none of the import path%s%s", p.Module, searched, abi)
	}
	if p.Reason == python.Unreadable {
		if !p.Denied.Entry {
			return fmt.Sprintf("is %s, which %s: %s", p.Path, deniedText(p), loadFailure(p))
		}
		notFound = fmt.Sprintf("is %s, but %s", p.Path, entryDeniedText(p))
	}
	switch p.Tool {
	case "uvicorn":
		return fmt.Sprintf("%s: uvicorn fails with \"Error loading ASGI app. Could not import module \\\"%s\\\".\" (exit 1)", notFound, p.Target)
	case "gunicorn":
		if strings.Contains(commandLine(p), p.Target+".") && !strings.Contains(commandLine(p), p.Target+":") {
			return fmt.Sprintf("%s: gunicorn fails with \"Error: class uri '%s' invalid or not found\" (exit 1)", notFound, workerClass(p))
		}
		return fmt.Sprintf("%s: every gunicorn worker fails with \"ModuleNotFoundError: No module named '%s'\" and \"Worker failed to boot.\" (exit 3)",
			notFound, p.Module)
	case "ray":
		if p.ServeApp == "" {
			return fmt.Sprintf("%s: the ray command fails with \"ModuleNotFoundError: No module named '%s'\" (exit 1), so the Ray node "+
				"never starts and the container restarts", notFound, topLevel(p.Module))
		}
		return fmt.Sprintf("%s: Ray Serve fails to deploy the application with \"ModuleNotFoundError: No module named '%s'\" and the "+
			"RayService never becomes ready (application status DEPLOY_FAILED)", notFound, p.Module)
	case "celery":
		return fmt.Sprintf("%s: celery exits with \"Error: Invalid value for '-A' / '--app': Unable to load celery application. The module %s "+
			"was not found.\" (exit 2)", notFound, p.Module)
	case "hypercorn", "serve":
		return fmt.Sprintf("%s: %s fails with \"ModuleNotFoundError: No module named '%s'\" (exit 1)", notFound, p.Tool, p.Module)
	}
	if p.Module != p.Target {
		return fmt.Sprintf("%s: python fails with \"%s: Error while finding module specification for '%s' (ModuleNotFoundError: No "+
			"module named '%s')\" (exit 1)", notFound, executable, p.Target, p.Module)
	}
	return fmt.Sprintf("%s: python fails with \"%s: No module named %s\" (exit 1)", notFound, executable, p.Module)
}

// importPath is a Ray Serve application's import_path.
func importPath(p python.Problem) string {
	if p.Attr == "" {
		return p.Target
	}
	return p.Target + ":" + p.Attr
}

// workerClass is the gunicorn -k word the module came from.
func workerClass(p python.Problem) string {
	if p.Word >= 0 && p.Word < len(p.Run.Argv) {
		word := p.Run.Argv[p.Word]
		if i := strings.Index(word, p.Target+"."); i >= 0 {
			return word[i:]
		}
	}
	return p.Target
}

// otherSiteText says where the image installed the missing module for
// another Python.
func otherSiteText(p python.Problem) string {
	if len(p.OtherSites) == 0 {
		return ""
	}
	other := p.OtherSites[0]
	dist := ""
	if other.Dist != "" {
		dist = ", installed by " + other.Dist
	}
	if other.UserHome != "" {
		blocked := ""
		if len(other.Blocked) > 0 {
			blocked = ", and " + blockedText(other.Blocked, p.User.String())
		}
		return fmt.Sprintf("; the image has %s (in %s%s), the user site pip install --user filled for HOME=%s: %s's Python "+
			"looks for its user site in %s instead%s", other.File, other.Dir, dist, other.UserHome, p.User, p.Interpreter.UserSite, blocked)
	}
	return fmt.Sprintf("; the image has %s (in %s%s), the packages of another Python than the one that runs", other.File, other.Dir, dist)
}

// runOther says how to start the Python whose packages hold a module.
func runOther(other python.OtherSite) string {
	if other.Python == "" {
		return "start the app with the Python whose packages hold it"
	}
	return fmt.Sprintf("start the app with %s, whose packages hold it (its directory first in PATH)", other.Python)
}

func otherABIText(p python.Problem) string {
	if len(p.OtherABI) == 0 {
		return otherSiteText(p)
	}
	return fmt.Sprintf("; the image has %s, built for another Python than %s, which it does not load", p.OtherABI[0], p.Interpreter.Version)
}

func importDetail(p python.Problem) string {
	if p.Reason == python.RelativeInScript {
		return fmt.Sprintf("makes a relative import (from %s import …) in a file run as a script, outside any package: the app fails at "+
			"start with \"ImportError: attempted relative import with no known parent package\"", p.Target)
	}
	if p.Reason == python.RelativeBeyondTop && p.Module == "" {
		return fmt.Sprintf("makes a relative import (from %s import …) in a top-level module, outside any package: the app fails at "+
			"start with \"ImportError: attempted relative import with no known parent package\"", p.Target)
	}
	if p.Reason == python.RelativeBeyondTop {
		return fmt.Sprintf("makes a relative import (from %s import …) that climbs above %s, its top-level package: the app fails at "+
			"start with \"ImportError: attempted relative import beyond top-level package\"", p.Target, topLevel(p.Module))
	}
	if p.Reason == python.Unreadable {
		if !p.Denied.Entry {
			return fmt.Sprintf("imports %s at the module's top level, which is %s and %s: %s", p.Target, p.Denied.Path, deniedText(p),
				loadFailure(p))
		}
		return fmt.Sprintf("imports %s at the module's top level, which is in %s, but %s: the app fails at start with "+
			"\"ModuleNotFoundError: No module named '%s'\"", p.Target, p.Denied.Path, entryDeniedText(p), topLevel(p.Module))
	}
	searched := fmt.Sprintf("%s searches %s", interpreterText(p.Interpreter), searchedText(p.SysPath))
	what := "imports " + p.Target
	if p.Module != p.Target && !strings.HasPrefix(p.Target, p.Module+".") && !strings.HasPrefix(p.Target, ".") {
		what += " (" + p.Module + ")"
	}
	return fmt.Sprintf("%s at the module's top level, which is in none of the directories %s%s: the app fails at start with "+
		"\"ModuleNotFoundError: No module named '%s'\"", what, searched, otherABIText(p), p.Module)
}

func programFix(p python.Problem) string {
	if p.Reason == python.Unreadable {
		return deniedFix(p)
	}
	if len(p.OtherSites) > 0 && p.OtherSites[0].UserHome != "" {
		other := p.OtherSites[0]
		dist := python.Distribution(topLevel(p.Module))
		return fmt.Sprintf("install %s where every user's Python finds it: without --user (%s -m pip install %s in the Dockerfile, "+
			"or into a venv the start runs), or run with HOME=%s as a user that may read %s", dist, p.Interpreter.Executable, dist,
			other.UserHome, other.Dir)
	}
	switch p.Kind {
	case python.FileMissing:
		return "point the command at the file the image has, or COPY it into the image"
	case python.ModuleMissing:
		if p.Reason == python.AttrMissing {
			return fmt.Sprintf("name the object the module defines (MODULE:NAME), or define %s in %s", p.Attr, p.Path)
		}
		if p.Reason == python.NoMain {
			return "add " + strings.ReplaceAll(p.Target, ".", "/") + "/__main__.py, or run the module that starts the app (python -m " + p.Target + ".main)"
		}
		if len(p.Elsewhere) > 0 {
			how := "workingDir, --app-dir, gunicorn --chdir"
			switch p.Tool {
			case "celery":
				how = "workingDir, celery --workdir"
			case "ray":
				how = "the Ray container's workingDir"
			}
			return fmt.Sprintf("the image has %s: run from %s (%s) or add it to PYTHONPATH",
				strings.Join(p.Elsewhere, ", "), path.Dir(p.Elsewhere[0]), how)
		}
		if p.ServeApp != "" {
			return "COPY the module into the Ray image's working dir " + p.WorkingDir + " or its site-packages, add its directory to " +
				"PYTHONPATH, or ship it with the application's runtime_env (working_dir)"
		}
		if p.Tool == "ray" && p.ServeApp == "" && len(p.OtherSites) == 0 {
			return fmt.Sprintf("install Ray into the Python the ray script runs (%s -m pip install ray), or fix the script's #! line",
				p.Interpreter.Executable)
		}
		if len(p.OtherSites) > 0 {
			return fmt.Sprintf("install it into the Python that runs (%s -m pip install %s), or %s",
				p.Interpreter.Executable, python.Distribution(topLevel(p.Module)), runOther(p.OtherSites[0]))
		}
		return "run from the directory that holds it (workingDir, --app-dir, gunicorn --chdir), add that directory to PYTHONPATH, or " +
			"install it into " + p.Interpreter.Executable + " (pip install " + python.Distribution(topLevel(p.Module)) + ")"
	}
	if p.Reason == python.RelativeInScript {
		return "run the file as a module of its package (python -m package.module from the directory above the package), or make the import absolute"
	}
	if p.Reason == python.RelativeBeyondTop {
		return "load the module as part of its package (python -m package.module, uvicorn package.module:app, from the directory above the package), or make the import absolute"
	}
	if local(p) {
		return "add " + strings.ReplaceAll(p.Module, ".", "/") + ".py (or the package) to the image, or fix the import"
	}
	if len(p.OtherSites) > 0 {
		return fmt.Sprintf("install %s into the interpreter that runs the app (%s -m pip install %s in the Dockerfile, not another "+
			"Python's pip), or %s", python.Distribution(topLevel(p.Module)), p.Interpreter.Executable,
			python.Distribution(topLevel(p.Module)), runOther(p.OtherSites[0]))
	}
	return fmt.Sprintf("install %s into the interpreter that runs the app (%s -m pip install %s in the Dockerfile), or make the import "+
		"optional with try/except ImportError", python.Distribution(topLevel(p.Module)), p.Interpreter.Executable, python.Distribution(topLevel(p.Module)))
}

// local says the missing module is a submodule of the app's own package.
func local(p python.Problem) bool {
	return strings.Contains(p.Module, ".") || strings.HasPrefix(p.Target, ".")
}

func topLevel(module string) string {
	top, _, _ := strings.Cut(module, ".")
	return top
}

// deniedText says why the user cannot read what the start loads: "cannot
// be read by uid 1000 (app): directory /root (drwx------, owner 0:0) does
// not let it through".
func deniedText(p python.Problem) string {
	d := p.Denied
	var why []string
	if len(d.Blocked) > 0 {
		why = append(why, blockedText(d.Blocked, "it"))
	}
	if u := d.Unreadable; u != nil {
		if u.Path == d.Path && !u.Mode.IsDir() {
			why = append(why, fmt.Sprintf("it has mode %s (owner %d:%d), no read bit for it", u.Mode, u.UID, u.GID))
		} else {
			why = append(why, fmt.Sprintf("directory %s (%s, owner %d:%d) has no read bit for it, so it cannot be listed", u.Path, u.Mode, u.UID, u.GID))
		}
	}
	return fmt.Sprintf("cannot be read by %s: %s", p.User, strings.Join(why, ", and "))
}

// entryDeniedText says the user cannot list the import path entry that
// holds the module, so Python finds nothing there.
func entryDeniedText(p python.Problem) string {
	d := p.Denied
	userSite := ""
	if p.Interpreter != nil && d.Path == p.Interpreter.UserSite {
		userSite = " (the user site, which pip install --user fills)"
	}
	why := []string{}
	if len(d.Blocked) > 0 {
		why = append(why, blockedText(d.Blocked, "it"))
	}
	if u := d.Unreadable; u != nil {
		why = append(why, fmt.Sprintf("the directory has mode %s (owner %d:%d), no read bit for it", u.Mode, u.UID, u.GID))
	}
	return fmt.Sprintf("%s cannot list %s%s, the import path entry it is in: %s, so Python finds nothing there",
		p.User, d.Path, userSite, strings.Join(why, ", and "))
}

// blockedText names the directories that keep who out.
func blockedText(blocked []launch.Dir, who string) string {
	if len(blocked) == 1 {
		dir := blocked[0]
		return fmt.Sprintf("directory %s (%s, owner %d:%d) does not let %s through", dir.Path, dir.Mode, dir.UID, dir.GID, who)
	}
	described := make([]string, len(blocked))
	for i, dir := range blocked {
		described[i] = fmt.Sprintf("%s (%s, owner %d:%d)", dir.Path, dir.Mode, dir.UID, dir.GID)
	}
	return "directories " + joinAnd(described) + " do not let " + who + " through"
}

// loadFailure is how loading a module the user cannot read fails: a file
// it may not open fails the import; a package directory it may not list
// leaves the submodules below it unfound; a package directory it may not
// enter is imported as an empty namespace package, so what is taken from
// it is missing.
func loadFailure(p python.Problem) string {
	d := p.Denied
	switch {
	case len(d.Blocked) == 0 && d.Unreadable != nil && d.Unreadable.Path == d.Path && !d.Unreadable.Mode.IsDir():
		return fmt.Sprintf("the import fails at start with \"PermissionError: [Errno 13] Permission denied: '%s'\"", d.Path)
	case d.Namespace:
		return namespaceFailure(p)
	case d.Missing != "":
		return fmt.Sprintf("Python finds nothing in %s, so the import fails at start with \"ModuleNotFoundError: No module named '%s'\"",
			d.At(), d.Missing)
	}
	return "Python cannot look inside it, so loading the app fails at start"
}

// namespaceFailure is what becomes of a package whose directory the user
// may not enter: Python cannot stat its __init__ and imports the
// directory as an empty namespace package, so the import itself succeeds.
func namespaceFailure(p python.Problem) string {
	d := p.Denied
	module := p.Target
	empty := fmt.Sprintf("Python cannot stat %s and imports %s as an empty namespace package", d.Path, path.Dir(d.Path))
	if p.Kind == python.ModuleMissing {
		if p.Attr != "" {
			return fmt.Sprintf("%s, so %s fails with %s", empty, attrTool(p), attrFailure(p))
		}
		if p.Interpreter != nil && p.Word > 0 && p.Word < len(p.Run.Argv) && p.Run.Argv[p.Word-1] == "-m" {
			return fmt.Sprintf("%s, so python fails with \"%s: No module named %s.__main__; '%s' is a package and cannot be directly "+
				"executed\" (exit 1)", empty, p.Interpreter.Executable, module, module)
		}
		return empty + ", so loading the app from it fails at start"
	}
	if p.From && len(p.Names) > 0 {
		return fmt.Sprintf("%s, so the import fails at start with \"ImportError: cannot import name '%s' from '%s' (unknown location)\"",
			empty, p.Names[0], module)
	}
	if p.From {
		return fmt.Sprintf("%s: the star import binds nothing, and the first use of a name it was to bind fails with \"NameError: "+
			"name '…' is not defined\"", empty)
	}
	return fmt.Sprintf("%s: the import succeeds, but the first use of a name from it (%s.…) fails with \"AttributeError: module '%s' "+
		"has no attribute '…'\"", empty, module, module)
}

// namespaceOnly says an import of a package the user may not enter
// succeeds, and only the use of what it was to hold fails, at a time the
// source does not tell: a warning, not an error.
func namespaceOnly(p python.Problem) bool {
	return p.Reason == python.Unreadable && p.Denied.Namespace && p.Kind == python.ImportMissing && (!p.From || len(p.Names) == 0)
}

// deniedFix opens what the user cannot read: the search bit on the
// directories that keep it out, the read bit on the file or directory
// without one.
func deniedFix(p python.Problem) string {
	d := p.Denied
	what := "the app"
	if p.Kind == python.FileMissing {
		what = "the script"
	}
	var fixes []string
	switch len(d.Blocked) {
	case 0:
	case 1:
		dir := d.Blocked[0]
		fixes = append(fixes, fmt.Sprintf("give %s the search bit (chmod %s+x %s, or mode 0755)", dir.Path,
			permissionClass(p.User, dir.UID, dir.GID), dir.Path))
	default:
		paths := make([]string, len(d.Blocked))
		for i, dir := range d.Blocked {
			paths[i] = dir.Path
		}
		fixes = append(fixes, fmt.Sprintf("give %s the search bit (%s, or mode 0755)", joinAnd(paths), searchBitCommands(p.User, d.Blocked)))
	}
	if u := d.Unreadable; u != nil {
		subject, mode := "it", "0644"
		if u.Path != d.Path || u.Mode.IsDir() {
			subject, mode = u.Path, "0755"
		}
		fixes = append(fixes, fmt.Sprintf("give %s the read bit (chmod %s+r %s, or mode %s)", subject,
			permissionClass(p.User, u.UID, u.GID), u.Path, mode))
	}
	fix := strings.Join(fixes, " and ")
	if p.Interpreter != nil && d.Path == p.Interpreter.UserSite {
		return fmt.Sprintf("%s, install %s without --user (into %s's own site-packages or a venv), or run as a user that may read it",
			fix, python.Distribution(topLevel(p.Module)), p.Interpreter.Executable)
	}
	switch {
	case len(d.Blocked) > 0:
		fix += fmt.Sprintf(", move %s out of %s", what, d.Blocked[0].Path)
	case d.Unreadable != nil && d.Unreadable.Path == d.Path && !d.Unreadable.Mode.IsDir():
		fix += fmt.Sprintf(", chown it to uid %d", p.User.UID)
	}
	return fix + ", or run as a user that may read it"
}
