package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image/launch/python"
	"github.com/modellint/modellint/lint/model"
)

// MLServer runtime (MDL411): the runtime a linked model's
// model-settings.json names, against the Python that runs mlserver in the
// container's image.

var mlserverRuntimeMissing = &lint.Rule{
	ID: "MDL411", Name: "mlserver-runtime-missing", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest, lint.FactModel, lint.FactImage},
	Doc: lint.Doc{
		Summary: "The runtime a linked model's model-settings.json names (implementation) cannot be imported by the Python " +
			"that runs mlserver in the image: a -slim image without the runtime's package, or a custom runtime not in the model's dir.",
		Why: "MLServer imports each model's implementation (mlserver_sklearn.SKLearnModel) when it loads the model, with the " +
			"model's dir, the models folder and the working dir in front of its import path. The runtimes are pip packages of " +
			"their own (mlserver-sklearn, mlserver-xgboost, mlserver-lightgbm, mlserver-mlflow, mlserver-mllib, " +
			"mlserver-huggingface …): seldonio/mlserver's -slim images have none of them, its TAG-<runtime> images one, its " +
			"plain TAG every one but mllib, and an image built FROM one has only those it installed. The load fails with \"ModuleNotFoundError: No module named 'mlserver_mllib'\", and a " +
			"model that fails at start stops the server (\"Some of the models failed to load during startup!\"): the pod " +
			"restarts in a loop. The module is looked for in the model's dir and on the import path of the interpreter the " +
			"mlserver console script runs, as the image's files show it; the check skips rather than guess when the start " +
			"sources a script that may change that Python (the stock images' CMD activates an environment tarball), when a " +
			"path it searches is a volume, or when parameters.environment_tarball/environment_path load the model in another " +
			"environment." + offlineNote,
		Bad: "# docker build -t registry.example.com/mlserver:1.6.1-slim .\n" + docMLServerImage + "---\n" +
			"containers:\n  - name: mlserver\n    image: registry.example.com/mlserver:1.6.1-slim\n" +
			"    command: [mlserver, start, /mnt/models]\n    volumeMounts: [{name: models, mountPath: /mnt/models}]\n---\n" + docChurnModel,
		Good: "# docker build -t registry.example.com/mlserver:1.6.1-mllib .\n" + docMLServerImage +
			"# what pip install mlserver-mllib writes, in short\n" +
			"COPY <<EOF /usr/local/lib/python3.11/site-packages/mlserver_mllib/__init__.py\nEOF\n---\n" +
			"containers:\n  - name: mlserver\n    image: registry.example.com/mlserver:1.6.1-mllib\n" +
			"    command: [mlserver, start, /mnt/models]\n    volumeMounts: [{name: models, mountPath: /mnt/models}]\n---\n" + docChurnModel,
		Fix: "Use an image that has the runtime (seldonio/mlserver:TAG-<runtime>, TAG without -slim for all but mllib, or " +
			"one that runs pip install mlserver-<runtime>), or ship a custom runtime's module in the model's dir beside " +
			"model-settings.json.",
		References: append([]string{
			"https://mlserver.readthedocs.io/en/stable/runtimes/index.html",
			"https://github.com/SeldonIO/MLServer/blob/master/Dockerfile",
			"https://github.com/SeldonIO/MLServer/blob/master/mlserver/server.py",
		}, mlserverReferences[1]),
	},
	Check: checkMLServerRuntime,
}

// docMLServerImage is the Dockerfile of MDL411's examples after its build
// command: seldonio/mlserver's -slim image, in short, which the Good
// example adds the mllib runtime to.
const docMLServerImage = "FROM python:3.11-slim\n# what pip install mlserver writes, in short\n" +
	"COPY <<EOF /usr/local/lib/python3.11/site-packages/mlserver/__init__.py\nEOF\n" +
	"COPY --chmod=0755 <<EOF /usr/local/bin/mlserver\n#!/usr/local/bin/python3.11\nfrom mlserver.cli import main\nmain()\nEOF\n"

// docChurnModel is the model dir of MDL411's examples: a Spark MLlib model.
const docChurnModel = "# --model models:/mnt/models\nmodels/\n  churn/\n    model-settings.json <<EOF\n" +
	"      {\"name\": \"churn\", \"implementation\": \"mlserver_mllib.MLlibModel\"}\n    EOF"

