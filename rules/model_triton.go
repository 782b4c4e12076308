package rules

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/onnx"
	"github.com/modellint/modellint/lint/model/triton"
)

var tritonLayout = &lint.Rule{
	ID: "MDL120", Name: "triton-layout", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "A Triton model directory Triton cannot load: config.pbtxt unparseable or naming another model, no version Triton loads, a version without the platform's model file, or an ensemble whose steps do not fit together or with their models.",
		Why: "Triton loads <repository>/<model>/config.pbtxt and the version directories its version policy selects. " +
			"It refuses a config whose name differs from the directory (\"unexpected directory name '<dir>' for model '<name>', " +
			"directory name must equal model name\"), ignores version directories with leading zeros (TF Serving's 00000123 layout), " +
			"and with no version left reports " +
			"`at least one version must be available under the version policy of model '<name>'` " +
			"(\"failed to load '<name>', no version is available\"). A version without the file the backend loads (model.onnx, " +
			"model.plan, model.pt, model.savedmodel/, model.py, or default_model_filename) fails with \"unable to find " +
			"'<path>' for model instance '<name>'\". " +
			"An ensemble (platform: \"ensemble\") is refused when a step lacks model_name, input_map or output_map, when an ensemble " +
			"input is read by no step, an output is not written from the inputs (\"output '<o>' for ensemble '<name>' is not written: at least " +
			"one of its depending tensors, '<t>', is not connected\") or a tensor is written and never read (\"ensemble tensor '<t>' is unused\"). " +
			"When the model repository is linted whole, each step is checked against the model it names: a model not in the repository " +
			"(\"ensemble '<name>' contains models that are not available or ambiguous\"), a model_version the model does not load (a step " +
			"without model_version asks for version 0), input_map and output_map keys the model's config.pbtxt does not declare, inputs left " +
			"unmapped, a max_batch_size above the model's, a tensor whose data type or shape differs between two models, and a step " +
			"that leads back to its ensemble, itself or through other ensembles (\"circular dependency between ensembles\"). Models whose " +
			"inputs and outputs are completed at load (none written, or a model.py with auto_complete_config) are not judged, nor models in " +
			"another --model-repository. With --exit-on-error (the default) one such model stops the whole server.",
		Bad: "models/\n  resnet/\n    config.pbtxt <<EOF\n      name: \"resnet50\"\n      platform: \"onnxruntime_onnx\"\n    EOF\n" +
			"    00000001/\n      model.onnx",
		Good: "models/\n  resnet/\n    config.pbtxt <<EOF\n      name: \"resnet\"\n      platform: \"onnxruntime_onnx\"\n    EOF\n" +
			"    1/\n      model.onnx",
		Fix: "Name the directory as config.pbtxt's name, use plain version numbers (1, 2), and put the platform's default file (or default_model_filename) in each version directory.",
		References: []string{
			tritonRepoDoc,
			"https://github.com/triton-inference-server/server/blob/main/docs/user_guide/model_configuration.md",
			"https://github.com/triton-inference-server/server/issues/3687",
			"https://github.com/triton-inference-server/server/blob/main/docs/user_guide/ensemble_models.md",
			"https://github.com/triton-inference-server/core/blob/main/src/model_config_utils.cc",
			"https://github.com/triton-inference-server/core/blob/main/src/ensemble_scheduler/ensemble_utils.cc",
			"https://github.com/triton-inference-server/server/issues/5474",
		},
	},
	Check: checkTritonLayout,
}

