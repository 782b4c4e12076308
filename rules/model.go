package rules

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/savedmodel"
)

const (
	tfServingDocs = "https://www.tensorflow.org/tfx/serving/serving_kubernetes"
	savedModelDoc = "https://www.tensorflow.org/guide/saved_model"
	tritonRepoDoc = "https://github.com/triton-inference-server/server/blob/main/docs/user_guide/model_repository.md"
)

var versionDirMissing = &lint.Rule{
	ID: "MDL101", Name: "version-dir-missing", Severity: lint.Error,
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
		pass.ReportFile(m.Path(looseFile(m.Loose)),
			"%s is directly in the base path %s, which holds no numeric version directory: TF Serving logs "+
				"\"No versions of servable <name> found under base path %s\" forever and never opens its ports; move %s into %s%s",
			path.Base(looseFile(m.Loose)), m.Dir, m.Dir, joinAnd(contents), m.Path("1")+"/", versionLikeName(m.Dir))
	case len(m.Versions) > 0:
		pass.ReportFile(m.Path(m.Versions[0].Path),
			"%s is a file, and the base path %s has no numeric version directory: TF Serving reads %s as version %d and fails "+
				"to load it; %s", m.Versions[0].Name, m.Dir, m.Versions[0].Name, m.Versions[0].Number, fix)
	case m.Expected:
		reportNoModel(pass, m)
	default:
		pass.ReportFile(m.Dir,
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
	pass.ReportFile(m.Dir,
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
var versionLikeName = func() func(string) string {
	pattern := regexp.MustCompile(`(?i)^(?:v|version[-_]?)(\d+)$`)
	return func(dir string) string {
		match := pattern.FindStringSubmatch(path.Base(dir))
		if match == nil {
			return ""
		}
		return fmt.Sprintf(" (or, if %s is meant as version %s of %s, rename it to %s and point the server at %s)",
			path.Base(dir), match[1], path.Dir(dir), match[1], path.Dir(dir))
	}
}()

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
	checked := false
	for _, version := range m.Versions {
		severity := versionSeverity(pass, version)
		if m.Layout == model.LayoutTFServing && !version.IsDir {
			if version.Resident {
				checked = true
				pass.ReportFileSeverity(severity, m.Path(version.Path),
					"%s is a file, not a directory, but TF Serving reads every child named like a number as a version: it picks "+
						"version %d as the latest and fails to load it (\"Could not find SavedModel .pb or .pbtxt at supplied export directory path\"); "+
						"remove it or move it out of the base path", version.Name, version.Number)
			}
			continue
		}
		saved := version.SavedModel
		if saved == nil {
			continue
		}
		checked = true
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
			pass.ReportFileSeverity(severity, dir,
				"%s has no saved_model.pb, but %s has one: the model was copied one level too deep, and %s; move the contents of %s up into %s",
				dir, m.Path(saved.Nested), failure, m.Path(saved.Nested)+"/", dir+"/")
		case saved.TFLite != "" && m.Layout == model.LayoutTFServing:
			// A TFLite version: TF Serving loads it with --prefer_tflite_model.
		case saved.Chunked != "":
			pass.ReportFileSeverity(severity, m.Path(saved.Chunked),
				"%s holds only saved_model.cpb, a chunked SavedModel that open-source TensorFlow cannot read: %s; "+
					"export a saved_model.pb (keep the graph under 2 GiB by storing weights in variables)", dir, failure)
		case saved.LegacyExport != "":
			pass.ReportFileSeverity(severity, m.Path(saved.LegacyExport),
				"%s holds a pre-SavedModel session bundle (export.meta), not a SavedModel: %s; re-export the model with tf.saved_model.save",
				dir, failure)
		case len(found) > 0:
			pass.ReportFileSeverity(severity, dir, "%s has neither saved_model.pb nor saved_model.pbtxt, only %s: %s; %s",
				dir, describeFound(m, found), failure, savedModelFix(m, found, dir+"/"))
		default:
			pass.ReportFileSeverity(severity, dir, "%s has neither saved_model.pb nor saved_model.pbtxt: %s; copy the SavedModel into it", dir, failure)
		}
	}
	if !checked {
		pass.Skip("no SavedModel version to check")
	}
}

var variablesIncomplete = &lint.Rule{
	ID: "MDL103", Name: "variables-incomplete", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "A SavedModel's variables are incomplete: variables.index or a data shard is missing or short, or an asset the graph reads is missing.",
		Why: "The weights of a SavedModel live in variables/: variables.index lists every tensor and where it is stored, " +
			"variables.data-K-of-N hold the bytes. If variables.index is missing, TensorFlow logs " +
			"`The specified SavedModel has no variables; no checkpoints were restored.` " +
			"and reports the load as a success: the model is served with uninitialized variables and every request fails " +
			"(\"Could not find variable ...\" / \"Attempting to use uninitialized value\"). A missing or truncated data shard (an " +
			"interrupted copy, a shard left out by a glob) fails the restore at load. Assets (vocabularies) named by the graph " +
			"are opened at load by vocabulary tables and dataset ops; a missing asset is an error when the graph has such an op, and informational otherwise. The index is read and its checksums verified; the data shards only need to be at least as " +
			"long as the offsets the index names.",
		Bad:  "models/resnet/1/\n  saved_model.pb\n  variables/\n    variables.index        # names 2 shards\n    variables.data-00000-of-00002",
		Good: "models/resnet/1/\n  saved_model.pb\n  variables/\n    variables.index\n    variables.data-00000-of-00002\n    variables.data-00001-of-00002",
		Fix:  "Copy the whole SavedModel directory (variables/ with every variables.data-K-of-N shard, and assets/) and compare sizes with the source.",
		References: []string{
			"https://github.com/tensorflow/tensorflow/blob/master/tensorflow/cc/saved_model/loader.cc",
			"https://github.com/tensorflow/tensorflow/blob/master/tensorflow/core/util/tensor_bundle/tensor_bundle.h",
			"https://github.com/tensorflow/serving/issues/1086",
		},
	},
	Check: checkVariables,
}

