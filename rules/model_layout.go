package rules

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
)

// Model dir layout (MDL101, MDL102, MDL106): where the server looks for
// versions and what it finds there.

var versionDirMissing = &lint.Rule{
	ID: "MDL101", Name: "version-dir-missing", Severity: lint.Error, Fixes: lint.FixUnsafe,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "A TF Serving base path has no numeric version directory (e.g. saved_model.pb sits directly in it).",
		Why: "TF Serving treats --model_base_path as a directory of versions: it lists the children, keeps those whose " +
			"name is a number, and loads the highest. A SavedModel copied straight into the base path (CI copied the files " +
			"without the 1/ level) has no such child, so the server logs " +
			"`No versions of servable <name> found under base path <path>. Did you forget to name your leaf directory as a number (eg. '/1/')?` " +
			"every poll, forever. It does not exit: start-up waits for the model, the gRPC and REST ports never open, the " +
			"pod stays Running but never Ready, and a liveness probe turns it into a restart loop. A dir a TF Serving container " +
			"is pointed at is linted as its base path even when it holds no model modellint recognizes (nothing, only lost+found, " +
			"only a TensorFlow checkpoint or a Keras file): the server finds no version there either.",
		Bad:  "models/resnet/\n  saved_model.pb\n  variables/\n    variables.data-00000-of-00001\n    variables.index",
		Good: "models/resnet/\n  1/\n    saved_model.pb\n    variables/\n      variables.data-00000-of-00001\n      variables.index",
		Fix: "Move saved_model.pb, variables/ and assets/ into a numeric subdirectory of the base path " +
			"(models/resnet/1/), and keep --model_base_path pointing at models/resnet.",
		References: []string{
			"https://github.com/tensorflow/serving/blob/master/tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc",
			tfServingDocs,
		},
	},
	Check: checkVersionDirMissing,
}

func checkVersionDirMissing(pass *lint.Pass) {
	m := tfServingModel(pass)
	if m == nil {
		return
	}
	for _, version := range m.Versions {
		if version.IsDir {
			return
		}
	}
	fix := fmt.Sprintf("move the model into %s", m.Path("1")+"/")
	switch {
	case m.Loose != nil:
		contents := []string{path.Base(looseFile(m.Loose))}
		dirs, _ := childDirs(m, "")
		for _, dir := range dirs {
			if dir == "variables" || dir == "assets" || dir == "assets.extra" {
				contents = append(contents, dir+"/")
			}
		}
		var moves []lint.Move
		for _, name := range contents {
			name = strings.TrimSuffix(name, "/")
			moves = append(moves, lint.Move{From: m.Path(name), To: m.Path(path.Join("1", name))})
		}
		moveFix := lint.MoveFix("move "+joinAnd(contents)+" into "+m.Path("1")+"/, the version dir TF Serving loads", moves...)
		reportFileFixed(pass, moveFix, m.Path(looseFile(m.Loose)),
			"%s is directly in the base path %s, which holds no numeric version directory: TF Serving logs "+
				"\"No versions of servable <name> found under base path %s\" forever and never opens its ports; move %s into %s%s",
			path.Base(looseFile(m.Loose)), m.Dir, m.Dir, joinAnd(contents), m.Path("1")+"/", versionLikeName(m.Dir))
	case len(m.Versions) > 0:
		pass.ReportFilef(m.Path(m.Versions[0].Path),
			"%s is a file, and the base path %s has no numeric version directory: TF Serving reads %s as version %d and fails "+
				"to load it; %s", m.Versions[0].Name, m.Dir, m.Versions[0].Name, m.Versions[0].Number, fix)
	case m.Expected:
		reportNoModel(pass, m)
	default:
		pass.ReportFilef(m.Dir,
			"the base path %s has no numeric version directory%s: TF Serving logs \"No versions of servable <name> found under base path %s\" "+
				"forever and never opens its ports; %s", m.Dir, ignoredList(m), m.Dir, renameHint(m, fix))
	}
}

