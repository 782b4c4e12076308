package rules

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/triton"
)

// Ensembles, as Triton checks them when it loads one (triton core's
// ValidateEnsembleSchedulingConfig in model_config_utils.cc, the dependency
// graph in model_repository_manager.cc, ValidateEnsembleConfig in
// ensemble_scheduler/ensemble_utils.cc): first the config alone, then each
// step against the model it names, once that model is loaded.

// ensembleCheck is one ensemble config being checked.
type ensembleCheck struct {
	pass   *lint.Pass
	m      *model.Model
	config *triton.Config
	name   string // the ensemble's name, as Triton's messages give it
	file   string // config.pbtxt, as reported
}

// checkEnsemble reports what makes Triton refuse an ensemble model.
func checkEnsemble(pass *lint.Pass, m *model.Model) {
	config := m.Triton.Config
	if config == nil || config.Scheduling == nil {
		return
	}
	name := config.Name
	if name == "" {
		name = path.Base(m.Dir)
	}
	e := &ensembleCheck{pass: pass, m: m, config: config, name: name, file: m.Path(m.Triton.ConfigFile)}
	if len(config.Scheduling.Steps) == 0 {
		e.report(0, "%s has an ensemble_scheduling without steps: Triton refuses ensemble '%s' with \"must specify 'step' for ensemble '%s'\"; "+
			"add a step for each model the ensemble runs", e.file, name, name)
		return
	}
	if !e.checkSteps() {
		return
	}
	e.checkCycle()
	e.checkDataFlow()
	if m.Triton.Repository != nil {
		for i := range config.Scheduling.Steps {
			e.checkStepModel(i)
		}
		e.checkConsistency()
	}
}

// report reports a finding on a line of config.pbtxt (0: the file).
func (e *ensembleCheck) report(line int, format string, args ...any) {
	e.pass.Report(lint.Diagnostic{Severity: e.pass.Rule.Severity, File: e.file, Line: line, Message: fmt.Sprintf(format, args...)})
}

// checkSteps checks that each step names a model and maps tensors both
// ways, and that no ensemble tensor is written twice (BuildEnsembleGraph);
// false when the data flow cannot be followed.
func (e *ensembleCheck) checkSteps() bool {
	ok := true
	writtenBy := map[string]int{}
	for i, step := range e.config.Scheduling.Steps {
		for _, missing := range []struct {
			field string
			empty bool
		}{{"model_name", step.ModelName == ""}, {"input_map", len(step.InputMap) == 0}, {"output_map", len(step.OutputMap) == 0}} {
			if missing.empty {
				ok = false
				e.report(step.Line, "step %d of ensemble '%s' has no %s: Triton refuses the ensemble with \"must specify '%s' in step %d of ensemble '%s'\"; "+
					"write the step's %s", i, e.name, missing.field, missing.field, i, e.name, missing.field)
			}
		}
		for _, output := range step.OutputMap {
			if first, twice := writtenBy[output.Value]; twice {
				ok = false
				e.report(output.Line, "step %d of ensemble '%s' writes ensemble tensor '%s', which step %d writes too: Triton refuses the ensemble with "+
					"\"ensemble tensor '%s' can appear in an output map only once for ensemble '%s' step %d\"; give one of them another name",
					i, e.name, output.Value, first, output.Value, e.name, i)
				continue
			}
			writtenBy[output.Value] = i
		}
	}
	return ok
}

// maxEnsembleDepth bounds how deep checkCycle follows ensembles that run
// ensembles: a repository's graphs are a few levels deep.
const maxEnsembleDepth = 64

