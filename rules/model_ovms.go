package rules

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/ovms"
)

// OpenVINO Model Server layout (MDL122): the version dirs OVMS reads, the
// model files it picks in them, and a repository's config.json.

// ovmsReferences are OVMS's code that reads versions, model files and
// config.json, and its docs on the layout.
var ovmsReferences = []string{
	"https://github.com/openvinotoolkit/model_server/blob/main/docs/models_repository.md",
	"https://github.com/openvinotoolkit/model_server/blob/main/src/modelmanager.cpp",
	"https://github.com/openvinotoolkit/model_server/blob/main/src/modelinstance.cpp",
	"https://github.com/openvinotoolkit/model_server/blob/main/src/schema.cpp",
}

var ovmsLayout = &lint.Rule{
	ID: "MDL122", Name: "ovms-layout", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "An OpenVINO Model Server model OVMS cannot load or partly ignores: a version dir named 0 or not a number, " +
			"model.xml without model.bin (or the reverse), no version at all, or a config.json that is not JSON, lacks " +
			"model_config_list or names a base_path that is not there.",
		Why: "OVMS lists the base path's subdirectories and reads each name with std::stoll: a name that is not a number is " +
			"skipped (\"Expected version directory name to be in number format. Got: v1\"), and so is 0 or below (\"Expected " +
			"version directory name to be a number greater than 0. Got: 0\"); 01 and 1_old are read as version 1, which OVMS " +
			"then opens as <base>/1. With no version left it logs \"No version found for model in path\" and serves nothing. " +
			"In a version dir it looks for an .xml with a .bin, then .onnx, a .pdmodel with a .pdiparams, .pb and .tflite, and " +
			"without one fails with \"Error loading model: no valid model file found\"; OpenVINO reads an IR's weights from the " +
			"file named as the .xml with .bin. Started with --model_path, a version that fails to load stops the server " +
			"(\"Couldn't start model manager\"). A config.json that is not JSON, lacks model_config_list, or has an entry " +
			"without a config name fails OVMS's schema and the server does not start; an entry whose relative base_path " +
			"(read from config.json's dir) is not there, or goes up with .., is not loaded. Dirs OVMS skips beside a version " +
			"it serves, and versions the default policy (the latest) does not load, are warnings.",
		Bad:  "models/resnet/\n  0/\n    model.xml\n    model.bin\n  1/\n    model.xml\n    weights.bin",
		Good: "models/resnet/\n  1/\n    model.xml\n    model.bin",
		Fix: "Name version dirs 1, 2, 3; keep model.xml and model.bin together under one name in each; in config.json " +
			"list the models under model_config_list with a name and a base_path that exists relative to config.json.",
		References: ovmsReferences,
	},
	Check: checkOVMSLayout,
}

func checkOVMSLayout(pass *lint.Pass) {
	m := pass.Target.Model
	if m.Layout != model.LayoutOVMS || m.OVMS == nil {
		pass.Skip(notLayout(m, "an OpenVINO Model Server model"))
		return
	}
	om := m.OVMS
	if om.ConfigUnread {
		skipUnread(pass, m, []string{om.ConfigFile})
		return
	}
	if om.ConfigFile != "" && !checkOVMSConfig(pass, m) {
		return
	}
	loaded := map[string]bool{}
	for i := range om.Bases {
		base := &om.Bases[i]
		if base.Entry != nil && loaded[base.Entry.Name] {
			continue // OVMS loads only the first entry of a name
		}
		loaded[base.Name] = true
		checkOVMSBase(pass, m, base)
	}
}

// checkOVMSConfig reports what makes OVMS refuse config.json, and
// reports whether its entries are worth checking.
func checkOVMSConfig(pass *lint.Pass, m *model.Model) bool {
	om := m.OVMS
	file := m.Path(om.ConfigFile)
	const stops = "OVMS does not start (\"Couldn't start model manager\")"
	if om.ConfigError != "" {
		pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, File: file, Line: om.ConfigLine, Message: fmt.Sprintf(
			"%s cannot be read (%s): %s; fix the JSON syntax (no trailing commas or comments)", file, om.ConfigError, stops)})
		return false
	}
	config := om.Config
	for _, problem := range config.Problems {
		pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, File: file, Line: problem.Line, Message: fmt.Sprintf(
			"%s: %s, which OVMS's schema refuses (\"Configuration file is not in valid configuration format\"): %s; "+
				"write each model as {\"config\": {\"name\": …, \"base_path\": …}}", file, problem.Reason, stops)})
	}
	if !config.ModelList && !slices.ContainsFunc(config.Problems, func(p ovms.Problem) bool { return strings.HasPrefix(p.Reason, "model_config_list is") }) {
		pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, File: file, Line: config.ModelListLine, Message: fmt.Sprintf(
			"%s has no model_config_list, which OVMS's schema requires (even with only mediapipe_config_list): %s; "+
				"add \"model_config_list\": [] or list the models there", file, stops)})
	}
	seen := map[string]int{}
	for _, entry := range config.Models {
		if first, ok := seen[entry.Name]; ok {
			pass.Report(lint.Diagnostic{Severity: lint.Warning, File: file, Line: entry.Line, Message: fmt.Sprintf(
				"%s names model '%s' again (first on line %d): OVMS logs \"Duplicated model names: %s defined in config file. "+
					"Only first definition will be loaded.\"; rename or remove one", file, entry.Name, first, entry.Name)})
			continue
		}
		seen[entry.Name] = entry.Line
	}
	return true
}

