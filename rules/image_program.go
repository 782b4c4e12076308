package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image/launch/python"
)

// programReferences are cited by the program rules.
var programReferences = []string{
	"https://docs.python.org/3/using/cmdline.html",
	"https://docs.python.org/3/library/sys_path_init.html",
	"https://docs.python.org/3/reference/import.html#the-path-based-finder",
	"https://docs.python.org/3/library/site.html",
}

// programNote says what the program rules model of the import path.
const programNote = " The import path is Python's own: the script's directory (or the working dir for -m and the app " +
	"servers' --app-dir/--chdir), PYTHONPATH, the standard library and site-packages found from the interpreter's real " +
	"location and version (a venv's pyvenv.cfg, conda and Debian's dist-packages included), .pth files, namespace " +
	"packages and extension modules with this Python's ABI tag. A file on a volume mount, a wrapper that sources a file " +
	"or a .pth that installs an import finder make the check skip with the reason rather than guess."

var appFileMissing = &lint.Rule{
	ID: "MDL320", Name: "app-file-missing", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "The script or file the start tells an interpreter to run is not in the image: python SCRIPT, node FILE, java -jar FILE, fastapi run FILE, streamlit run FILE, a TorchServe .mar in --model-store, a serve run config.",
		Why: "The interpreter exists, so the container starts — and exits at once: \"python3: can't open file " +
			"'/app/serve.py': [Errno 2] No such file or directory\" (exit 2), \"Error: Cannot find module '/app/server.js'\", " +
			"\"Error: Unable to access jarfile app.jar\". The pod goes into CrashLoopBackOff although MDL301 sees nothing " +
			"wrong with argv[0]. A relative path resolves from the container's working dir (the manifest's workingDir, else " +
			"the image's WORKDIR), or from where a wrapper script's cd moved; the program is found through wrapper scripts " +
			"and launchers (env, tini, dumb-init) as MDL301 finds it. A python script the container's user may not read fails " +
			"the same way, with \"python3: can't open file '/root/app/server.py': [Errno 13] Permission denied\": a root-owned " +
			"0600 file, or one under a directory without the search bit for that user (root's 0700 /root, as uid 1000); the " +
			"finding names every such directory, topmost first, as MDL302 does for argv[0]. Files under a volumeMount come " +
			"from the volume and are not checked." + offlineNote,
		Bad: "# docker build -t registry.example.com/app:1.0 .\nFROM python:3.11-slim\nCOPY <<EOF /app/main.py\nprint(\"serving\")\nEOF\n" +
			"---\ncontainers:\n  - name: api\n    image: registry.example.com/app:1.0\n    command: [python3, /app/serve.py]",
		Good: "# docker build -t registry.example.com/app:1.0 .\nFROM python:3.11-slim\nCOPY <<EOF /app/main.py\nprint(\"serving\")\nEOF\n" +
			"---\ncontainers:\n  - name: api\n    image: registry.example.com/app:1.0\n    command: [python3, /app/main.py]",
		Fix:        "Point the command at the file the image has (the finding lists the files beside the missing one), or COPY the file into the image; for a file the user may not read, give it the read bit and the directories above it the search bit (chmod o+r FILE, chmod o+x DIR), or COPY it outside root's home.",
		References: append([]string{"https://nodejs.org/api/modules.html#all-together"}, programReferences[:1]...),
	},
	Check: func(pass *lint.Pass) { checkPrograms(pass, python.FileMissing) },
}

// uvicornApp is the image of MDL321's examples: uvicorn, and the package app
// copied to /opt/app while the working directory is /srv.
const uvicornApp = "# docker build -t registry.example.com/app:1.0 .\nFROM python:3.11-slim\n" +
	"COPY <<EOF /usr/local/lib/python3.11/site-packages/uvicorn/__init__.py\nfrom uvicorn.main import main, run\nEOF\n" +
	"COPY <<EOF /usr/local/lib/python3.11/site-packages/uvicorn/main.py\ndef main(): pass\ndef run(app): pass\nEOF\n" +
	"COPY --chmod=0755 <<EOF /usr/local/bin/uvicorn\n#!/usr/local/bin/python3\nfrom uvicorn.main import main\nmain()\nEOF\n" +
	"WORKDIR /srv\nCOPY <<EOF /opt/app/main.py\napp = None\nEOF\n"

