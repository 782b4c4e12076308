package rules

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/savedmodel"
)

// SavedModel contents (MDL103, MDL104, MDL105, MDL109, MDL110): variables,
// the graph, signatures, warmup requests and the ops the graph runs.

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
		Bad: "models/resnet/1/\n" +
			"  saved_model.pb <<pbtxt\n" +
			"    meta_graphs { meta_info_def { tags: \"serve\" } }\n" +
			"  pbtxt\n" +
			"  variables/\n" +
			"    variables.index <<checkpoint\n" +
			"      header { num_shards: 2 }\n" +
			"      entry {\n" +
			"        key: \"dense/bias/.ATTRIBUTES/VARIABLE_VALUE\"\n" +
			"        value { dtype: DT_FLOAT shape { dim { size: 2 } } shard_id: 0 size: 8 }\n" +
			"      }\n" +
			"      entry {\n" +
			"        key: \"dense/kernel/.ATTRIBUTES/VARIABLE_VALUE\"\n" +
			"        value { dtype: DT_FLOAT shape { dim { size: 2 } dim { size: 2 } } shard_id: 1 size: 16 }\n" +
			"      }\n" +
			"    checkpoint\n" +
			"    variables.data-00000-of-00002 <<float32\n" +
			"      0.1 -0.2\n" +
			"    float32",
		Good: "models/resnet/1/\n" +
			"  saved_model.pb <<pbtxt\n" +
			"    meta_graphs { meta_info_def { tags: \"serve\" } }\n" +
			"  pbtxt\n" +
			"  variables/\n" +
			"    variables.index <<checkpoint\n" +
			"      header { num_shards: 2 }\n" +
			"      entry {\n" +
			"        key: \"dense/bias/.ATTRIBUTES/VARIABLE_VALUE\"\n" +
			"        value { dtype: DT_FLOAT shape { dim { size: 2 } } shard_id: 0 size: 8 }\n" +
			"      }\n" +
			"      entry {\n" +
			"        key: \"dense/kernel/.ATTRIBUTES/VARIABLE_VALUE\"\n" +
			"        value { dtype: DT_FLOAT shape { dim { size: 2 } dim { size: 2 } } shard_id: 1 size: 16 }\n" +
			"      }\n" +
			"    checkpoint\n" +
			"    variables.data-00000-of-00002 <<float32\n" +
			"      0.1 -0.2\n" +
			"    float32\n" +
			"    variables.data-00001-of-00002 <<float32\n" +
			"      0.5 1.5 -0.5 2.0\n" +
			"    float32",
		Fix: "Copy the whole SavedModel directory (variables/ with every variables.data-K-of-N shard, and assets/) and compare sizes with the source.",
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
	var coverage lint.Coverage
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
		coverage.Checked()
		severity := versionSeverity(pass, *version)
		v := saved.Variables
		variablesDir := m.Path(path.Join(saved.Dir, "variables"))
		switch {
		case v.Index == "" && saved.HasVariableOps():
			pass.Report(lint.Diagnostic{Severity: severity, File: variablesDir, Message: fmt.Sprintf("the graph in %s has variables but %s/variables.index is missing: TensorFlow logs \"The specified SavedModel has no variables; "+
				"no checkpoints were restored\", the load succeeds and every request fails on uninitialized variables; copy variables/ from the export", m.Path(saved.File), variablesDir)})
		case v.Index != "" && v.Error != "":
			pass.Report(lint.Diagnostic{Severity: severity, File: m.Path(v.Index), Message: fmt.Sprintf("%s is not a valid checkpoint index (%s): restoring the variables fails at load; copy it again from the export", m.Path(v.Index), v.Error)})
		}
		for _, shard := range v.Shards {
			switch {
			case !shard.Present:
				pass.Report(lint.Diagnostic{Severity: severity, File: m.Path(shard.File), Message: fmt.Sprintf("%s is missing (variables.index stores tensors in %d shard(s)): restoring the variables fails at load; copy every variables.data-* file", m.Path(shard.File), len(v.Shards))})
			case shard.LFSPointer:
				// MDL108 reports Git LFS pointers.
			case shard.Size < shard.Need:
				pass.Report(lint.Diagnostic{Severity: severity, File: m.Path(shard.File), Message: fmt.Sprintf("%s is %d bytes but variables.index stores tensors up to byte %d: the file is truncated and restoring fails at load; copy it again", m.Path(shard.File), shard.Size, shard.Need)})
			}
		}
		// A missing asset fails the load only when an op opens it (a
		// lookup table's vocabulary); TensorFlow itself just passes the
		// path along. Without such an op the finding is informational.
		for _, asset := range saved.Missing {
			file := m.Path(path.Join(saved.Dir, "assets", asset))
			if reader := assetReader(saved); reader != "" {
				pass.Report(lint.Diagnostic{Severity: severity, File: file, Message: fmt.Sprintf("the graph reads assets/%s at load (it has %s ops), but %s is missing: the load fails; copy assets/ with the SavedModel", asset, reader, file)})
				continue
			}
			pass.Report(lint.Diagnostic{Severity: lint.Info, File: file, Message: fmt.Sprintf("the graph names assets/%s, but %s is missing; no op that reads files at load was found, so TensorFlow only passes "+
				"the path along, but copy assets/ with the SavedModel", asset, file)})
		}
	})
	coverage.SkipIfNone(pass, "no readable SavedModel")
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
		Bad: "models/resnet/1/\n" +
			"  saved_model.pb <<EOF\n" +
			"    version https://git-lfs.github.com/spec/v1\n" +
			"    oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n" +
			"    size 2411520\n" +
			"  EOF",
		Good: "models/resnet/1/\n" +
			"  saved_model.pb <<pbtxt\n" +
			"    saved_model_schema_version: 1\n" +
			"    meta_graphs {\n" +
			"      meta_info_def { tags: \"serve\" tensorflow_version: \"2.15.0\" }\n" +
			"      signature_def {\n" +
			"        key: \"serving_default\"\n" +
			"        value { method_name: \"tensorflow/serving/predict\" }\n" +
			"      }\n" +
			"    }\n" +
			"  pbtxt",
		Fix: "Fetch the real file (git lfs pull, or download the export again); for a graph over 2 GiB, keep weights in variables/ instead of constants.",
		References: []string{
			"https://github.com/tensorflow/tensorflow/blob/master/tensorflow/cc/saved_model/reader.cc",
			"https://git-lfs.com/",
		},
	},
	Check: checkSavedModelInvalid,
}