// reportNoModel reports a base path that holds no model the loader
// recognises, linted as what TF Serving finds there (model.Expected):
// no version, and perhaps a model of a format it does not load.
func reportNoModel(pass *lint.Pass, m *model.Model) {
	versionDir := m.Path("1") + "/"
	holds := "holds no files and no numeric version directory" + ignoredList(m)
	if len(m.Files) > 0 {
		holds = "holds no model file and no numeric version directory" + ignoredList(m)
	}
	fix := fmt.Sprintf("export a SavedModel into %s (tf.saved_model.save), or point the server at the dir that holds one", versionDir)
	if len(m.Found) > 0 {
		holds = "holds no SavedModel in a numeric version directory, only " + describeFound(m, m.Found) + ", which TF Serving does not load"
		fix = savedModelFix(m, m.Found, versionDir)
	}
	pass.ReportFilef(m.Dir,
		"the base path %s, which the server is pointed at, %s: TF Serving logs \"No versions of servable <name> found under base path %s\" "+
			"forever and never opens its ports; %s", m.Dir, holds, m.Dir, fix)
}

// describeFound names the models of formats a layout is not made of, for
// messages: "a TensorFlow checkpoint (m/model.ckpt.*) and a Keras model (m/model.h5)".
func describeFound(m *model.Model, found []model.Found) string {
	names := make([]string, len(found))
	for i, f := range found {
		file := m.Path(f.Path)
		switch f.Format {
		case model.FormatSavedModel:
			names[i] = "a SavedModel in " + file + "/"
		case model.FormatCheckpoint:
			names[i] = "a TensorFlow checkpoint (" + file + ".*)"
		case model.FormatKeras:
			names[i] = "a Keras model (" + file + ")"
		case model.FormatGraphDef:
			names[i] = "a bare GraphDef (" + file + ")"
		case model.FormatTFLite:
			names[i] = "a TFLite model (" + file + ")"
		default:
			names[i] = "a weight file (" + file + ")"
		}
	}
	return joinSome(names, maxListedModels)
}

// maxListedModels bounds the models a message names.
const maxListedModels = 3

// savedModelFix says how to turn what a dir holds into a SavedModel in
// versionDir, the version TF Serving loads.
func savedModelFix(m *model.Model, found []model.Found, versionDir string) string {
	generic := fmt.Sprintf("export a SavedModel into %s (tf.saved_model.save)", versionDir)
	if len(found) != 1 {
		return generic
	}
	switch f := found[0]; f.Format {
	case model.FormatSavedModel:
		return fmt.Sprintf("move the contents of %s into %s", m.Path(f.Path)+"/", versionDir)
	case model.FormatCheckpoint:
		return fmt.Sprintf("restore the checkpoint in the model's code and export a SavedModel into %s with tf.saved_model.save "+
			"(a checkpoint holds the weights, not the serving signatures)", versionDir)
	case model.FormatKeras:
		return fmt.Sprintf("export it as a SavedModel into %s (model.export in Keras 3, tf.saved_model.save before)", versionDir)
	case model.FormatGraphDef:
		return fmt.Sprintf("import the graph and save it as a SavedModel with a serving signature into %s", versionDir)
	case model.FormatTFLite:
		return fmt.Sprintf("move it into %s and start TF Serving with --prefer_tflite_model, or export a SavedModel there", versionDir)
	}
	return generic + ", or serve the file with a server that reads its format"
}

// foundIn returns the models of model.Found below a dir.
func foundIn(m *model.Model, dir string) []model.Found {
	var found []model.Found
	for _, f := range m.Found {
		if strings.HasPrefix(f.Path, dir+"/") {
			found = append(found, f)
		}
	}
	return found
}

// versionLikeNames are dir names people give versions that servers do not
// read as numbers (v1, version-2).
var versionLikeNames = lazyregexp.New(`(?i)^(?:v|version[-_]?)(\d+)$`)

// versionLikeName is the hint for a dir named like a version: rename it to
// the number; "" for other names.
func versionLikeName(dir string) string {
	match := versionLikeNames.FindStringSubmatch(path.Base(dir))
	if match == nil {
		return ""
	}
	return fmt.Sprintf(" (or, if %s is meant as version %s of %s, rename it to %s and point the server at %s)",
		path.Base(dir), match[1], path.Dir(dir), match[1], path.Dir(dir))
}