func checkTritonLayout(pass *lint.Pass) {
	m := pass.Target.Model
	if m.Layout != model.LayoutTriton {
		pass.Skip(notLayout(m, "a Triton model"))
		return
	}
	tm := m.Triton
	name := path.Base(m.Dir)
	configFile := m.Path("config.pbtxt")
	if tm.ConfigError != "" {
		pass.ReportFilef(configFile,
			"%s cannot be parsed (%s): Triton fails to load model '%s'; fix the text-format syntax (field names and enum values as in model_config.proto)",
			configFile, tm.ConfigError, name)
		return
	}
	config := tm.Config
	if config != nil && config.Name != "" && config.Name != name {
		pass.ReportFilef(configFile,
			"%s names the model %q but its directory is %q: Triton refuses it with \"unexpected directory name '%s' for model '%s', "+
				"directory name must equal model name\"; rename the directory or the name", configFile, config.Name, name, name, config.Name)
	}
	if config != nil && config.Platform == "" && config.Backend == "" && config.DefaultModelFilename == "" && !anyModelFile(m) {
		pass.ReportFilef(configFile,
			"%s sets neither platform nor backend, and no version holds a model file Triton can recognize: Triton cannot tell which "+
				"backend loads model '%s'; set platform (e.g. onnxruntime_onnx) or backend (e.g. python)", configFile, name)
	}
	if config != nil {
		checkEnsemble(pass, m)
	}
	resident := m.Resident()
	if len(resident) == 0 {
		why := "it has no version directory"
		if len(m.Versions) > 0 {
			why = "its version policy selects none of its versions"
		}
		if len(m.Ignored) > 0 {
			var ignored []string
			for _, entry := range m.Ignored {
				ignored = append(ignored, fmt.Sprintf("%s/ (%s)", entry.Name, entry.Reason))
			}
			why += "; it ignores " + joinAnd(ignored)
		}
		if len(m.Found) > 0 {
			why += "; it holds only " + describeFound(m, m.Found)
		}
		pass.ReportFilef(m.Dir,
			"Triton cannot load model '%s': %s, so it reports \"at least one version must be available under the version policy of model '%s'\"; "+
				"put the model in a version directory named with a plain number, e.g. %s", name, why, name, m.Path("1")+"/")
	}
	for _, missing := range tm.MissingSpecific {
		pass.ReportFilef(configFile,
			"%s asks for version %d, which has no directory: Triton logs \"version %d is specified for model '%s', but the version directory is not present\"; "+
				"add %s or change version_policy", configFile, missing, missing, name, m.Path(strconv.FormatInt(missing, 10))+"/")
	}
	if tm.ConfigUnread {
		// The version policy and the platform are in the config: which
		// versions Triton loads, and the file they need, are guesses.
		skipUnread(pass, m, []string{tm.ConfigFile})
		return
	}
	if tm.ConfigFile == "" && len(m.Versions) > 0 && !anyModelFile(m) {
		holds := ""
		if len(m.Found) > 0 {
			holds = " (it holds only " + describeFound(m, m.Found) + ")"
		}
		pass.ReportFilef(m.Dir,
			"%s has no config.pbtxt and no version directory holds a model file Triton recognizes%s: Triton cannot tell which backend "+
				"loads model '%s' and fails to load it; put the model file in the version directory under its default name "+
				"(model.onnx, model.plan, model.pt, model.savedmodel/, model.py), or write a config.pbtxt with a platform or backend",
			m.Dir, holds, name)
	}
	for _, version := range resident {
		if !canonical(version.Name) && !hasDir(m, strconv.FormatInt(version.Number, 10)) {
			pass.ReportFilef(m.Path(version.Path),
				"Triton reads %q as version %d and then loads it from %s, which does not exist; rename %s to %d",
				version.Name, version.Number, m.Path(strconv.FormatInt(version.Number, 10))+"/", m.Path(version.Path)+"/", version.Number)
			continue
		}
		if version.ModelFile != "" || len(tm.ModelFiles) == 0 {
			continue
		}
		want := make([]string, len(tm.ModelFiles))
		for i, file := range tm.ModelFiles {
			want[i] = m.Path(path.Join(version.Path, file))
		}
		pass.ReportFilef(m.Path(version.Path),
			"version %d has no %s: Triton fails with \"unable to find '%s' for model instance '%s'\"; put the model file there "+
				"(or set default_model_filename)", version.Number, joinOr(want), want[0], name)
	}
}

func anyModelFile(m *model.Model) bool {
	for _, version := range m.Versions {
		if version.ModelFile != "" {
			return true
		}
	}
	return false
}