func checkMLServerRuntime(pass *lint.Pass) {
	var coverage lint.Coverage
	for _, link := range pass.Target.Links {
		m := link.Model
		if m == nil || m.MLServer == nil || m.MLServer.Settings == nil || !m.MLServer.Settings.HasImplementation {
			continue
		}
		settings := m.MLServer.Settings
		file := m.Path(m.MLServer.SettingsFile)
		c := link.Container
		bundle := pass.Target.Bundle(c)
		if bundle == nil || bundle.Image == nil || bundle.Image.FS() == nil || bundle.Program == nil {
			coverage.Missed(describe(c) + ": its image's files were not read")
			continue
		}
		if settings.EnvironmentTarball != "" || settings.EnvironmentPath != "" {
			coverage.Missed(fmt.Sprintf("%s loads the model in another Python environment (parameters.environment_tarball or environment_path)", file))
			continue
		}
		module, class, ok := cutLast(settings.Implementation, ".")
		if !ok || module == "" || class == "" {
			continue // MDL123's business: not an import path MLServer can use
		}
		top, _, _ := strings.Cut(module, ".")
		if modelHasModule(m, top) {
			coverage.Checked() // MLServer puts the model's dir first on the import path
			continue
		}
		// mlserver start puts the models folder and the working dir in
		// front; a runtime package (mlserver_*) is looked for in the image's
		// Python alone, since no model repository ships one.
		first := []string{"."}
		if !strings.HasPrefix(top, "mlserver") && link.ServerPath.Value != "" {
			first = []string{link.ServerPath.Value, "."}
		}
		lookups := bundle.Program.FindModule("mlserver", module, first)
		if len(lookups) == 0 {
			coverage.Missed(describe(c) + " does not run mlserver in a Python modelled in the image")
			continue
		}
		var missing []python.Lookup
		unsure := ""
		for _, lookup := range lookups {
			switch {
			case lookup.Missing == "":
			case lookup.Unsure != "":
				unsure = lookup.Unsure
			default:
				missing = append(missing, lookup)
			}
		}
		switch {
		case len(missing) < len(lookups) && unsure == "":
			coverage.Checked()
		case unsure != "":
			coverage.Missed(fmt.Sprintf("%s: %s is not in the image's import path, but %s", file, module, unsure))
		default:
			coverage.Checked()
			reportMLServerRuntime(pass, link, m, settings.Implementation, settings.ImplementationLine, missing[0])
		}
	}
	coverage.SkipIfNone(pass, "no linked model has a model-settings.json with an implementation")
}

func reportMLServerRuntime(pass *lint.Pass, link *lint.Link, m *model.Model, implementation string, line int, lookup python.Lookup) {
	c := link.Container
	img := pass.Target.Images[c.Image]
	reference := c.Image
	if img != nil {
		reference = img.Reference
	}
	top, _, _ := strings.Cut(lookup.Missing, ".")
	distribution := python.Distribution(top)
	interpreter := "the image's Python"
	if lookup.Interpreter != nil {
		interpreter = lookup.Interpreter.Executable
	}
	fix := fmt.Sprintf("install %s into %s (pip install %s), or ship the module in %s", distribution, interpreter, distribution, m.Dir+"/")
	if runtime, ok := strings.CutPrefix(top, "mlserver_"); ok {
		runtime = strings.ReplaceAll(runtime, "_", "-")
		fix = fmt.Sprintf("use an image with the runtime (pip install %s in the image, or seldonio/mlserver's TAG-%s image", distribution, runtime)
		if runtime != "mllib" && (strings.HasSuffix(reference, "-slim") || strings.Contains(reference, "-slim@")) {
			fix += ", or the tag without -slim, which has every runtime but mllib"
		}
		fix += ")"
	}
	elsewhere := ""
	if len(lookup.OtherSites) > 0 {
		elsewhere = fmt.Sprintf(" (the image has it in %s, for another Python)", lookup.OtherSites[0].Dir)
	}
	file := m.Path(m.MLServer.SettingsFile)
	pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: c.Path + ".image", Image: lint.ImageLocation{Reference: reference},
		Cause: &lint.Cause{Path: linkField(link), Message: "the models folder mlserver is started on"},
		Message: fmt.Sprintf("%s: %s line %d names the runtime %s, but module %s is neither in %s nor on the import path of %s in image %s%s: "+
			"MLServer fails to load the model with \"ModuleNotFoundError: No module named '%s'\" and stops (\"Some of the models "+
			"failed to load during startup!\"); %s",
			describe(c), file, line, implementation, lookup.Missing, m.Dir+"/", interpreter, reference, elsewhere, lookup.Missing, fix)})
}

// modelHasModule says a model dir holds a top-level module: NAME.py, a
// package NAME/, or an extension NAME.*.so.
func modelHasModule(m *model.Model, name string) bool {
	for _, file := range m.Files {
		first, rest, nested := strings.Cut(file.Path, "/")
		switch {
		case nested && first == name && rest != "":
			return true
		case !nested && (file.Path == name+".py" || file.Path == name+".pyc" ||
			strings.HasPrefix(file.Path, name+".") && path.Ext(file.Path) == ".so"):
			return true
		}
	}
	return false
}

// cutLast splits s around the last sep, as Python's rpartition.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