// checkOVMSBase reports a base path's entry, ignored dirs, and the
// versions OVMS cannot load.
func checkOVMSBase(pass *lint.Pass, m *model.Model, base *model.OVMSBase) {
	om := m.OVMS
	configFile := m.Path(om.ConfigFile)
	if base.Entry != nil {
		entry := base.Entry
		switch {
		case base.Escapes:
			pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, File: configFile, Line: entry.BasePathLine, Message: fmt.Sprintf(
				"model '%s': base_path %q goes up with .., which OVMS forbids (\"Path … escape with .. is forbidden.\"), so it does not "+
					"load the model; give an absolute path or one below %s", entry.Name, entry.BasePath, path.Dir(configFile)+"/")})
			return
		case base.Missing:
			pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, File: configFile, Line: entry.BasePathLine, Message: fmt.Sprintf(
				"model '%s': base_path %q is read from %s's directory, and %s does not exist: OVMS logs \"Directory does not exist\" "+
					"and does not load the model; point base_path at the model's directory", entry.Name, entry.BasePath,
				configFile, m.Path(base.Dir)+"/")})
			return
		case base.File || base.Outside:
			return // a single model file, or a path outside the dir
		}
	}
	where := func(rel string) string { return m.Path(rel) }
	subject := fmt.Sprintf("model '%s'", base.Name)
	for _, ignored := range base.Ignored {
		if ignored.Name == "lost+found" {
			continue
		}
		dir := where(path.Join(base.Dir, ignored.Name)) + "/"
		var log string
		switch ignored.Reason {
		case model.IgnoredNotPositive:
			number, _ := strconv.ParseInt(strings.TrimSpace(ignored.Name), 10, 64)
			log = fmt.Sprintf("\"Expected version directory name to be a number greater than 0. Got: %d\"", number)
		case model.IgnoredOutOfRange:
			log = fmt.Sprintf("\"Directory name is out of range for supported version format. Got: %s\"", ignored.Name)
		default:
			log = fmt.Sprintf("\"Expected version directory name to be in number format. Got: %s\"", ignored.Name)
		}
		if len(base.Versions) == 0 {
			continue // reported with the model's lack of versions
		}
		pass.Report(lint.Diagnostic{Severity: lint.Warning, File: strings.TrimSuffix(dir, "/"), Message: fmt.Sprintf(
			"OVMS skips %s for %s: it logs %s and serves version %d; rename it to a number above 0 if it is a version, or move it out of %s",
			dir, subject, log, base.Versions[len(base.Versions)-1].Number, where(base.Dir)+"/")})
	}
	if len(base.Versions) == 0 {
		reportOVMSNoVersion(pass, m, base)
		return
	}
	for _, version := range base.Versions {
		opened := path.Join(base.Dir, strconv.FormatInt(version.Number, 10))
		if version.Path == opened || !hasOVMSVersionDir(base, opened) {
			continue // the dir OVMS opens, or one that is not there (below)
		}
		pass.Report(lint.Diagnostic{Severity: lint.Warning, File: where(version.Path), Message: fmt.Sprintf(
			"OVMS reads %q as version %d, the version %s/ holds: it loads only %s/; rename or remove %s/",
			version.Name, version.Number, where(opened), where(opened), where(version.Path))})
	}
	for _, problem := range base.Problems {
		severity := pass.Rule.Severity
		if !problem.Resident && severity > lint.Warning {
			severity = lint.Warning
		}
		fails := fmt.Sprintf("OVMS fails to load version %d of %s%s", problem.Number, subject, ovmsFailure(m, problem))
		switch {
		case problem.DirMissing:
			pass.Report(lint.Diagnostic{Severity: severity, File: where(path.Join(base.Dir, problem.Version)), Message: fmt.Sprintf(
				"OVMS reads %q as version %d and opens %s, which does not exist: %s (\"Missing model directory\"); rename %s to %d",
				problem.Version, problem.Number, where(problem.Dir)+"/", fails, where(path.Join(base.Dir, problem.Version))+"/", problem.Number)})
		case problem.File == "":
			pass.Report(lint.Diagnostic{Severity: severity, File: where(problem.Dir), Message: fmt.Sprintf(
				"%s holds no model file OVMS loads (an .xml with its .bin, .onnx, a .pdmodel with its .pdiparams, saved_model.pb, "+
					".tflite): %s (\"no valid model file found\"); put the model's files in %s", where(problem.Dir)+"/", fails, where(problem.Dir)+"/")})
		default:
			pass.Report(lint.Diagnostic{Severity: severity, File: where(problem.File), Message: fmt.Sprintf(
				"%s has no %s beside it%s: %s; %s", where(problem.File), path.Base(problem.Want), ovmsOtherHalves(m, problem),
				fails, ovmsPairFix(m, problem))})
		}
	}
}