var tritonConfigMismatch = &lint.Rule{
	ID: "MDL121", Name: "triton-config-mismatch", Severity: lint.Error,
	Artifact: lint.ArtifactModel, Needs: []lint.Fact{lint.FactModel},
	Doc: lint.Doc{
		Summary: "config.pbtxt's inputs, outputs or max_batch_size do not match the ONNX model Triton loads.",
		Why: "Triton's ONNX Runtime backend compares config.pbtxt with the model when it loads it and refuses the model on the " +
			"first difference, with errors such as " +
			"`unable to load model '<name>', configuration expects 3 inputs, model provides 2` or `unexpected inference input 'INPUT_UNKNOWN', allowed inputs are: INPUT0, INPUT1` or `model '<name>', tensor 'INPUT0': the model expects 2 dimensions (shape [-1,16]) but the model configuration specifies 3 dimensions (an initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete shape [-1,16,1])` " +
			"With max_batch_size > 0 every tensor gets a leading batch dimension that the model must declare as dynamic; " +
			"a model whose first dimension is fixed cannot batch (\"model does not support batching while non-zero max_batch_size is specified\"). " +
			"Inputs are compared by name, data type and shape (dynamic dimensions match anything), outputs exactly, as Triton does. " +
			"The model must take exactly as many inputs as Triton counts: the listed inputs less those marked optional (an optional " +
			"input names an initializer the model also lists as an input, and is refused with max_batch_size > 0), plus one per " +
			"batch_input, one per sequence_batching control kind and one per sequence state; each sequence control must be a model " +
			"input of shape [1] and of the type the control feeds (\"configuration specified sequence control 'START', but model does " +
			"not provide that input\").",
		Bad: "models/\n" +
			"  simple/\n" +
			"    config.pbtxt <<EOF\n" +
			"      platform: \"onnxruntime_onnx\"\n" +
			"      max_batch_size: 8\n" +
			"      input [ { name: \"INPUT0\", data_type: TYPE_INT32, dims: [ 16, 1 ] } ]\n" +
			"      output [ { name: \"OUTPUT0\", data_type: TYPE_INT32, dims: [ 16 ] } ]\n" +
			"    EOF\n" +
			"    1/\n" +
			"      model.onnx <<pbtxt\n" +
			"        ir_version: 8\n" +
			"        opset_import { version: 17 }\n" +
			"        graph {\n" +
			"          node { op_type: \"Relu\" input: \"INPUT0\" output: \"OUTPUT0\" }\n" +
			"          input {\n" +
			"            name: \"INPUT0\"\n" +
			"            type { tensor_type { elem_type: INT32 shape { dim { dim_param: \"batch\" } dim { dim_value: 16 } } } }\n" +
			"          }\n" +
			"          output {\n" +
			"            name: \"OUTPUT0\"\n" +
			"            type { tensor_type { elem_type: INT32 shape { dim { dim_param: \"batch\" } dim { dim_value: 16 } } } }\n" +
			"          }\n" +
			"        }\n" +
			"      pbtxt",
		Good: "models/\n" +
			"  simple/\n" +
			"    config.pbtxt <<EOF\n" +
			"      platform: \"onnxruntime_onnx\"\n" +
			"      max_batch_size: 8\n" +
			"      input [ { name: \"INPUT0\", data_type: TYPE_INT32, dims: [ 16 ] } ]\n" +
			"      output [ { name: \"OUTPUT0\", data_type: TYPE_INT32, dims: [ 16 ] } ]\n" +
			"    EOF\n" +
			"    1/\n" +
			"      model.onnx <<pbtxt\n" +
			"        ir_version: 8\n" +
			"        opset_import { version: 17 }\n" +
			"        graph {\n" +
			"          node { op_type: \"Relu\" input: \"INPUT0\" output: \"OUTPUT0\" }\n" +
			"          input {\n" +
			"            name: \"INPUT0\"\n" +
			"            type { tensor_type { elem_type: INT32 shape { dim { dim_param: \"batch\" } dim { dim_value: 16 } } } }\n" +
			"          }\n" +
			"          output {\n" +
			"            name: \"OUTPUT0\"\n" +
			"            type { tensor_type { elem_type: INT32 shape { dim { dim_param: \"batch\" } dim { dim_value: 16 } } } }\n" +
			"          }\n" +
			"        }\n" +
			"      pbtxt",
		Fix: "Write inputs and outputs as the model declares them (without the batch dimension when max_batch_size > 0), or leave them out and let Triton auto-complete the configuration.",
		References: []string{
			"https://github.com/triton-inference-server/server/blob/main/docs/user_guide/model_configuration.md#inputs-and-outputs",
			"https://github.com/triton-inference-server/onnxruntime_backend",
			"https://github.com/triton-inference-server/onnxruntime_backend/blob/main/src/onnxruntime.cc",
		},
	},
	Check: checkTritonConfigMismatch,
}