func checkVariables(pass *lint.Pass) {
	m := pass.Target.Model
	checked := false
	var unread []string
	forEachSavedModel(m, func(version *model.Version, saved *model.SavedModelDir) {
		if !saved.Loadable() || saved.Graph == nil && !saved.Unread {
			return // MDL102 and MDL104 report it
		}
		// Without the graph, whether it needs variables and which assets
		// it reads are unknown; the index still says which shards it has.
		if saved.Unread {
			unread = append(unread, saved.File)
		}
		if saved.Variables.Unread {
			unread = append(unread, saved.Variables.Index)
		}
		checked = true
		severity := versionSeverity(pass, *version)
		v := saved.Variables
		variablesDir := m.Path(path.Join(saved.Dir, "variables"))
		switch {
		case v.Index == "" && saved.HasVariableOps():
			pass.ReportFileSeverity(severity, variablesDir,
				"the graph in %s has variables but %s/variables.index is missing: TensorFlow logs \"The specified SavedModel has no variables; "+
					"no checkpoints were restored\", the load succeeds and every request fails on uninitialized variables; copy variables/ from the export",
				m.Path(saved.File), variablesDir)
		case v.Index != "" && v.Error != "":
			pass.ReportFileSeverity(severity, m.Path(v.Index),
				"%s is not a valid checkpoint index (%s): restoring the variables fails at load; copy it again from the export",
				m.Path(v.Index), v.Error)
		}
		for _, shard := range v.Shards {
			switch {
			case !shard.Present:
				pass.ReportFileSeverity(severity, m.Path(shard.File),
					"%s is missing (variables.index stores tensors in %d shard(s)): restoring the variables fails at load; copy every variables.data-* file",
					m.Path(shard.File), len(v.Shards))
			case shard.LFSPointer:
				// MDL108 reports Git LFS pointers.
			case shard.Size < shard.Need:
				pass.ReportFileSeverity(severity, m.Path(shard.File),
					"%s is %d bytes but variables.index stores tensors up to byte %d: the file is truncated and restoring fails at load; copy it again",
					m.Path(shard.File), shard.Size, shard.Need)
			}
		}
		// A missing asset fails the load only when an op opens it (a
		// lookup table's vocabulary); TensorFlow itself just passes the
		// path along. Without such an op the finding is informational.
		for _, asset := range saved.Missing {
			file := m.Path(path.Join(saved.Dir, "assets", asset))
			if reader := assetReader(saved); reader != "" {
				pass.ReportFileSeverity(severity, file,
					"the graph reads assets/%s at load (it has %s ops), but %s is missing: the load fails; copy assets/ with the SavedModel",
					asset, reader, file)
				continue
			}
			pass.ReportFileSeverity(lint.Info, file,
				"the graph names assets/%s, but %s is missing; no op that reads files at load was found, so TensorFlow only passes "+
					"the path along, but copy assets/ with the SavedModel", asset, file)
		}
	})
	if !checked {
		pass.Skip("no readable SavedModel")
	}
	skipUnread(pass, m, unread)
}