// checkCycle reports a step that leads back to the ensemble, itself or
// through ensembles of the repository: Triton's dependency graph refuses
// every ensemble of the cycle (CircularcyCheck in
// model_repository_manager.cc).
func (e *ensembleCheck) checkCycle() {
	self := path.Base(e.m.Dir)
	for i, step := range e.config.Scheduling.Steps {
		chain, ok := e.leadsBack(step.ModelName, self, map[string]bool{}, 0)
		if !ok {
			continue
		}
		last := self
		if len(chain) > 1 {
			last = chain[len(chain)-2]
		}
		e.report(step.NameLine(), "step %d of ensemble '%s' runs model '%s', which leads back to the ensemble (%s -> %s): Triton "+
			"refuses every ensemble of the cycle with \"circular dependency between ensembles: %s -> ... -> %s -> %s\"; remove "+
			"the step that closes the cycle", i, e.name, step.ModelName, self, strings.Join(chain, " -> "), self, last, self)
		return
	}
}

// leadsBack returns the models from name to target when name is target
// or an ensemble of the repository one of whose steps leads back to it.
func (e *ensembleCheck) leadsBack(name, target string, seen map[string]bool, depth int) ([]string, bool) {
	if name == target {
		return []string{name}, true
	}
	repository := e.m.Triton.Repository
	if repository == nil || seen[name] || depth == maxEnsembleDepth {
		return nil, false
	}
	seen[name] = true
	next := repository.Models[name]
	if next == nil || next.Triton == nil || next.Triton.Config == nil || next.Triton.Config.Scheduling == nil {
		return nil, false
	}
	for _, step := range next.Triton.Config.Scheduling.Steps {
		if chain, ok := e.leadsBack(step.ModelName, target, seen, depth+1); ok {
			return append([]string{name}, chain...), true
		}
	}
	return nil, false
}

// ensembleTensor is a node of the ensemble's data flow: an ensemble input,
// output, or a tensor a step writes or reads.
type ensembleTensor struct {
	name        string
	prev, next  []*ensembleTensor
	ready       bool
	readBy      []triton.Mapping // the input_map entries that read it
	readByStep  []int
	writtenBy   int // the step, -1 for none
	writtenLine int
}