// renameHint suggests renaming a lone non-numeric dir (v1, export) to 1.
func renameHint(m *model.Model, fallback string) string {
	if ignored := versionCandidates(m); len(ignored) == 1 {
		return fmt.Sprintf("rename %s to 1", m.Path(ignored[0].Name))
	}
	return fallback
}

func ignoredList(m *model.Model) string {
	ignored := versionCandidates(m)
	if len(ignored) == 0 {
		return ""
	}
	names := make([]string, 0, len(ignored))
	for _, entry := range ignored {
		names = append(names, entry.Name+"/")
	}
	return " (" + joinAnd(names) + " is not a number)"
}

// versionCandidates are the ignored dirs that may be meant as versions:
// not lost+found, which a file system makes at the root of a volume.
func versionCandidates(m *model.Model) []model.Ignored {
	var candidates []model.Ignored
	for _, ignored := range m.Ignored {
		if ignored.Name != "lost+found" {
			candidates = append(candidates, ignored)
		}
	}
	return candidates
}

var savedModelMissing = &lint.Rule{
	ID: "MDL102", Name: "saved-model-missing", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "A version directory has neither saved_model.pb nor saved_model.pbtxt.",
		Why: "TF Serving picks the highest numeric directory and asks TensorFlow to load it. Without a SavedModel file the " +
			"load fails with " +
			"`Could not find SavedModel .pb or .pbtxt at supplied export directory path: <dir>. Check that the directory exists and that you have the right permissions for accessing it.` " +
			"and the server gives up after its load retries (\"Failed to start server\", or the model stays unavailable). " +
			"Usual causes: the model was copied one level too deep (1/export/saved_model.pb), a file is named like a version, " +
			"only a chunked saved_model.cpb is there (open-source TensorFlow cannot read it), or the export is a pre-SavedModel " +
			"session bundle (export.meta). A version with only model.tflite is not reported: TF Serving loads it with --prefer_tflite_model. " +
			"Versions the default policy does not load are reported as warnings.",
		Bad:  "models/resnet/\n  1/\n    export/\n      saved_model.pb\n      variables/",
		Good: "models/resnet/\n  1/\n    saved_model.pb\n    variables/",
		Fix:  "Put saved_model.pb (with variables/ and assets/) directly in the version directory, or re-export with tf.saved_model.save.",
		References: []string{
			"https://github.com/tensorflow/tensorflow/blob/master/tensorflow/cc/saved_model/reader.cc",
			savedModelDoc,
		},
	},
	Check: checkSavedModelMissing,
}