func checkSavedModelInvalid(pass *lint.Pass) {
	m := pass.Target.Model
	var coverage lint.Coverage
	var unread []string
	forEachSavedModel(m, func(version *model.Version, saved *model.SavedModelDir) {
		if !saved.Loadable() {
			return
		}
		coverage.Checked()
		severity := versionSeverity(pass, *version)
		file := m.Path(saved.File)
		if saved.Unread {
			unread = append(unread, saved.File) // only its size is known
		}
		switch {
		case saved.LFSPointer:
			pass.Report(lint.Diagnostic{Severity: severity, File: file, Message: fmt.Sprintf("%s is a Git LFS pointer, not the SavedModel: TensorFlow fails with \"Can't parse %s as binary proto\"; run git lfs pull "+
				"(or fetch LFS objects in CI) before the model is packaged", file, file)})
		case saved.Empty:
			pass.Report(lint.Diagnostic{Severity: severity, File: file, Message: fmt.Sprintf("%s is empty: TensorFlow reads a SavedModel without graphs and fails with \"Could not find meta graph def matching "+
				"supplied tags: { serve }\"; copy the real file from the export", file)})
		case saved.TooLarge:
			pass.Report(lint.Diagnostic{Severity: severity, File: file, Message: fmt.Sprintf("%s is %s, over protobuf's 2 GiB limit: TensorFlow cannot parse it; export the weights as variables instead of graph constants", file, humanBytes(saved.Size))})
		case saved.ParseError != "":
			pass.Report(lint.Diagnostic{Severity: severity, File: file, Message: fmt.Sprintf("%s is not a valid SavedModel (%s): TensorFlow fails with \"Can't parse %s as binary proto\"; copy the file again or re-export", file, saved.ParseError, file)})
		}
	})
	coverage.SkipIfNone(pass, "no SavedModel file")
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
		Bad: "models/resnet/1/\n" +
			"  saved_model.pb <<pbtxt\n" +
			"    meta_graphs {\n" +
			"      meta_info_def { tags: \"serve\" tags: \"gpu\" }\n" +
			"      signature_def {\n" +
			"        key: \"serving_default\"\n" +
			"        value { method_name: \"tensorflow/serving/predict\" }\n" +
			"      }\n" +
			"    }\n" +
			"  pbtxt",
		Good: "models/resnet/1/\n" +
			"  saved_model.pb <<pbtxt\n" +
			"    meta_graphs {\n" +
			"      meta_info_def { tags: \"serve\" }\n" +
			"      signature_def {\n" +
			"        key: \"serving_default\"\n" +
			"        value { method_name: \"tensorflow/serving/predict\" }\n" +
			"      }\n" +
			"    }\n" +
			"  pbtxt",
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
	var coverage lint.Coverage
	var unread []string
	forEachSavedModel(m, func(version *model.Version, saved *model.SavedModelDir) {
		if saved.Unread && version.Resident {
			unread = append(unread, saved.File)
		}
		if saved.Graph == nil || !version.Resident {
			return
		}
		coverage.Checked()
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
			pass.ReportFilef(file,
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
			pass.ReportFilef(file,
				"the serve graph in %s has no serving_default signature (%s): requests that name no signature fail "+
					"(Serving signature key \"serving_default\" not found.); export one, or make every client set signature_name",
				file, has)
		}
	})
	coverage.SkipIfNone(pass, "no readable SavedModel that the server loads")
	skipUnread(pass, m, unread)
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
		Bad: "models/resnet/1/\n" +
			"  saved_model.pb <<pbtxt\n" +
			"    meta_graphs { meta_info_def { tags: \"serve\" } }\n" +
			"  pbtxt\n" +
			"  assets.extra/\n" +
			"    tf_serving_warmup_requests <<pbtxt\n" +
			"      predict_log {\n" +
			"        request {\n" +
			"          model_spec { name: \"resnet\" signature_name: \"serving_default\" }\n" +
			"          inputs {\n" +
			"            key: \"input_1\"\n" +
			"            value { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 3 } } float_val: [0.1, 0.2, 0.3] }\n" +
			"          }\n" +
			"        }\n" +
			"      }\n" +
			"    pbtxt",
		Good: "models/resnet/1/\n" +
			"  saved_model.pb <<pbtxt\n" +
			"    meta_graphs { meta_info_def { tags: \"serve\" } }\n" +
			"  pbtxt\n" +
			"  assets.extra/\n" +
			"    tf_serving_warmup_requests <<tfrecord\n" +
			"      predict_log {\n" +
			"        request {\n" +
			"          model_spec { name: \"resnet\" signature_name: \"serving_default\" }\n" +
			"          inputs {\n" +
			"            key: \"input_1\"\n" +
			"            value { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 3 } } float_val: [0.1, 0.2, 0.3] }\n" +
			"          }\n" +
			"        }\n" +
			"      }\n" +
			"    tfrecord",
		Fix: "Write at most 1000 PredictionLog records with tf.io.TFRecordWriter, or remove the file.",
		References: []string{
			"https://www.tensorflow.org/tfx/serving/saved_model_warmup",
			"https://github.com/tensorflow/serving/blob/master/tensorflow_serving/servables/tensorflow/saved_model_warmup_util.cc",
		},
	},
	Check: checkWarmup,
}