func checkTritonConfigMismatch(pass *lint.Pass) {
	m := pass.Target.Model
	if m.Layout != model.LayoutTriton || m.Triton.Config == nil {
		pass.Skip(notLayout(m, "a Triton model with a readable config.pbtxt"))
		if m.Triton != nil && m.Triton.ConfigUnread {
			skipUnread(pass, m, []string{m.Triton.ConfigFile})
		}
		return
	}
	config := m.Triton.Config
	if len(config.Inputs) == 0 && len(config.Outputs) == 0 {
		pass.Skip("config.pbtxt lists no inputs or outputs (Triton auto-completes them from the model)")
		return
	}
	var coverage lint.Coverage
	var unread []string
	for _, version := range m.Resident() {
		onnxModel := onnxAt(m, version.ModelFile)
		if onnxModel == nil {
			unread = append(unread, unreadONNX(m, version.ModelFile)...)
			continue
		}
		coverage.Checked()
		file := m.Path(m.Triton.ConfigFile)
		name := path.Base(m.Dir)
		model := m.Path(version.ModelFile)
		for _, problem := range compareTriton(config, onnxModel, name) {
			pass.ReportFilef(file, "%s does not match %s: Triton fails to load it with \"%s\"; %s", file, model, problem.triton, problem.fix)
		}
	}
	coverage.SkipIfNone(pass, "no ONNX model file to compare with")
	skipUnread(pass, m, unread)
}

// onnxAt returns the ONNX model at a version's model file: the file, or
// model.onnx in a dir of that name.
func onnxAt(m *model.Model, modelFile string) *onnx.Model {
	for _, file := range m.ONNX {
		if file.Model != nil && (file.Path == modelFile || file.Path == path.Join(modelFile, "model.onnx")) {
			return file.Model
		}
	}
	return nil
}

// unreadONNX returns the ONNX file at a version's model file, as onnxAt
// finds it, when it is in Model.Unread.
func unreadONNX(m *model.Model, modelFile string) []string {
	var unread []string
	for _, rel := range []string{modelFile, path.Join(modelFile, "model.onnx")} {
		if strings.HasSuffix(rel, ".onnx") && m.IsUnread(rel) {
			unread = append(unread, rel)
		}
	}
	return unread
}

type tritonProblem struct{ triton, fix string }

// compareTriton checks a config against an ONNX model the way Triton's
// ONNX Runtime backend does (ValidateInputs, ValidateOutputs,
// CompareDimsSupported).
func compareTriton(config *triton.Config, model *onnx.Model, name string) []tritonProblem {
	var problems []tritonProblem
	inputs := map[string]onnx.ValueInfo{}
	var inputNames []string
	for _, input := range model.Inputs {
		inputs[input.Name] = input
		inputNames = append(inputNames, input.Name)
	}
	outputs := map[string]onnx.ValueInfo{}
	var outputNames []string
	for _, output := range model.Outputs {
		outputs[output.Name] = output
		outputNames = append(outputNames, output.Name)
	}
	problems = append(problems, compareControls(config, inputs, name)...)
	if expected := expectedInputs(config); len(config.Inputs) > 0 && expected != len(model.Inputs) {
		problems = append(problems, tritonProblem{
			triton: fmt.Sprintf("unable to load model '%s', configuration expects %d inputs, model provides %d", name, expected, len(model.Inputs)),
			fix:    inputCountFix(config, expected, inputNames),
		})
		return problems
	}
	// A request may also feed an initializer the model lists as an input
	// (onnxruntime.cc ValidateInputs merges the overridable initializers
	// into the inputs it checks the config's against).
	for _, input := range model.Overridable {
		inputs[input.Name] = input
		inputNames = append(inputNames, input.Name)
	}
	sort.Strings(inputNames) // std::set, as CheckAllowedModelInput lists them
	check := func(tensor triton.Tensor, infos map[string]onnx.ValueInfo, names []string, kind string, exact bool) {
		info, ok := infos[tensor.Name]
		if !ok {
			problems = append(problems, tritonProblem{
				triton: fmt.Sprintf("unexpected inference %s '%s', allowed %ss are: %s", kind, tensor.Name, kind, strings.Join(names, ", ")),
				fix:    fmt.Sprintf("use the model's %s names", kind),
			})
			return
		}
		if want := onnx.TypeName(info.ElemType); want != "" && tensor.DataType != want {
			problems = append(problems, tritonProblem{
				triton: fmt.Sprintf("unable to load model '%s', unexpected datatype %s for %s '%s', expecting %s", name, strings.TrimPrefix(want, "TYPE_"), kind, tensor.Name, strings.TrimPrefix(tensor.DataType, "TYPE_")),
				fix:    fmt.Sprintf("set data_type: %s", want),
			})
		}
		if !info.HasShape {
			return
		}
		if problem := compareDims(config, tensor, info, name, exact); problem != nil {
			problems = append(problems, *problem)
		}
	}
	for _, input := range config.Inputs {
		if input.Optional && config.MaxBatchSize != 0 {
			problems = append(problems, tritonProblem{
				triton: fmt.Sprintf("unable to load model '%s', optional input '%s' is not supported for models that support batching", name, input.Name),
				fix:    fmt.Sprintf("set max_batch_size: 0 (with the batch dimension in dims), or drop optional from '%s'", input.Name),
			})
			continue
		}
		check(input, inputs, inputNames, "input", false)
	}
	for _, output := range config.Outputs {
		check(output, outputs, outputNames, "output", true)
	}
	return problems
}