func checkSavedModelMissing(pass *lint.Pass) {
	m := pass.Target.Model
	if m.Layout != model.LayoutTFServing && m.Layout != model.LayoutTriton {
		pass.Skip(notLayout(m, "a TF Serving base path or a Triton model"))
		return
	}
	var coverage lint.Coverage
	for _, version := range m.Versions {
		severity := versionSeverity(pass, version)
		if m.Layout == model.LayoutTFServing && !version.IsDir {
			if version.Resident {
				coverage.Checked()
				pass.Report(lint.Diagnostic{Severity: severity, File: m.Path(version.Path), Message: fmt.Sprintf("%s is a file, not a directory, but TF Serving reads every child named like a number as a version: it picks "+
					"version %d as the latest and fails to load it (\"Could not find SavedModel .pb or .pbtxt at supplied export directory path\"); "+
					"remove it or move it out of the base path", version.Name, version.Number)})
			}
			continue
		}
		saved := version.SavedModel
		if saved == nil {
			continue
		}
		coverage.Checked()
		if saved.Loadable() {
			continue
		}
		dir := m.Path(saved.Dir)
		failure := fmt.Sprintf("TF Serving fails to load version %d with \"Could not find SavedModel .pb or .pbtxt at supplied export directory path: %s\"", version.Number, dir)
		if m.Layout == model.LayoutTriton {
			failure = fmt.Sprintf("Triton's TensorFlow backend fails to load version %d", version.Number)
		}
		found := foundIn(m, saved.Dir) // what an Expected dir holds instead
		switch {
		case saved.Nested != "":
			pass.Report(lint.Diagnostic{Severity: severity, File: dir, Message: fmt.Sprintf("%s has no saved_model.pb, but %s has one: the model was copied one level too deep, and %s; move the contents of %s up into %s", dir, m.Path(saved.Nested), failure, m.Path(saved.Nested)+"/", dir+"/")})
		case saved.TFLite != "" && m.Layout == model.LayoutTFServing:
			// A TFLite version: TF Serving loads it with --prefer_tflite_model.
		case saved.Chunked != "":
			pass.Report(lint.Diagnostic{Severity: severity, File: m.Path(saved.Chunked), Message: fmt.Sprintf("%s holds only saved_model.cpb, a chunked SavedModel that open-source TensorFlow cannot read: %s; "+
				"export a saved_model.pb (keep the graph under 2 GiB by storing weights in variables)", dir, failure)})
		case saved.LegacyExport != "":
			pass.Report(lint.Diagnostic{Severity: severity, File: m.Path(saved.LegacyExport), Message: fmt.Sprintf("%s holds a pre-SavedModel session bundle (export.meta), not a SavedModel: %s; re-export the model with tf.saved_model.save", dir, failure)})
		case len(found) > 0:
			pass.Report(lint.Diagnostic{Severity: severity, File: dir, Message: fmt.Sprintf("%s has neither saved_model.pb nor saved_model.pbtxt, only %s: %s; %s", dir, describeFound(m, found), failure, savedModelFix(m, found, dir+"/"))})
		default:
			pass.Report(lint.Diagnostic{Severity: severity, File: dir, Message: fmt.Sprintf("%s has neither saved_model.pb nor saved_model.pbtxt: %s; copy the SavedModel into it", dir, failure)})
		}
	}
	coverage.SkipIfNone(pass, "no SavedModel version to check")
}

var versionDirIgnored = &lint.Rule{
	ID: "MDL106", Name: "version-dir-ignored", Severity: lint.Warning,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "A version directory the server ignores or misreads: a non-numeric name, leading zeros (Triton), a file named like a version, duplicates such as 1 and 01.",
		Why: "Servers read version names differently. TF Serving parses each child of the base path as an integer " +
			"(leading zeros allowed: 00000123 is version 123), ignores the rest, and on duplicates logs " +
			"`Duplicate version directories detected. Version 1 will be loaded from <path>` " +
			"and loads only one of them. Triton ignores names with leading zeros (\"ignore version directory '01' which contains " +
			"leading zeros in its directory name\") and non-numbers (\"... which fails to convert to integral number\"), and reads " +
			"1_old as version 1. A version that is silently skipped is a version you think you deployed and did not. When no " +
			"version at all is left, MDL101 or MDL120 reports it as an error.",
		Bad:  "models/resnet/\n  1/\n    saved_model.pb\n  01/\n    saved_model.pb\n  v2/\n    saved_model.pb",
		Good: "models/resnet/\n  1/\n    saved_model.pb\n  2/\n    saved_model.pb",
		Fix:  "Name version directories with plain numbers (1, 2, 3), one directory per version, and move everything else out of the base path.",
		References: []string{
			"https://github.com/tensorflow/serving/blob/master/tensorflow_serving/sources/storage_path/file_system_storage_path_source.cc",
			tritonRepoDoc,
		},
	},
	Check: checkVersionDirIgnored,
}