// assetReaders are ops that open a file when the model loads (vocabulary
// tables) or runs.
var assetReaders = []string{
	"FixedLengthRecordDataset", "FixedLengthRecordDatasetV2", "ImmutableConst", "InitializeTableFromTextFile",
	"InitializeTableFromTextFileV2", "ReadFile", "SentencepieceOp", "TFRecordDataset", "TFRecordDatasetV2", "TextLineDataset",
}

// assetReader names an op of the graph that reads files, or "".
func assetReader(saved *model.SavedModelDir) string {
	for _, graph := range saved.Graph.MetaGraphs {
		for _, op := range assetReaders {
			if graph.HasOp(op) {
				return op
			}
		}
	}
	return ""
}

var savedModelInvalid = &lint.Rule{
	ID: "MDL104", Name: "saved-model-invalid", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "saved_model.pb is empty, a Git LFS pointer, over protobuf's 2 GiB limit, or not a parseable SavedModel.",
		Why: "TensorFlow reads saved_model.pb as one protobuf message. A Git LFS pointer (the repository was cloned without " +
			"git lfs) or a truncated copy fails with " +
			"`Can't parse <dir>/saved_model.pb as binary proto` " +
			"An empty file parses as a SavedModel without graphs, so the load fails with \"Could not find meta graph def matching " +
			"supplied tags: { serve }\". A file over 2 GiB exceeds protobuf's limit and cannot be parsed at all. modellint decodes " +
			"the file itself (without TensorFlow) and reports where the bytes stop making sense. Versions the default policy " +
			"does not load are reported as warnings.",
		Bad:  "models/resnet/1/saved_model.pb   # 132 bytes: version https://git-lfs.github.com/spec/v1 ...",
		Good: "models/resnet/1/saved_model.pb   # 2.3 MiB SavedModel",
		Fix:  "Fetch the real file (git lfs pull, or download the export again); for a graph over 2 GiB, keep weights in variables/ instead of constants.",
		References: []string{
			"https://github.com/tensorflow/tensorflow/blob/master/tensorflow/cc/saved_model/reader.cc",
			"https://git-lfs.com/",
		},
	},
	Check: checkSavedModelInvalid,
}

func checkSavedModelInvalid(pass *lint.Pass) {
	m := pass.Target.Model
	checked := false
	var unread []string
	forEachSavedModel(m, func(version *model.Version, saved *model.SavedModelDir) {
		if !saved.Loadable() {
			return
		}
		checked = true
		severity := versionSeverity(pass, *version)
		file := m.Path(saved.File)
		if saved.Unread {
			unread = append(unread, saved.File) // only its size is known
		}
		switch {
		case saved.LFSPointer:
			pass.ReportFileSeverity(severity, file,
				"%s is a Git LFS pointer, not the SavedModel: TensorFlow fails with \"Can't parse %s as binary proto\"; run git lfs pull "+
					"(or fetch LFS objects in CI) before the model is packaged", file, file)
		case saved.Empty:
			pass.ReportFileSeverity(severity, file,
				"%s is empty: TensorFlow reads a SavedModel without graphs and fails with \"Could not find meta graph def matching "+
					"supplied tags: { serve }\"; copy the real file from the export", file)
		case saved.TooLarge:
			pass.ReportFileSeverity(severity, file,
				"%s is %s, over protobuf's 2 GiB limit: TensorFlow cannot parse it; export the weights as variables instead of graph constants",
				file, humanBytes(saved.Size))
		case saved.ParseError != "":
			pass.ReportFileSeverity(severity, file,
				"%s is not a valid SavedModel (%s): TensorFlow fails with \"Can't parse %s as binary proto\"; copy the file again or re-export",
				file, saved.ParseError, file)
		}
	})
	if !checked {
		pass.Skip("no SavedModel file")
	}
	skipUnread(pass, m, unread)
}