// expectedInputs is the number of model inputs Triton's ONNX Runtime
// backend requires (ModelInstanceState's constructor, onnxruntime.cc in
// triton-inference-server/onnxruntime_backend, before ValidateInputs):
// the config's inputs less those marked optional (they may name
// initializers, which are not model inputs), plus one per batch_input, plus
// for sequence_batching one per control kind a control_input gives
// (START, END, READY, CORRID: ValidateBooleanSequenceControl and
// ValidateTypedSequenceControl) and one per state. ValidateInputs then
// refuses the model unless ONNX Runtime's input count, initializers
// excluded, is exactly that.
func expectedInputs(config *triton.Config) int {
	expected := len(config.Inputs) + config.BatchInputs
	for _, input := range config.Inputs {
		if input.Optional {
			expected--
		}
	}
	if sequence := config.Sequence; sequence != nil {
		expected += len(controlKinds(sequence)) + len(sequence.States)
	}
	return expected
}

// controlKinds maps each control kind sequence_batching gives to the
// control_input that feeds it. A kind given twice is refused by Triton
// ("sequence batching specifies multiple ... tensors"); the first is kept.
func controlKinds(sequence *triton.SequenceBatching) map[string]triton.SequenceControl {
	kinds := map[string]triton.SequenceControl{}
	for _, control := range sequence.Controls {
		if _, seen := kinds[control.Kind]; !seen {
			kinds[control.Kind] = control
		}
	}
	return kinds
}

// compareControls checks each sequence control the way
// ValidateBooleanSequenceControl and ValidateTypedSequenceControl do: the
// model must take the control's input (initializers do not count), with
// shape [1] after the batch dimension and the data type the server feeds.
func compareControls(config *triton.Config, inputs map[string]onnx.ValueInfo, name string) []tritonProblem {
	if config.Sequence == nil {
		return nil
	}
	kinds := controlKinds(config.Sequence)
	var problems []tritonProblem
	for _, kind := range []string{"CONTROL_SEQUENCE_START", "CONTROL_SEQUENCE_END", "CONTROL_SEQUENCE_READY", "CONTROL_SEQUENCE_CORRID"} {
		control, ok := kinds[kind]
		if !ok {
			continue
		}
		info, ok := inputs[control.Input]
		if !ok {
			problems = append(problems, tritonProblem{
				triton: fmt.Sprintf("configuration specified sequence control '%s', but model does not provide that input", control.Input),
				fix:    fmt.Sprintf("name the %s control_input after the model input that takes it, or export the model with an input '%s'", kind, control.Input),
			})
			continue
		}
		if info.HasShape {
			shape := tritonShape(info)
			if config.MaxBatchSize > 0 && len(shape) > 0 {
				shape = shape[1:]
			}
			if len(shape) != 1 || shape[0] != 1 {
				problems = append(problems, tritonProblem{
					triton: fmt.Sprintf("unable to load model '%s', sequence control '%s' in model has dims %s but dims [1] is expected", name, control.Input, shapeString(shape)),
					fix:    fmt.Sprintf("export the model with '%s' of shape [1] (after the batch dimension when max_batch_size > 0)", control.Input),
				})
				continue
			}
		}
		if want := onnx.TypeName(info.ElemType); want != "" && control.DataType != "" && control.DataType != want {
			problems = append(problems, tritonProblem{
				triton: fmt.Sprintf("unable to load model '%s', sequence control '%s', the model expects data-type %s but the model configuration specifies data-type %s",
					name, control.Input, onnx.ElemTypeName(info.ElemType), control.DataType),
				fix: controlTypeFix(control, want),
			})
		}
	}
	return problems
}