var pythonModuleMissing = &lint.Rule{
	ID: "MDL321", Name: "python-module-missing", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "The module python -m, uvicorn, gunicorn, hypercorn, serve run, celery -A or a RayService's serveConfigV2 import_path is told to load (MODULE, MODULE:ATTR, a gunicorn worker class) is on none of the interpreter's import path in the image, or the app module never names its ATTR.",
		Why: "The server process starts and dies while importing the app: \"/usr/local/bin/python3: No module named app\" " +
			"(exit 1), uvicorn's \"Error loading ASGI app. Could not import module \\\"main\\\".\", gunicorn's " +
			"\"ModuleNotFoundError: No module named 'main'\" and \"Worker failed to boot.\" The usual causes: the app was " +
			"copied to another directory than the working dir, the WORKDIR changed, the package lost its __init__.py or " +
			"__main__.py, or the app was installed into another Python than the one that runs (a venv not on PATH). An app " +
			"module of the image that never mentions the ATTR of MODULE:ATTR (no assignment, def, class or import of it, no " +
			"star import or module __getattr__) cannot define it: \"Attribute \\\"app\\\" not found in module \\\"main\\\".\" " +
			"celery -A MODULE[:ATTR] imports the module from the working dir (after --workdir) and exits with \"Unable to load " +
			"celery application. The module tasks was not found.\" A RayService's serveConfigV2 applications are imported by " +
			"the Python of the Ray container's ray program (the first container of each group), from its working dir: a " +
			"missing import_path module leaves the application DEPLOY_FAILED; applications whose runtime_env brings the code " +
			"(working_dir, py_modules, pip …) are not checked. A directory of the import path the container's user may not " +
			"list (no read bit, or a directory above it without the search bit: PYTHONPATH=/root/app as uid 1000) is passed " +
			"over as if empty (FileFinder ignores the PermissionError), so its modules are \"not found\" although the image " +
			"has them; a module file the user may not read fails with \"PermissionError: [Errno 13] Permission denied\". " +
			"pip install --user run as root fills root's user site (/root/.local/lib/pythonX.Y/site-packages), which another " +
			"uid's Python does not look in (its HOME differs) or may not enter." + programNote + offlineNote,
		Bad: uvicornApp + "---\ncontainers:\n  - name: api\n    image: registry.example.com/app:1.0\n    command: [uvicorn, app.main:app]",
		Good: uvicornApp + "---\ncontainers:\n  - name: api\n    image: registry.example.com/app:1.0\n" +
			"    command: [uvicorn, app.main:app, --app-dir, /opt]",
		Fix:        "Run from the directory that holds the package (workingDir, --app-dir, gunicorn --chdir), add that directory to PYTHONPATH, or install the package into the interpreter that runs (pip install without --user when another uid runs the app); open a directory the user may not list (chmod o+rx).",
		References: append([]string{"https://www.uvicorn.org/settings/#application", "https://docs.gunicorn.org/en/stable/settings.html#chdir"}, programReferences...),
	},
	Check: func(pass *lint.Pass) { checkPrograms(pass, python.ModuleMissing) },
}

var pythonImportMissing = &lint.Rule{
	ID: "MDL322", Name: "python-import-missing", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "A module-level import of the app's entry module (or of an app module it imports) resolves nowhere in the image.",
		Why: "An import at a module's top level runs when the app starts: a package that was never installed in the image " +
			"(or installed into another Python) stops the server with \"ModuleNotFoundError: No module named 'torch'\" " +
			"before it listens, on every restart. modellint reads the entry script or module (the one python, uvicorn, " +
			"gunicorn … load) with a Python tokenizer and checks each unconditional import: not inside try/except, if " +
			"(TYPE_CHECKING included), with, def or class, and only up to a statement that changes sys.path. The app's own " +
			"modules it imports are read one level further. Imports of the standard library count as present when the " +
			"interpreter's standard library is found; a relative import in a file run as a script, or in a top-level " +
			"module (main.py loaded as uvicorn main:app), fails with \"attempted relative import with no known parent " +
			"package\", and one whose dots climb above the top-level package with \"attempted relative import beyond " +
			"top-level package\". The finding names the distribution most likely missing " +
			"(cv2 → opencv-python, sklearn → scikit-learn, PIL → pillow, yaml → pyyaml …). A package the image has where the " +
			"container's user may not read it (root's user site, /root/.local, as uid 1000 with HOME=/root) is missing to " +
			"that user's Python, and the finding says which directory keeps it out. A package directory the user may not " +
			"enter is not an import error by itself: Python cannot stat its __init__.py and imports the directory as an " +
			"empty namespace package, so `from pkg import x` fails at once (\"ImportError: cannot import name 'x' from " +
			"'pkg' (unknown location)\"), `import pkg.sub` with \"ModuleNotFoundError: No module named 'pkg.sub'\", and a " +
			"bare `import pkg` succeeds, its first use failing with \"AttributeError: module 'pkg' has no attribute …\" " +
			"(a warning: when the app uses it is not known from the source)." + programNote + offlineNote,
		Bad: "# docker build -t registry.example.com/app:1.0 .\nFROM python:3.11-slim\nWORKDIR /srv/app\n" +
			"COPY <<EOF /srv/app/main.py\nimport torch\nEOF\n" +
			"---\ncontainers:\n  - name: api\n    image: registry.example.com/app:1.0\n    command: [python3, main.py]",
		Good: "# docker build -t registry.example.com/app:1.1 .\nFROM python:3.11-slim\n" +
			"# what pip install torch writes, in short\nCOPY <<EOF /usr/local/lib/python3.11/site-packages/torch/__init__.py\n" +
			"__version__ = \"2.4.1\"\nEOF\nWORKDIR /srv/app\nCOPY <<EOF /srv/app/main.py\nimport torch\nEOF\n" +
			"---\ncontainers:\n  - name: api\n    image: registry.example.com/app:1.1\n    command: [python3, main.py]",
		Fix:        "Install the distribution into the interpreter that runs the app (pip install NAME, in the venv the start uses), add the app's missing module to the image, or make the import optional (try/except ImportError) when the app works without it.",
		References: programReferences,
	},
	Check: func(pass *lint.Pass) { checkPrograms(pass, python.ImportMissing) },
}

