package python

import (
	"testing"

	"github.com/modellint/modellint/lint/image/launch"
)

// mlserverLayer is an MLServer install with the sklearn runtime and
// without the mllib one, as a -slim image plus one runtime.
const mlserverLayer = `
- {path: /usr/local/bin/mlserver, content: "#!/usr/local/bin/python3.11\nfrom mlserver.cli import main\nmain()\n", mode: "0755"}
- {path: /usr/local/lib/python3.11/site-packages/mlserver/__init__.py, content: ""}
- {path: /usr/local/lib/python3.11/site-packages/mlserver_sklearn/__init__.py, content: ""}
`

func TestFindModule(t *testing.T) {
	spec := launch.Spec{Argv: []string{"mlserver", "start", "/mnt/models"}, WorkingDir: "/opt/app"}
	_, analysis := openImage(t, mlserverLayer, spec, nil)
	if len(analysis.Problems) != 0 {
		t.Fatalf("problems: %v", summary(analysis))
	}
	found := analysis.FindModule("mlserver", "mlserver_sklearn", []string{"."})
	if len(found) != 1 || found[0].Missing != "" || found[0].File != "/usr/local/lib/python3.11/site-packages/mlserver_sklearn/__init__.py" {
		t.Errorf("mlserver_sklearn: %+v", found)
	}
	missing := analysis.FindModule("mlserver", "mlserver_mllib", []string{"."})
	if len(missing) != 1 || missing[0].Missing != "mlserver_mllib" || missing[0].Unsure != "" || missing[0].Interpreter == nil {
		t.Errorf("mlserver_mllib: %+v", missing)
	}
	if got := analysis.FindModule("uvicorn", "mlserver_sklearn", nil); len(got) != 0 {
		t.Errorf("a program the start does not run: %+v", got)
	}
	// The folder on a volume: a module there is not certainly missing.
	_, mounted := openImage(t, mlserverLayer, spec, []string{"/mnt/models"})
	unsure := mounted.FindModule("mlserver", "models", []string{"/mnt/models", "."})
	if len(unsure) != 1 || unsure[0].Missing != "models" || unsure[0].Unsure == "" {
		t.Errorf("on a volume: %+v", unsure)
	}
}

// TestFindModuleRuns: python -m names its run by the module; a console
// script's directory is on its import path; a stdlib name is no missing
// module; a working dir known only at run time leaves a module not found
// unsure.
func TestFindModuleRuns(t *testing.T) {
	layer := mlserverLayer + `
- {path: /usr/local/lib/python3.11/site-packages/mlserver/__main__.py, content: ""}
- {path: /usr/local/bin/helpers.py, content: ""}
- {path: /start.sh, mode: "0755", content: "#!/bin/sh\ncd \"$APP_DIR\"\nexec mlserver start /mnt/models\n"}
`
	_, module := openImage(t, layer, launch.Spec{Argv: []string{"python", "-m", "mlserver", "start", "/mnt/models"}, WorkingDir: "/opt/app"}, nil)
	if found := module.FindModule("mlserver", "mlserver_sklearn", []string{"."}); len(found) != 1 || found[0].Missing != "" {
		t.Errorf("python -m mlserver: %+v", found)
	}
	_, script := openImage(t, layer, launch.Spec{Argv: []string{"mlserver", "start", "/mnt/models"}, WorkingDir: "/opt/app"}, nil)
	if found := script.FindModule("mlserver", "helpers", []string{"."}); len(found) != 1 || found[0].File != "/usr/local/bin/helpers.py" {
		t.Errorf("a module beside the console script: %+v", found)
	}
	if found := script.FindModule("mlserver", "json.decoder", []string{"."}); len(found) != 1 || found[0].Missing != "" {
		t.Errorf("a stdlib module: %+v", found)
	}
	_, wrapped := openImage(t, layer, launch.Spec{Argv: []string{"/start.sh"}, WorkingDir: "/opt/app"}, nil)
	if found := wrapped.FindModule("mlserver", "custom", []string{"."}); len(found) != 1 || found[0].Missing != "custom" ||
		found[0].Unsure == "" {
		t.Errorf("a working dir known at run time: %+v", found)
	}
}