var servingSignatureMissing = &lint.Rule{
	ID: "MDL105", Name: "serving-signature-missing", Severity: lint.Warning,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "A SavedModel has no meta graph tagged exactly serve, or no serving_default signature.",
		Why: "TF Serving loads the meta graph whose tag set equals --saved_model_tags (default: serve) exactly; a graph tagged " +
			"{serve, gpu} or {train} does not match, and the load fails with " +
			"`Could not find meta graph def matching supplied tags: { serve }. To inspect available tag-sets in the SavedModel, please use the SavedModel CLI: saved_model_cli` " +
			"A request that names no signature uses serving_default; without it every such request fails with " +
			"`Serving signature key \"serving_default\" not found.`",
		Bad:  "saved_model_cli show --dir models/resnet/1\n  The given SavedModel contains the following tag-sets:\n  'serve, gpu'",
		Good: "saved_model_cli show --dir models/resnet/1\n  The given SavedModel contains the following tag-sets:\n  'serve'",
		Fix: "Export with tags [\"serve\"] and a serving_default signature (tf.saved_model.save(model, dir, signatures=...)), " +
			"or start the server with --saved_model_tags matching the export.",
		References: []string{
			"https://www.tensorflow.org/tfx/serving/signature_defs",
			"https://www.tensorflow.org/guide/saved_model#specifying_signatures_during_export",
		},
	},
	Check: checkServingSignature,
}