func controlTypeFix(control triton.SequenceControl, want string) string {
	if control.Kind == "CONTROL_SEQUENCE_CORRID" {
		return "set the control's data_type: " + want
	}
	switch want {
	case "TYPE_INT32":
		return "give the control int32_false_true: [ 0, 1 ]"
	case "TYPE_FP32":
		return "give the control fp32_false_true: [ 0, 1 ]"
	case "TYPE_BOOL":
		return "give the control bool_false_true: [ false, true ]"
	}
	return fmt.Sprintf("export the model with '%s' as INT32, FLOAT or BOOL, the types a control can have", control.Input)
}

// inputCountFix says how to make the config's inputs add up to what the
// model takes, naming what Triton counts besides the input list.
func inputCountFix(config *triton.Config, expected int, inputNames []string) string {
	required := 0
	for _, input := range config.Inputs {
		if !input.Optional {
			required++
		}
	}
	var extra []string
	if optional := len(config.Inputs) - required; optional > 0 {
		extra = append(extra, fmt.Sprintf("less %d optional", optional))
	}
	if config.BatchInputs > 0 {
		extra = append(extra, "plus "+plural(config.BatchInputs, "batch_input"))
	}
	if sequence := config.Sequence; sequence != nil {
		if kinds := len(controlKinds(sequence)); kinds > 0 {
			extra = append(extra, "plus "+plural(kinds, "sequence control"))
		}
		if len(sequence.States) > 0 {
			extra = append(extra, "plus "+plural(len(sequence.States), "sequence state"))
		}
	}
	if len(extra) == 0 {
		return "list exactly the model's inputs (" + strings.Join(inputNames, ", ") + ")"
	}
	fix := fmt.Sprintf("Triton expects %s: %s %s; make them account for the model's inputs (%s) once each",
		plural(expected, "model input"), plural(len(config.Inputs), "listed input"), strings.Join(extra, " "), strings.Join(inputNames, ", "))
	if required < len(config.Inputs) {
		fix += " (an optional input is not counted: it names an initializer the model also lists as an input)"
	}
	return fix
}

// tritonShape is a tensor's shape as Triton prints it: -1 for a dynamic
// dimension.
func tritonShape(info onnx.ValueInfo) []int64 {
	shape := make([]int64, len(info.Dims))
	for i, dim := range info.Dims {
		shape[i] = -1
		if dim.Fixed() {
			shape[i] = dim.Value
		}
	}
	return shape
}

// compareDims is Triton's CompareDimsSupported.
func compareDims(config *triton.Config, tensor triton.Tensor, info onnx.ValueInfo, name string, exact bool) *tritonProblem {
	modelShape := tritonShape(info)
	dims := tensor.Dims
	if tensor.HasReshape {
		dims = tensor.Reshape
	}
	prefix := fmt.Sprintf("model '%s', tensor '%s': ", name, tensor.Name)
	if config.MaxBatchSize > 0 {
		if len(modelShape) == 0 || modelShape[0] != -1 {
			return &tritonProblem{
				triton: prefix + "for the model to support batching the shape should have at least 1 dimension and the first dimension must be -1; " +
					"but shape expected by the model is " + shapeString(modelShape),
				fix: "set max_batch_size: 0 (the model has no batch dimension), or export the model with a dynamic first dimension",
			}
		}
		full := append([]int64{-1}, dims...)
		if !dimsMatch(modelShape, full, exact) {
			return &tritonProblem{
				triton: fmt.Sprintf("%sthe model expects %d dimensions (shape %s) but the model configuration specifies %d dimensions "+
					"(an initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete shape %s)",
					prefix, len(modelShape), shapeString(modelShape), len(full), shapeString(full)),
				fix: fmt.Sprintf("set dims: %s (the model's shape without its batch dimension)", shapeString(modelShape[1:])),
			}
		}
		return nil
	}
	if !dimsMatch(modelShape, dims, exact) {
		return &tritonProblem{
			triton: fmt.Sprintf("%sthe model expects %d dimensions (shape %s) but the model configuration specifies %d dimensions (shape %s)",
				prefix, len(modelShape), shapeString(modelShape), len(dims), shapeString(dims)),
			fix: fmt.Sprintf("set dims: %s", shapeString(modelShape)),
		}
	}
	return nil
}

func dimsMatch(modelShape, dims []int64, exact bool) bool {
	if len(modelShape) != len(dims) {
		return false
	}
	for i := range dims {
		if (exact || (modelShape[i] != -1 && dims[i] != -1)) && modelShape[i] != dims[i] {
			return false
		}
	}
	return true
}

func shapeString(shape []int64) string {
	parts := make([]string, len(shape))
	for i, dim := range shape {
		parts[i] = strconv.FormatInt(dim, 10)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