// checkDataFlow follows the tensors from the ensemble's inputs through
// the steps, as Triton does: every ensemble input must be read, every
// output written from the inputs, and every other tensor read by a step.
func (e *ensembleCheck) checkDataFlow() {
	tensors := map[string]*ensembleTensor{}
	var order []*ensembleTensor
	tensor := func(name string) *ensembleTensor {
		t := tensors[name]
		if t == nil {
			t = &ensembleTensor{name: name, writtenBy: -1}
			tensors[name] = t
			order = append(order, t)
		}
		return t
	}
	for i, step := range e.config.Scheduling.Steps {
		var outputs []*ensembleTensor
		for _, output := range step.OutputMap {
			t := tensor(output.Value)
			t.writtenBy, t.writtenLine = i, output.Line
			outputs = append(outputs, t)
		}
		for _, input := range step.InputMap {
			t := tensor(input.Value)
			t.readBy = append(t.readBy, input)
			t.readByStep = append(t.readByStep, i)
			for _, output := range outputs {
				output.prev = append(output.prev, t)
				t.next = append(t.next, output)
			}
		}
	}
	var queue []*ensembleTensor
	for _, input := range e.config.Inputs {
		t := tensors[input.Name]
		if t == nil {
			e.report(0, "ensemble '%s' has input '%s' that no step reads: Triton refuses the ensemble with \"ensemble input '%s' for ensemble %s' is not used\"; "+
				"map it in a step's input_map, or remove it", e.name, input.Name, input.Name, e.name)
			continue
		}
		t.ready = true
		queue = append(queue, t)
	}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		for _, next := range t.next {
			if next.ready {
				continue
			}
			next.ready = !slices.ContainsFunc(next.prev, func(prev *ensembleTensor) bool { return !prev.ready })
			if next.ready {
				queue = append(queue, next)
			}
		}
	}
	reported := false
	report := func(line int, format string, args ...any) {
		reported = true
		e.report(line, format, args...)
	}
	explained := map[*ensembleTensor]bool{}
	outputs := map[string]bool{}
	for _, output := range e.config.Outputs {
		outputs[output.Name] = true
		t := tensors[output.Name]
		if t == nil {
			report(0, "ensemble '%s' has output '%s' that no step writes: Triton refuses the ensemble with \"ensemble output '%s' for ensemble %s' is not used\"; "+
				"map a step's output to it in an output_map", e.name, output.Name, output.Name, e.name)
			continue
		}
		if t.ready {
			continue
		}
		source := unconnectedSource(t)
		triton := fmt.Sprintf("output '%s' for ensemble '%s' is not written", output.Name, e.name)
		if source == t || source == nil {
			report(t.writtenLine, "ensemble '%s' never writes output '%s' from its inputs: Triton refuses the ensemble with \"%s\"; "+
				"make each tensor its steps read an ensemble input or another step's output", e.name, output.Name, triton)
			continue
		}
		explained[source] = true
		triton += fmt.Sprintf(": at least one of its depending tensors, '%s', is not connected", source.name)
		report(firstReadLine(source), "%s, so ensemble '%s' never writes output '%s': Triton refuses the ensemble with \"%s\"; %s",
			e.unconnected(source), e.name, output.Name, triton, e.connectAdvice(source))
	}
	for _, t := range order {
		if outputs[t.name] || explained[t] || (t.ready && len(t.next) > 0) {
			continue
		}
		triton := fmt.Sprintf("ensemble tensor '%s' is unused in ensemble '%s'", t.name, e.name)
		switch {
		case t.ready || len(t.prev) > 0 && t.writtenBy >= 0 && len(t.next) == 0:
			report(t.writtenLine, "step %d (model '%s') writes ensemble tensor '%s', which no step reads and which is no ensemble output: "+
				"Triton refuses the ensemble with \"%s\"; remove the entry from the step's output_map, or read the tensor", t.writtenBy,
				e.config.Scheduling.Steps[t.writtenBy].ModelName, t.name, triton)
		case len(t.prev) == 0 && t.writtenBy < 0:
			report(firstReadLine(t), "%s: Triton refuses the ensemble with \"%s\"; %s", e.unconnected(t), triton, e.connectAdvice(t))
		}
		// A tensor written from unconnected ones is explained by the
		// tensors it comes from.
	}
	if reported {
		return
	}
	for _, t := range order {
		if step := t.writtenBy; !t.ready && !outputs[t.name] && step >= 0 {
			report(t.writtenLine, "step %d (model '%s') writes ensemble tensor '%s' from tensors that are never ready (its steps read each other's outputs in a cycle): "+
				"Triton refuses the ensemble with \"ensemble tensor '%s' is unused in ensemble '%s'\"; make the first of those steps read an ensemble input",
				step, e.config.Scheduling.Steps[step].ModelName, t.name, t.name, e.name)
			return
		}
	}
}

// unconnectedSource is the tensor Triton names as "not connected" for an
// output that is not written: following the first not-ready tensor each
// step reads back to one with none.
func unconnectedSource(t *ensembleTensor) *ensembleTensor {
	last := t
	seen := map[*ensembleTensor]bool{}
	for prev := t.prev; len(prev) > 0; {
		var found *ensembleTensor
		for _, node := range prev {
			if !node.ready && !seen[node] {
				found = node
				break
			}
		}
		if found == nil {
			break
		}
		seen[found] = true
		last, prev = found, found.prev
	}
	if last.writtenBy >= 0 || len(last.readBy) == 0 {
		return nil // a cycle of steps, or nothing reads it: no one entry to point at
	}
	return last
}

func firstReadLine(t *ensembleTensor) int {
	if len(t.readBy) == 0 {
		return 0
	}
	return t.readBy[0].Line
}