func checkServingSignature(pass *lint.Pass) {
	m := pass.Target.Model
	checked := false
	var unread []string
	forEachSavedModel(m, func(version *model.Version, saved *model.SavedModelDir) {
		if saved.Unread && version.Resident {
			unread = append(unread, saved.File)
		}
		if saved.Graph == nil || !version.Resident {
			return
		}
		checked = true
		file := m.Path(saved.File)
		var serve *savedmodel.MetaGraph
		var tagSets []string
		for i := range saved.Graph.MetaGraphs {
			graph := &saved.Graph.MetaGraphs[i]
			tagSets = append(tagSets, "{"+strings.Join(graph.Tags, ", ")+"}")
			if graph.HasTags("serve") {
				serve = graph
			}
		}
		if serve == nil {
			found := "it has no meta graph"
			if len(tagSets) > 0 {
				found = "its tag sets are " + strings.Join(tagSets, ", ")
			}
			pass.ReportFile(file,
				"no meta graph in %s is tagged exactly {serve} (%s): with the default --saved_model_tags=serve TF Serving fails with "+
					"\"Could not find meta graph def matching supplied tags: { serve }\"; export with tags [\"serve\"] or set --saved_model_tags to match",
				file, found)
			return
		}
		if serve.Signature("serving_default") == nil {
			var keys []string
			for _, signature := range serve.Signatures {
				if !strings.HasPrefix(signature.Key, "__") {
					keys = append(keys, signature.Key)
				}
			}
			has := "it has no signatures"
			if len(keys) > 0 {
				has = "its signatures are " + strings.Join(keys, ", ")
			}
			pass.ReportFile(file,
				"the serve graph in %s has no serving_default signature (%s): requests that name no signature fail "+
					"(Serving signature key \"serving_default\" not found.); export one, or make every client set signature_name",
				file, has)
		}
	})
	if !checked {
		pass.Skip("no readable SavedModel that the server loads")
	}
	skipUnread(pass, m, unread)
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
		Bad:  "models/resnet/\n  1/\n  01/\n  v2/",
		Good: "models/resnet/\n  1/\n  2/",
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
			pass.ReportFile(m.Path(ignored.Name),
				"Triton ignores %s (\"ignore version directory '%s' which contains leading zeros in its directory name\") and serves %s; "+
					"rename it to %s", m.Path(ignored.Name)+"/", ignored.Name, served, strings.TrimLeft(ignored.Name, "0"))
		case model.IgnoredOutOfRange:
			pass.ReportFile(m.Path(ignored.Name),
				"%s is a number beyond int64 that %s cannot read as a version; rename it to a plain version number", m.Path(ignored.Name)+"/", server)
		default:
			pass.ReportFile(m.Path(ignored.Name),
				"%s is not a number, so %s ignores it and serves %s; rename it to a number if it is a version, or move it out of %s",
				m.Path(ignored.Name)+"/", server, served, m.Dir)
		}
	}
	if m.Loose != nil {
		pass.ReportFile(m.Path(looseFile(m.Loose)),
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
			pass.ReportFile(m.Path(version.Path),
				"%s is a file named like a version: TF Serving reads it as version %d and fails to load it if that version is ever "+
					"selected; remove it or rename it", m.Path(version.Path), version.Number)
		}
		if version.IsDir && !canonical(version.Name) && !(m.Layout == model.LayoutTFServing && leadingZerosOnly(version.Name)) {
			if m.Layout == model.LayoutTriton && len(byNumber[version.Number]) == 1 && !hasDir(m, strconv.FormatInt(version.Number, 10)) {
				continue // MDL120: Triton opens a dir that does not exist
			}
			pass.ReportFile(m.Path(version.Path),
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
		pass.ReportFile(m.Path(dup[0].Path),
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

var modelTooLarge = &lint.Rule{
	ID: "MDL107", Name: "model-too-large", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "The model directory is larger than the configured model.maxSize.",
		Why: "A model that grew past what the deployment was sized for (a fatter export, an extra version left in the base " +
			"path, weights duplicated in .bin and .safetensors) fails late: the storage initializer fills the emptyDir and the " +
			"pod is evicted, the image no longer fits the node's disk, or the server is OOMKilled (exit 137) while loading. " +
			"The size counted is every file under the directory, as du -sb reports it (.git excluded). Skipped when model.maxSize is not set.",
		Bad:  "# .modellint.yaml\nmodel:\n  maxSize: 2Gi\n# models/resnet/ holds 1/ and 2/, 1.4 GiB each: 2.8 GiB",
		Good: "# .modellint.yaml\nmodel:\n  maxSize: 2Gi\n# models/resnet/ holds only 2/: 1.4 GiB",
		Fix:  "Remove versions and files the server does not load, or raise model.maxSize together with the memory, disk and startup budgets that depend on it.",
		References: []string{
			"https://www.tensorflow.org/tfx/serving/serving_config#serving_a_specific_version_of_a_model",
			"https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/",
		},
	},
	Check: checkModelTooLarge,
}

func checkModelTooLarge(pass *lint.Pass) {
	m := pass.Target.Model
	limit, ok := pass.Config.ModelMaxSize()
	if !ok {
		pass.Skip("model.maxSize is not set in the config")
		return
	}
	if m.Bytes <= limit {
		return
	}
	largest := m.Files[0]
	for _, file := range m.Files {
		if file.Size > largest.Size {
			largest = file
		}
	}
	pass.ReportFile(m.Dir,
		"%s holds %s in %d files, more than model.maxSize %s (%s); the largest file is %s (%s); remove versions or files the server "+
			"does not load, or raise the limit together with the memory and disk it stands for",
		m.Dir, humanBytes(m.Bytes), len(m.Files), pass.Config.Model.MaxSize, humanBytes(limit), m.Path(largest.Path), humanBytes(largest.Size))
}

var lfsPointer = &lint.Rule{
	ID: "MDL108", Name: "lfs-pointer", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "A model file is a Git LFS pointer, a weight file is empty, or a file is a symlink that leaves the model directory.",
		Why: "A repository cloned without git lfs holds ~130-byte text files (\"version https://git-lfs.github.com/spec/v1 ...\") " +
			"in place of weights; the server then fails deep inside its loader: safetensors reports \"Error while deserializing " +
			"header: HeaderTooLarge\", TensorFlow \"Can't parse ... as binary proto\" or a failed restore, PyTorch \"invalid load key, 'v'\". " +
			"An empty weight file is an interrupted copy. A symlink that points outside the model directory (a Hugging Face cache " +
			"snapshot links into ../../blobs) dangles in a container that mounts or copies only the directory; it is an error for " +
			"a weight file and a warning for other files.",
		Bad:  "models/llm/model.safetensors   # 134 bytes\n  version https://git-lfs.github.com/spec/v1\n  oid sha256:...\n  size 4965799096",
		Good: "models/llm/model.safetensors   # 4.6 GiB",
		Fix:  "Run git lfs pull (or enable LFS in the CI checkout), copy symlinked files with cp -L, and re-copy empty files from the source.",
		References: []string{
			"https://git-lfs.com/",
			"https://github.com/huggingface/transformers/issues/27923",
			"https://huggingface.co/docs/huggingface_hub/guides/manage-cache",
		},
	},
	Check: checkLFSPointer,
}

func checkLFSPointer(pass *lint.Pass) {
	m := pass.Target.Model
	ownRule := map[string]bool{} // files other rules report
	forEachSavedModel(m, func(_ *model.Version, saved *model.SavedModelDir) {
		ownRule[saved.File] = true
	})
	if m.Loose != nil {
		ownRule[m.Loose.File] = true
	}
	if m.Triton != nil {
		ownRule[m.Triton.ConfigFile] = true
	}
	var unread []string
	for _, file := range m.Files {
		switch {
		case file.LFSPointer && !ownRule[file.Path]:
			pass.ReportFile(m.Path(file.Path),
				"%s is a Git LFS pointer (%d bytes of text), not the file it stands for: the server fails to load it; run git lfs pull "+
					"(or fetch LFS objects in the CI checkout) before the model is packaged", m.Path(file.Path), file.Size)
		case file.Size == 0 && file.Weight:
			switch allowed, index := emptyShard(m, file.Path); {
			case index != "":
				unread = append(unread, index) // it says whether the shard holds anything
			case !allowed:
				pass.ReportFile(m.Path(file.Path),
					"%s is an empty weight file (an interrupted copy?): the server fails to load it; copy it again from the source", m.Path(file.Path))
			}
		case file.MayBeLFSPointer() && m.IsUnread(file.Path) && !ownRule[file.Path]:
			unread = append(unread, file.Path)
		}
	}
	for _, link := range m.Links {
		// A weight file behind a broken link fails the load; another file
		// (a README, a tokenizer the server may not need) might not.
		severity := pass.Rule.Severity
		if !link.Weight {
			severity = min(severity, lint.Warning)
		}
		if link.Dangling {
			pass.ReportFileSeverity(severity, m.Path(link.Path),
				"%s is a symlink to %s, which does not exist; copy the real file into the model directory", m.Path(link.Path), link.Target)
			continue
		}
		pass.ReportFileSeverity(severity, m.Path(link.Path),
			"%s is a symlink to %s, outside the model directory: a container that mounts or copies only %s gets a dangling link; "+
				"copy the target into the directory (cp -L, rsync --copy-links)", m.Path(link.Path), link.Target, m.Dir)
	}
	skipUnread(pass, m, unread)
}

// emptyShard says an empty file is a variables shard that holds nothing
// the index stores (TensorFlow writes one per shard even when it is
// unused), or names the index that would say, when it was not read.
func emptyShard(m *model.Model, rel string) (allowed bool, unreadIndex string) {
	forEachSavedModel(m, func(_ *model.Version, saved *model.SavedModelDir) {
		v := saved.Variables
		if v.Unread && path.Dir(rel) == path.Join(saved.Dir, "variables") && strings.HasPrefix(path.Base(rel), "variables.data-") {
			unreadIndex = v.Index
		}
		for _, shard := range v.Shards {
			if shard.File == rel && shard.Need == 0 {
				allowed = true
			}
		}
	})
	return allowed, unreadIndex
}

var warmupInvalid = &lint.Rule{
	ID: "MDL109", Name: "warmup-invalid", Severity: lint.Warning,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "assets.extra/tf_serving_warmup_requests is not a valid TFRecord file of PredictionLogs, or has more than 1000 records.",
		Why: "With model warmup on (--enable_model_warmup, the default), TF Serving replays the warmup file before it marks a " +
			"version available, and a bad file fails the load: framing or checksum errors end in \"... Please verify your warmup " +
			"data is in TFRecord format.\", a record that is not a PredictionLog in \"Failed to parse warmup record\", and more than " +
			"1000 records in " +
			"`Number of warmup records exceeds the maximum (1000) at <path>` " +
			"Record framing and checksums are checked for the whole file; record contents are checked for the first 64 MiB.",
		Bad:  "models/resnet/1/assets.extra/tf_serving_warmup_requests   # 5000 records",
		Good: "models/resnet/1/assets.extra/tf_serving_warmup_requests   # 100 records written with tf.io.TFRecordWriter",
		Fix:  "Write at most 1000 PredictionLog records with tf.io.TFRecordWriter, or remove the file.",
		References: []string{
			"https://www.tensorflow.org/tfx/serving/saved_model_warmup",
			"https://github.com/tensorflow/serving/blob/master/tensorflow_serving/servables/tensorflow/saved_model_warmup_util.cc",
		},
	},
	Check: checkWarmup,
}

func checkWarmup(pass *lint.Pass) {
	m := pass.Target.Model
	checked := false
	var unread []string
	forEachSavedModel(m, func(version *model.Version, saved *model.SavedModelDir) {
		warmup := saved.Warmup
		if warmup == nil || warmup.LFSPointer {
			return
		}
		if warmup.Unread {
			unread = append(unread, warmup.File)
			return
		}
		checked = true
		file := m.Path(warmup.File)
		switch {
		case warmup.Error != "":
			pass.ReportFile(file,
				"%s is not a valid warmup file (%s): with warmup on (the default) TF Serving fails to load version %d; "+
					"write it again with tf.io.TFRecordWriter, one PredictionLog per record", file, warmup.Error, version.Number)
		case warmup.OverLimit:
			pass.ReportFile(file,
				"%s has more than %d records: TF Serving fails to load version %d with \"Number of warmup records exceeds the maximum (%d) at %s\"; keep at most %d",
				file, model.WarmupMaxRecords, version.Number, model.WarmupMaxRecords, file, model.WarmupMaxRecords)
		}
	})
	if !checked {
		pass.Skip("no warmup file")
	}
	skipUnread(pass, m, unread)
}

var unsafeGraphOp = &lint.Rule{
	ID: "MDL110", Name: "unsafe-graph-op", Severity: lint.Warning,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "The SavedModel graph (or its function library) uses file or process ops: ReadFile, WriteFile, MatchingFiles, PyFunc, a PrintV2 to a file.",
		Why: "A SavedModel is code: every op in its graph runs inside the model server with the server's file system and " +
			"credentials. ReadFile/WriteFile/MatchingFiles let a model read secrets or write to disk at request time (the ops " +
			"TensorFlow's own saved_model_cli scan and ModelScan flag), a PrintV2 with output_stream file://... writes files, and " +
			"PyFunc/EagerPyFunc need a Python interpreter that TF Serving does not have, so they fail at the first request. " +
			"Ops are collected from the graph and every function in its library, where TF2 exports keep almost all of them.",
		Bad:  "saved_model_cli scan --dir models/resnet/1\n  'WriteFile' op found in function __inference_serve_123",
		Good: "saved_model_cli scan --dir models/resnet/1\n  No denylisted ops found.",
		Fix:  "Remove the op from the serving function before export (file I/O belongs in the client or a pre-processing service); never deploy a model from an untrusted source without scanning it.",
		References: []string{
			"https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/tools/saved_model_cli.py",
			"https://github.com/protectai/modelscan",
		},
	},
	Check: checkUnsafeGraphOp,
}