func checkVersionDirIgnored(pass *lint.Pass) {
	m := pass.Target.Model
	if m.Layout != model.LayoutTFServing && m.Layout != model.LayoutTriton {
		pass.Skip(notLayout(m, "a TF Serving base path or a Triton model"))
		return
	}
	server := "TF Serving"
	if m.Layout == model.LayoutTriton {
		server = "Triton"
	}
	served := servedVersions(m)
	if len(served) == 0 {
		return // MDL101 and MDL120 report a model with no version
	}
	for _, ignored := range m.Ignored {
		if m.Loose != nil && (ignored.Name == "variables" || ignored.Name == "assets" || ignored.Name == "assets.extra") {
			continue
		}
		switch ignored.Reason {
		case model.IgnoredLeadingZeros:
			pass.ReportFilef(m.Path(ignored.Name),
				"Triton ignores %s (\"ignore version directory '%s' which contains leading zeros in its directory name\") and serves %s; "+
					"rename it to %s", m.Path(ignored.Name)+"/", ignored.Name, served, strings.TrimLeft(ignored.Name, "0"))
		case model.IgnoredOutOfRange:
			pass.ReportFilef(m.Path(ignored.Name),
				"%s is a number beyond int64 that %s cannot read as a version; rename it to a plain version number", m.Path(ignored.Name)+"/", server)
		default:
			pass.ReportFilef(m.Path(ignored.Name),
				"%s is not a number, so %s ignores it and serves %s; rename it to a number if it is a version, or move it out of %s",
				m.Path(ignored.Name)+"/", server, served, m.Dir)
		}
	}
	if m.Loose != nil {
		pass.ReportFilef(m.Path(looseFile(m.Loose)),
			"%s is directly in the base path, where TF Serving never looks: it serves %s instead; remove it or move it into a version directory",
			m.Path(looseFile(m.Loose)), served)
	}
	byNumber := map[int64][]model.Version{}
	var numbers []int64
	for _, version := range m.Versions {
		if version.IsDir {
			if len(byNumber[version.Number]) == 0 {
				numbers = append(numbers, version.Number)
			}
			byNumber[version.Number] = append(byNumber[version.Number], version)
		}
		if !version.IsDir && !version.Resident {
			pass.ReportFilef(m.Path(version.Path),
				"%s is a file named like a version: TF Serving reads it as version %d and fails to load it if that version is ever "+
					"selected; remove it or rename it", m.Path(version.Path), version.Number)
		}
		if version.IsDir && !canonical(version.Name) && !(m.Layout == model.LayoutTFServing && leadingZerosOnly(version.Name)) {
			if m.Layout == model.LayoutTriton && len(byNumber[version.Number]) == 1 && !hasDir(m, strconv.FormatInt(version.Number, 10)) {
				continue // MDL120: Triton opens a dir that does not exist
			}
			pass.ReportFilef(m.Path(version.Path),
				"%s reads %q as version %d; rename it to %d so every server reads it the same way", server, version.Name, version.Number, version.Number)
		}
	}
	for _, number := range numbers {
		dup := byNumber[number]
		if len(dup) < 2 {
			continue
		}
		names := make([]string, len(dup))
		for i, version := range dup {
			names[i] = m.Path(version.Path)
		}
		loaded, log := dup[len(dup)-1], " and logs \"Duplicate version directories detected\""
		if m.Layout == model.LayoutTriton {
			loaded, log = model.Version{Path: strconv.FormatInt(number, 10)}, ""
		}
		all := "all"
		if len(dup) == 2 {
			all = "both"
		}
		pass.ReportFilef(m.Path(dup[0].Path),
			"%s are %s version %d: %s loads only %s%s; keep one directory per version",
			joinAnd(names), all, number, server, m.Path(loaded.Path), log)
	}
}

func canonical(name string) bool {
	n, err := strconv.ParseInt(name, 10, 64)
	return err == nil && n >= 0 && strconv.FormatInt(n, 10) == name
}

// leadingZerosOnly reports names like 00000123: only digits, so TF
// Serving reads them the same as without the zeros.
func leadingZerosOnly(name string) bool {
	return strings.Trim(name, "0123456789") == "" && len(name) > 1 && name[0] == '0'
}

func hasDir(m *model.Model, name string) bool {
	for _, version := range m.Versions {
		if version.Name == name && version.IsDir {
			return true
		}
	}
	return false
}

// servedVersions names the versions the policy loads, for messages.
func servedVersions(m *model.Model) string {
	var names []string
	for _, version := range m.Resident() {
		names = append(names, version.Name)
	}
	if len(names) == 0 {
		return ""
	}
	if len(names) == 1 {
		return "version " + names[0]
	}
	return "versions " + joinAnd(names)
}