func checkWarmup(pass *lint.Pass) {
	m := pass.Target.Model
	var coverage lint.Coverage
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
		coverage.Checked()
		file := m.Path(warmup.File)
		switch {
		case warmup.Error != "":
			pass.ReportFilef(file,
				"%s is not a valid warmup file (%s): with warmup on (the default) TF Serving fails to load version %d; "+
					"write it again with tf.io.TFRecordWriter, one PredictionLog per record", file, warmup.Error, version.Number)
		case warmup.OverLimit:
			pass.ReportFilef(file,
				"%s has more than %d records: TF Serving fails to load version %d with \"Number of warmup records exceeds the maximum (%d) at %s\"; keep at most %d",
				file, model.WarmupMaxRecords, version.Number, model.WarmupMaxRecords, file, model.WarmupMaxRecords)
		}
	})
	coverage.SkipIfNone(pass, "no warmup file")
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
		Bad: "models/resnet/1/\n" +
			"  saved_model.pb <<pbtxt\n" +
			"    meta_graphs {\n" +
			"      meta_info_def { tags: \"serve\" }\n" +
			"      graph_def {\n" +
			"        library {\n" +
			"          function {\n" +
			"            signature { name: \"__inference_serve_123\" }\n" +
			"            node_def { name: \"StatefulPartitionedCall/WriteFile\" op: \"WriteFile\" }\n" +
			"          }\n" +
			"        }\n" +
			"      }\n" +
			"    }\n" +
			"  pbtxt",
		Good: "models/resnet/1/\n" +
			"  saved_model.pb <<pbtxt\n" +
			"    meta_graphs {\n" +
			"      meta_info_def { tags: \"serve\" }\n" +
			"      graph_def {\n" +
			"        library {\n" +
			"          function {\n" +
			"            signature { name: \"__inference_serve_123\" }\n" +
			"            node_def { name: \"StatefulPartitionedCall/MatMul\" op: \"MatMul\" }\n" +
			"          }\n" +
			"        }\n" +
			"      }\n" +
			"    }\n" +
			"  pbtxt",
		Fix: "Remove the op from the serving function before export (file I/O belongs in the client or a pre-processing service); never deploy a model from an untrusted source without scanning it.",
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
	var coverage lint.Coverage
	var unread []string
	forEachSavedModel(m, func(_ *model.Version, saved *model.SavedModelDir) {
		if saved.Unread {
			unread = append(unread, saved.File)
		}
		if saved.Graph == nil {
			return
		}
		coverage.Checked()
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
		pass.ReportFilef(m.Path(saved.File),
			"the graph in %s uses %s%s: these ops read or write files or need Python, and run inside the model server at request time; "+
				"remove them from the serving function, and scan models from untrusted sources before deploying them",
			m.Path(saved.File), joinAnd(ops), detail)
	})
	coverage.SkipIfNone(pass, "no readable SavedModel graph")
	skipUnread(pass, m, unread)
}

// forEachSavedModel calls fn for every SavedModel a server loads from the
// model dir (TF Serving version dirs, Triton's model.savedmodel).