// skipNoProgram is why a program rule has nothing to check.
const skipNoProgram = "the start runs no python script or module, app server, node script or java -jar file"

// checkPrograms reports the program problems of one kind over the
// target's containers.
func checkPrograms(pass *lint.Pass, kind python.Kind) {
	checks := imageChecks(pass, true)
	entries := 0
	var unchecked []string
	for _, c := range checks {
		program := c.bundle.Program
		if program == nil {
			continue
		}
		entries += program.Entries
		unchecked = append(unchecked, program.UncheckedFor(kind)...)
		for _, problem := range program.Problems {
			if problem.Kind == kind {
				reportProgram(pass, c, problem)
			}
		}
	}
	switch {
	case len(unchecked) > 0:
		pass.Skip("not checked: " + lint.JoinReasons(unchecked))
	case entries == 0 && len(checks) > 0:
		pass.Skip(skipNoProgram)
	}
}

func reportProgram(pass *lint.Pass, c *imageCheck, p python.Problem) {
	field := c.field()
	if p.ServeApp != "" && pass.Workload() != nil && pass.Workload().ServeConfigPath != "" {
		field = pass.Workload().ServeConfigPath
	}
	if p.Word >= 0 {
		if fields := c.bundle.ArgvFields(p.Run.Argv); p.Word < len(fields) && fields[p.Word] != "" {
			field = c.container.Path + "." + fields[p.Word]
		}
	}
	location := lint.ImageLocation{Reference: c.img.Reference, Path: p.Path}
	layer := p.Layer
	if p.Reason == python.Unreadable {
		// The directory or file whose mode is to fix, and the layer that
		// wrote it.
		location.Path, layer = p.Denied.At(), ""
		if node, err := c.img.FS().Stat(location.Path); err == nil {
			location.Layer, layer = c.img.LayerDigest(node), c.img.LayerOf(node)
		}
	} else if p.Kind == python.ImportMissing {
		location.Layer = p.LayerDigest
	} else if p.Path != "" {
		// The nearest directory that exists, and the layer that wrote it.
		for dir := path.Dir(p.Path); dir != "/" && dir != "."; dir = path.Dir(dir) {
			if node, err := c.img.FS().Stat(dir); err == nil {
				location.Layer, layer = c.img.LayerDigest(node), ""
				break
			}
		}
	}
	severity := pass.Rule.Severity
	if namespaceOnly(p) {
		severity = lint.Warning
	}
	pass.Report(lint.Diagnostic{Severity: severity, Path: field, Image: location, Message: fmt.Sprintf("%s: %s%s %s %s; %s", c.label(), wrapperChain(p.Run.Via), programSubject(p), programDetail(p), where(c.img, layer, ""), programFix(p))})
}

// commandLine shows the run's argv from the program on, shortened.
func commandLine(p python.Problem) string {
	argv := p.Run.Argv
	for i, word := range argv {
		if word == p.Program {
			argv = argv[i:]
			break
		}
	}
	if len(argv) > 6 {
		argv = append(append([]string(nil), argv[:6]...), "…")
	}
	return strings.Join(argv, " ")
}