// unconnected says which step reads a tensor nothing writes.
func (e *ensembleCheck) unconnected(t *ensembleTensor) string {
	step := t.readByStep[0]
	return fmt.Sprintf("step %d (model '%s') reads ensemble tensor '%s' (as its input '%s'), which is neither an ensemble input nor any step's output",
		step, e.config.Scheduling.Steps[step].ModelName, t.name, t.readBy[0].Key)
}

// connectAdvice names the ensemble inputs and step outputs a tensor could
// have been meant as.
func (e *ensembleCheck) connectAdvice(t *ensembleTensor) string {
	var names []string
	for _, input := range e.config.Inputs {
		names = append(names, strconv.Quote(input.Name))
	}
	for i, step := range e.config.Scheduling.Steps {
		if slices.Contains(t.readByStep, i) {
			continue // a step cannot read its own output
		}
		for _, output := range step.OutputMap {
			names = append(names, strconv.Quote(output.Value))
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("declare '%s' as an ensemble input or map a step's output to it", t.name)
	}
	if len(names) > 8 {
		return fmt.Sprintf("map it to an ensemble input or a step's output (%s), or declare '%s' as an ensemble input", joinSome(names, 8), t.name)
	}
	return fmt.Sprintf("map it to %s, or declare '%s' as an ensemble input", joinOr(names), t.name)
}

// checkStepModel checks a step against the model it names in the
// repository: that it is there, has the version asked for, and has the
// inputs and outputs the step maps.
func (e *ensembleCheck) checkStepModel(i int) {
	step := e.config.Scheduling.Steps[i]
	repository := e.m.Triton.Repository
	if step.ModelName == "" || step.ModelName == path.Base(e.m.Dir) {
		return // reported above, or a cycle Triton reports as one
	}
	if !repository.Has(step.ModelName) {
		e.report(step.NameLine(), "step %d of ensemble '%s' runs model '%s', which is not in the model repository %s/ (it holds %s): "+
			"Triton refuses the ensemble with \"ensemble %s contains models that are not available or ambiguous: %s\"; "+
			"add %s/ or correct model_name", i, e.name, step.ModelName, repository.Dir, e.holds(repository), e.name, step.ModelName,
			path.Join(repository.Dir, step.ModelName))
		return
	}
	stepModel := repository.Models[step.ModelName]
	if stepModel == nil || stepModel.Triton == nil || stepModel.Triton.ConfigUnread || stepModel.Triton.ConfigError != "" {
		return // not read as a Triton model: what it holds is unknown here
	}
	resident := stepModel.Resident()
	if step.ModelVersion != -1 && len(resident) > 0 && !slices.ContainsFunc(resident, func(v *model.Version) bool { return v.Number == step.ModelVersion }) {
		var loaded []string
		for _, version := range resident {
			loaded = append(loaded, strconv.FormatInt(version.Number, 10))
		}
		unset := ""
		line := step.ModelVersionLine
		if line == 0 {
			unset, line = " (model_version is not written, and Triton reads that as 0)", step.NameLine()
		}
		e.report(line, "step %d of ensemble '%s' needs version %d of model '%s'%s, which loads only version %s: Triton refuses the ensemble with "+
			"\"ensemble '%s' depends on '%s' whose required version %d is not loaded.\"; set model_version: -1 (the version the model loads) or %s",
			i, e.name, step.ModelVersion, step.ModelName, unset, joinAnd(loaded), e.name, step.ModelName, step.ModelVersion, loaded[len(loaded)-1])
	}
	config := stepModel.Triton.Config
	if config == nil || stepModel.Triton.PythonAutoComplete {
		// No config.pbtxt, or a model.py whose auto_complete_config may
		// add tensors: the model's inputs and outputs are known at load.
		return
	}
	if config.MaxBatchSize != 0 && config.MaxBatchSize < e.config.MaxBatchSize {
		e.report(step.NameLine(), "ensemble '%s' has max_batch_size %d but step %d runs model '%s', whose max_batch_size is %d: Triton refuses the ensemble with "+
			"\"ensemble %s allows maximum batch size %d, but it contains model %s which only allows maximum batch size to be %d\"; "+
			"lower the ensemble's max_batch_size to %d or raise the model's", e.name, e.config.MaxBatchSize, i, step.ModelName, config.MaxBatchSize,
			e.name, e.config.MaxBatchSize, step.ModelName, config.MaxBatchSize, config.MaxBatchSize)
	}
	stepConfig := stepModel.Path(stepModel.Triton.ConfigFile)
	if len(config.Inputs) > 0 {
		inputs := tensorNames(config.Inputs)
		for _, input := range step.InputMap {
			if !slices.Contains(inputs, input.Key) {
				e.report(input.Line, "step %d of ensemble '%s' maps ensemble tensor '%s' to input '%s', which model '%s' does not have (%s declares %s): "+
					"Triton refuses the ensemble with \"in ensemble %s, ensemble tensor %s is mapping to non-existing input %s in model %s\"; use the model's input name",
					i, e.name, input.Value, input.Key, step.ModelName, stepConfig, joinAnd(quoteAll(inputs)), e.name, input.Value, input.Key, step.ModelName)
			}
		}
		for _, input := range config.Inputs {
			if input.Optional || slices.ContainsFunc(step.InputMap, func(m triton.Mapping) bool { return m.Key == input.Name }) {
				continue
			}
			e.report(step.NameLine(), "step %d of ensemble '%s' leaves input '%s' of model '%s' unmapped: Triton refuses the ensemble with "+
				"\"in ensemble %s, input %s in model %s is not mapped to any ensemble tensors\"; add it to the step's input_map",
				i, e.name, input.Name, step.ModelName, e.name, input.Name, step.ModelName)
		}
	}
	if len(config.Outputs) > 0 {
		outputs := tensorNames(config.Outputs)
		for _, output := range step.OutputMap {
			if !slices.Contains(outputs, output.Key) {
				e.report(output.Line, "step %d of ensemble '%s' maps output '%s' of model '%s' to ensemble tensor '%s', but the model has no such output (%s declares %s): "+
					"Triton refuses the ensemble with \"in ensemble %s, ensemble tensor %s is mapped from non-existing output %s in model %s\"; use the model's output name",
					i, e.name, output.Key, step.ModelName, output.Value, stepConfig, joinAnd(quoteAll(outputs)), e.name, output.Value, output.Key, step.ModelName)
			}
		}
	}
}

// holds lists a repository's models for a message.
func (e *ensembleCheck) holds(repository *model.TritonRepository) string {
	var names []string
	for _, entry := range repository.Entries {
		if entry != path.Base(e.m.Dir) {
			names = append(names, strconv.Quote(entry))
		}
	}
	if len(names) == 0 {
		return "no other model"
	}
	return joinSome(names, 8)
}

func tensorNames(tensors []triton.Tensor) []string {
	names := make([]string, len(tensors))
	for i, t := range tensors {
		names[i] = t.Name
	}
	return names
}

// tensorNode is what one side says of an ensemble tensor: its data type
// and shape as the model declares them (Triton's TensorNode).
type tensorNode struct {
	model    string
	dataType string
	dims     []int64
	batching bool
}

// fullDims are the dims with the batch dimension of a batching model.
func (n tensorNode) fullDims() []int64 {
	if n.batching {
		return append([]int64{-1}, n.dims...)
	}
	return n.dims
}

// checkConsistency compares the data type and shape each model gives an
// ensemble tensor, in Triton's order (ValidateEnsembleConfig): the
// ensemble's inputs and outputs first, then each step's inputs and
// outputs, each against what first gave the tensor. A step model whose
// tensors are known only at load (no inputs or outputs written, or a
// model.py that completes them) leaves the tensors it gives first
// unjudged, since Triton compares the others with what it loads.
func (e *ensembleCheck) checkConsistency() {
	first := map[string]*tensorNode{}
	unknown := map[string]bool{}
	batching := e.config.MaxBatchSize > 0
	for _, input := range e.config.Inputs {
		dims := input.Dims
		if input.HasReshape {
			dims = input.Reshape
		}
		first[input.Name] = &tensorNode{model: e.name, dataType: input.DataType, dims: dims, batching: batching}
	}
	for _, output := range e.config.Outputs {
		if first[output.Name] != nil {
			continue
		}
		dims := output.Dims
		if output.HasReshape {
			dims = output.Reshape
		}
		first[output.Name] = &tensorNode{model: e.name, dataType: output.DataType, dims: dims, batching: batching}
	}
	repository := e.m.Triton.Repository
	for _, step := range e.config.Scheduling.Steps {
		stepModel := repository.Models[step.ModelName]
		var config *triton.Config
		if stepModel != nil && stepModel.Triton != nil && !stepModel.Triton.PythonAutoComplete {
			config = stepModel.Triton.Config
		}
		for _, side := range []struct {
			mappings []triton.Mapping
			tensors  []triton.Tensor
		}{{step.InputMap, inputsOf(config)}, {step.OutputMap, outputsOf(config)}} {
			for _, mapping := range side.mappings {
				i := slices.IndexFunc(side.tensors, func(t triton.Tensor) bool { return t.Name == mapping.Key })
				if i < 0 {
					// Unknown, or reported as a tensor the model does not have.
					if first[mapping.Value] == nil {
						unknown[mapping.Value] = true
					}
					continue
				}
				node := &tensorNode{model: step.ModelName, dataType: side.tensors[i].DataType, dims: side.tensors[i].Dims, batching: config.MaxBatchSize > 0}
				seen := first[mapping.Value]
				switch {
				case unknown[mapping.Value]:
				case seen == nil:
					first[mapping.Value] = node
				case seen.dataType != node.dataType:
					e.report(mapping.Line, "ensemble tensor '%s' is %s in model '%s' but %s in model '%s': Triton refuses ensemble '%s' with "+
						"\"in ensemble %s, ensemble tensor %s: inconsistent data type: %s is inferred from model %s while %s is inferred from model %s\"; "+
						"make the data types agree, or convert the tensor in a step between them",
						mapping.Value, seen.dataType, seen.model, node.dataType, node.model, e.name,
						e.name, mapping.Value, seen.dataType, seen.model, node.dataType, node.model)
				case !dimsAgree(seen.dims, node.dims) && !dimsAgree(seen.fullDims(), node.fullDims()):
					e.report(mapping.Line, "ensemble tensor '%s' has shape %s in model '%s' but %s in model '%s': Triton refuses ensemble '%s' with "+
						"\"in ensemble %s, ensemble tensor %s: inconsistent shape: %s is inferred from model %s while %s is inferred from model %s\"; "+
						"make the dims agree (-1 matches any size)",
						mapping.Value, shapeString(seen.fullDims()), seen.model, shapeString(node.fullDims()), node.model, e.name,
						e.name, mapping.Value, shapeString(seen.fullDims()), seen.model, shapeString(node.fullDims()), node.model)
				}
			}
		}
	}
}

// inputsOf and outputsOf are a config's declared tensors, none when the
// config is unknown or leaves them to auto-complete.
func inputsOf(config *triton.Config) []triton.Tensor {
	if config == nil {
		return nil
	}
	return config.Inputs
}

func outputsOf(config *triton.Config) []triton.Tensor {
	if config == nil {
		return nil
	}
	return config.Outputs
}

// dimsAgree is Triton's CompareDimsWithWildcard: as many dims, each equal
// or -1 on either side.
func dimsAgree(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && a[i] != -1 && b[i] != -1 {
			return false
		}
	}
	return true
}