// unsafeOps are ops that touch files or need Python.
var unsafeOps = []string{"EagerPyFunc", "MatchingFiles", "PyFunc", "PyFuncStateless", "ReadFile", "WriteFile"}

func checkUnsafeGraphOp(pass *lint.Pass) {
	m := pass.Target.Model
	checked := false
	var unread []string
	forEachSavedModel(m, func(_ *model.Version, saved *model.SavedModelDir) {
		if saved.Unread {
			unread = append(unread, saved.File)
		}
		if saved.Graph == nil {
			return
		}
		checked = true
		found := map[string]bool{}
		var fileStreams []string
		for _, graph := range saved.Graph.MetaGraphs {
			for _, op := range unsafeOps {
				if graph.HasOp(op) {
					found[op] = true
				}
			}
			for _, stream := range graph.PrintStreams {
				if strings.HasPrefix(stream, "file://") {
					fileStreams = append(fileStreams, stream)
				}
			}
		}
		if len(fileStreams) > 0 {
			found["PrintV2"] = true
		}
		if len(found) == 0 {
			return
		}
		ops := make([]string, 0, len(found))
		for op := range found {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		detail := ""
		if len(fileStreams) > 0 {
			detail = fmt.Sprintf(" (PrintV2 writes to %s)", strings.Join(uniqueStrings(fileStreams), ", "))
		}
		pass.ReportFile(m.Path(saved.File),
			"the graph in %s uses %s%s: these ops read or write files or need Python, and run inside the model server at request time; "+
				"remove them from the serving function, and scan models from untrusted sources before deploying them",
			m.Path(saved.File), joinAnd(ops), detail)
	})
	if !checked {
		pass.Skip("no readable SavedModel graph")
	}
	skipUnread(pass, m, unread)
}

// forEachSavedModel calls fn for every SavedModel a server loads from the
// model dir (TF Serving version dirs, Triton's model.savedmodel).
func forEachSavedModel(m *model.Model, fn func(*model.Version, *model.SavedModelDir)) {
	for i := range m.Versions {
		if saved := m.Versions[i].SavedModel; saved != nil {
			fn(&m.Versions[i], saved)
		}
	}
}

// skipUnread marks the pass skipped when content the rule needs is in
// Model.Unread: what it would show is unknown, so the rule cannot pass.
// Findings still fail it. Called last, its reason replaces the rule's own.
func skipUnread(pass *lint.Pass, m *model.Model, unread []string) {
	if len(unread) == 0 {
		return
	}
	names := uniqueStrings(unread)
	for i, rel := range names {
		names[i] = m.Path(rel)
	}
	pass.Skip("not read from the image: " + joinSome(names, maxListedFiles))
}

// maxListedFiles bounds the files a skip reason names.
const maxListedFiles = 5

// tfServingModel returns the model when it is a TF Serving base path, and
// marks the rule skipped otherwise.
func tfServingModel(pass *lint.Pass) *model.Model {
	m := pass.Target.Model
	if m.Layout != model.LayoutTFServing {
		pass.Skip(notLayout(m, "a TF Serving base path"))
		return nil
	}
	return m
}

func notLayout(m *model.Model, want string) string {
	return fmt.Sprintf("not %s (layout: %s)", want, m.Layout)
}

// versionSeverity keeps the rule's severity for versions the policy loads
// and lowers it to a warning for the others: a broken old version fails
// only when someone changes the version policy.
func versionSeverity(pass *lint.Pass, version model.Version) lint.Severity {
	if version.Resident || pass.Rule.Severity < lint.Warning {
		return pass.Rule.Severity
	}
	return lint.Warning
}

func looseFile(saved *model.SavedModelDir) string {
	if saved.File != "" {
		return saved.File
	}
	return saved.Chunked
}

func childDirs(m *model.Model, dir string) ([]string, bool) {
	set := map[string]bool{}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	for _, file := range m.Files {
		rest, ok := strings.CutPrefix(file.Path, prefix)
		if !ok {
			continue
		}
		if i := strings.Index(rest, "/"); i > 0 {
			set[rest[:i]] = true
		}
	}
	dirs := make([]string, 0, len(set))
	for name := range set {
		dirs = append(dirs, name)
	}
	sort.Strings(dirs)
	return dirs, len(dirs) > 0
}

// joinAnd lists items as "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// joinSome lists the first n items as joinAnd does, and counts the rest.
func joinSome(items []string, n int) string {
	if len(items) <= n {
		return joinAnd(items)
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

func uniqueStrings(values []string) []string {
	set := map[string]bool{}
	var out []string
	for _, value := range values {
		if !set[value] {
			set[value] = true
			out = append(out, value)
		}
	}
	sort.Strings(out)
	return out
}

// humanBytes writes a size the way people read it: 2.4 GiB, 512 KiB, 20 B.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	value, exp := float64(n)/unit, 0
	for value >= unit && exp < 5 {
		value /= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", value, "KMGTPE"[exp])
}