// hasOVMSVersionDir says a base path has the version dir at rel.
func hasOVMSVersionDir(base *model.OVMSBase, rel string) bool {
	for _, version := range base.Versions {
		if version.Path == rel {
			return true
		}
	}
	return false
}

// ovmsFailure says what a failed load does: started with --model_path the
// server stops; from a config it serves without the model.
func ovmsFailure(m *model.Model, problem model.OVMSProblem) string {
	if m.OVMS.ConfigFile != "" {
		return ""
	}
	if problem.Resident {
		return ", and started with --model_path it stops (\"Couldn't start model manager\")"
	}
	return " if the version policy ever selects it"
}

// ovmsOtherHalves names the files of the partner's kind that are there
// under another name: OVMS takes them, OpenVINO does not.
func ovmsOtherHalves(m *model.Model, problem model.OVMSProblem) string {
	others := ovmsSiblings(m, problem)
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf(" (only %s, and OpenVINO reads the weights of %s from %s)", joinSome(others, 3), path.Base(problem.File), path.Base(problem.Want))
}

func ovmsSiblings(m *model.Model, problem model.OVMSProblem) []string {
	ext := path.Ext(problem.Want)
	var others []string
	for _, file := range m.Files {
		if path.Dir(file.Path) == problem.Dir && strings.HasSuffix(file.Path, ext) {
			others = append(others, path.Base(file.Path))
		}
	}
	return others
}

func ovmsPairFix(m *model.Model, problem model.OVMSProblem) string {
	if others := ovmsSiblings(m, problem); len(others) == 1 {
		return fmt.Sprintf("rename %s to %s", m.Path(path.Join(problem.Dir, others[0])), m.Path(problem.Want))
	}
	return fmt.Sprintf("copy %s into %s (an IR is the .xml and the .bin of one export)", path.Base(problem.Want), m.Path(problem.Dir)+"/")
}

// reportOVMSNoVersion reports a base path with no version OVMS reads.
func reportOVMSNoVersion(pass *lint.Pass, m *model.Model, base *model.OVMSBase) {
	dir := m.Path(base.Dir)
	why := "it has no directory named with a number above 0"
	var ignored []string
	for _, entry := range base.Ignored {
		ignored = append(ignored, fmt.Sprintf("%s/ (%s)", entry.Name, entry.Reason))
	}
	if len(ignored) > 0 {
		why += "; it skips " + joinSome(ignored, 3)
	}
	if len(m.Found) > 0 && base.Dir == "" {
		why += "; it holds only " + describeFound(m, m.Found)
	}
	fix := "put the model in " + m.Path(path.Join(base.Dir, "1")) + "/"
	if len(base.Ignored) == 1 {
		fix = fmt.Sprintf("rename %s to %s", m.Path(path.Join(base.Dir, base.Ignored[0].Name))+"/", m.Path(path.Join(base.Dir, "1"))+"/")
	}
	file, line := dir, 0
	if base.Entry != nil {
		file, line = m.Path(m.OVMS.ConfigFile), base.Entry.BasePathLine
	}
	pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, File: file, Line: line, Message: fmt.Sprintf(
		"OVMS finds no version of model '%s' in %s: %s, so it logs \"No version found for model in path\" and serves no version "+
			"of it (every request fails with \"Model with requested version is not found\"); %s", base.Name, dir+"/", why, fix)})
}
