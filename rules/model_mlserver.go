package rules

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/mlserver"
)

// MLServer model settings (MDL123): what MLServer's repository reads of a
// model dir's model-settings.json.

// mlserverReferences are MLServer's code that reads model-settings.json
// and the model's artifact.
var mlserverReferences = []string{
	"https://mlserver.readthedocs.io/en/stable/reference/model-settings.html",
	"https://github.com/SeldonIO/MLServer/blob/master/mlserver/settings.py",
	"https://github.com/SeldonIO/MLServer/blob/master/mlserver/repository/repository.py",
	"https://github.com/SeldonIO/MLServer/blob/master/mlserver/utils.py",
}

// mlserverURIRuntimes are the runtime packages whose load reads
// parameters.uri through get_model_uri, and fails without it.
var mlserverURIRuntimes = map[string]bool{
	"mlserver_sklearn": true, "mlserver_xgboost": true, "mlserver_lightgbm": true, "mlserver_mlflow": true,
	"mlserver_mllib": true, "mlserver_catboost": true, "mlserver_alibi_detect": true, "mlserver_alibi_explain": true,
}

var mlserverSettings = &lint.Rule{
	ID: "MDL123", Name: "mlserver-settings", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "An MLServer model-settings.json MLServer cannot use: not valid JSON, no implementation, a field of the wrong " +
			"type, or a parameters.uri that names nothing in the model's dir.",
		Why: "MLServer's repository finds models by their model-settings.json and validates each with pydantic: a file " +
			"that is not JSON or has a field of the wrong type (a number for parameters.version) is logged as " +
			"\"Failed load model settings at <path>\" and the model is not loaded. implementation (the runtime class, e.g. " +
			"mlserver_sklearn.SKLearnModel) is a required field with no default: a file without it fails the same way unless " +
			"the container's env sets MLSERVER_MODEL_IMPLEMENTATION (as KServe's MLServer runtime does), which pydantic-settings " +
			"reads for the file's missing fields in some releases and not in others, so it is a warning. parameters.uri is resolved from the " +
			"settings file's directory; the built-in runtimes (sklearn, xgboost, lightgbm, mlflow, mllib, catboost, alibi) " +
			"load it through get_model_uri, which raises InvalidModelURI when nothing is there, and a model that fails to " +
			"load at start stops the server (\"Some of the models failed to load during startup!\"). A uri a custom runtime " +
			"may not read is a warning.",
		Bad: "models/iris/\n  model-settings.json <<EOF\n    {\"name\": \"iris\", \"parameters\": {\"uri\": \"./model.joblib\"}}\n  EOF\n  iris.joblib",
		Good: "models/iris/\n  model-settings.json <<EOF\n    {\"name\": \"iris\", \"implementation\": \"mlserver_sklearn.SKLearnModel\",\n" +
			"     \"parameters\": {\"uri\": \"./model.joblib\"}}\n  EOF\n  model.joblib",
		Fix:        "Write model-settings.json as strict JSON with implementation set to the runtime class, string values for name, uri and version, and a uri relative to the file that names the artifact.",
		References: mlserverReferences,
	},
	Check: checkMLServerSettings,
}

func checkMLServerSettings(pass *lint.Pass) {
	m := pass.Target.Model
	ms := m.MLServer
	if ms == nil {
		pass.Skip("no model-settings.json (layout: " + string(m.Layout) + ")")
		return
	}
	if ms.SettingsUnread {
		skipUnread(pass, m, []string{ms.SettingsFile})
		return
	}
	file := m.Path(ms.SettingsFile)
	skipped := fmt.Sprintf("MLServer logs \"Failed load model settings at %s\" and does not load the model", file)
	if ms.SettingsError != "" {
		pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, File: file, Line: ms.SettingsLine, Message: fmt.Sprintf(
			"%s cannot be read (%s): %s; write it as strict JSON (no trailing commas or comments)", file, ms.SettingsError, skipped)})
		return
	}
	s := ms.Settings
	for _, problem := range s.Problems {
		pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, File: file, Line: problem.Line, Message: fmt.Sprintf(
			"%s: %s, which ModelSettings' validation refuses: %s; quote the value", file, problem.Reason, skipped)})
	}
	if !s.HasImplementation && !slices.ContainsFunc(s.Problems, func(p mlserver.Problem) bool { return strings.HasPrefix(p.Reason, "implementation ") }) {
		pass.Report(lint.Diagnostic{Severity: lint.Warning, File: file, Line: s.Line, Message: fmt.Sprintf(
			"%s sets no implementation, a required field of ModelSettings (\"implementation Field required\"): unless the "+
				"container's env sets MLSERVER_MODEL_IMPLEMENTATION, %s; set it to the runtime class that serves the model, "+
				"e.g. \"mlserver_sklearn.SKLearnModel\"", file, skipped)})
	}
	if ms.URIMissing {
		runtime, _, _ := strings.Cut(s.Implementation, ".")
		severity, consequence := lint.Warning, "a runtime that loads it fails with InvalidModelURI"
		if mlserverURIRuntimes[runtime] {
			severity = pass.Rule.Severity
			consequence = fmt.Sprintf("%s loads it through get_model_uri, which raises InvalidModelURI, and MLServer stops "+
				"(\"Some of the models failed to load during startup!\")", runtime)
		}
		pass.Report(lint.Diagnostic{Severity: severity, File: file, Line: s.URILine, Message: fmt.Sprintf(
			"%s: parameters.uri %q is read from the file's directory, and %s does not exist: %s; %s",
			file, s.URI, m.Path(ms.URIPath), consequence, uriFix(m, ms))})
	}
}

// uriFix suggests the artifact the dir has instead of the one the uri names.
func uriFix(m *model.Model, ms *model.MLServerModel) string {
	want := path.Ext(ms.URIPath)
	var candidates []string
	for _, file := range m.Files {
		if file.Path != ms.SettingsFile && path.Dir(file.Path) == path.Dir(ms.URIPath) && want != "" && path.Ext(file.Path) == want {
			candidates = append(candidates, file.Path)
		}
	}
	if len(candidates) == 1 {
		return fmt.Sprintf("set uri to \"./%s\" or rename %s to %s", path.Base(candidates[0]), m.Path(candidates[0]), m.Path(ms.URIPath))
	}
	return "put the model's artifact there or point uri at the file the dir holds"
}
