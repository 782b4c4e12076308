// Package triton reads a Triton model configuration (config.pbtxt) with the
// real text-format parser, against the part of Triton's model_config.proto
// that layout checks need: name, platform and backend, version policy,
// batching, model file names, instance groups, the inputs and outputs, and
// an ensemble's steps.
package triton

import (
	"bytes"
	"fmt"
	"sort"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/textproto"
	"github.com/modellint/modellint/lint/model/wire"
)

// MaxConfig bounds the config file read into memory; real ones are a few KiB.
const MaxConfig = 4 << 20

// FormatName starts the text of the modelfile.Error values this package
// returns.
const FormatName = "invalid model configuration"

// Config is what a config.pbtxt says.
type Config struct {
	Name     string
	Platform string
	Backend  string
	// MaxBatchSize > 0 means every input and output has an extra leading
	// batch dimension that Dims do not list.
	MaxBatchSize         int64
	VersionPolicy        VersionPolicy
	DefaultModelFilename string
	// CCModelFilenames maps a CUDA compute capability to a file name.
	CCModelFilenames map[string]string
	Inputs           []Tensor
	Outputs          []Tensor
	// Sequence is sequence_batching, nil when the config has none; its
	// controls and states, like BatchInputs (how many batch_input), are
	// inputs the server feeds that the input list does not name.
	Sequence    *SequenceBatching
	BatchInputs int
	// Ensemble is set when the config has ensemble_scheduling.
	Ensemble bool
	// Scheduling is ensemble_scheduling, nil when the config has none.
	Scheduling *Ensemble
	// InstanceGroups are instance_group as written; Triton fills in what
	// they leave out (see InstanceGroup).
	InstanceGroups []InstanceGroup
}

// SequenceBatching is what sequence_batching says of the tensors it feeds.
type SequenceBatching struct {
	// Controls are control_input's controls, one per control kind a
	// control_input lists, in the order written.
	Controls []SequenceControl
	// States are the state entries: InputName is fed, OutputName read back.
	States []SequenceState
}

// SequenceControl is one control of a control_input.
type SequenceControl struct {
	Input string // the control_input's name: the model input it feeds
	Kind  string // CONTROL_SEQUENCE_START (also when unset), _READY, _END or _CORRID
	// DataType is the type the server feeds: TYPE_INT32, TYPE_FP32 or
	// TYPE_BOOL after int32_false_true, fp32_false_true or
	// bool_false_true, data_type for CONTROL_SEQUENCE_CORRID; "" when the
	// control gives none.
	DataType string
}

// SequenceState is one state of sequence_batching.
type SequenceState struct {
	InputName, OutputName string
}

// InstanceGroup is one instance_group. Triton makes Count instances
// (1 when unset) on each GPU of a KIND_GPU group: those in GPUs, every GPU
// it sees when GPUs is empty. KIND_AUTO is KIND_GPU when there is a GPU.
type InstanceGroup struct {
	Kind  string // KIND_AUTO (also when unset), KIND_GPU, KIND_CPU or KIND_MODEL
	Count int64  // 0 when unset
	GPUs  []int64
}

// VersionPolicy is version_policy: Kind is "latest" (the default), "all"
// or "specific".
type VersionPolicy struct {
	Kind        string
	NumVersions int64 // for latest; 1 when unset
	Versions    []int64
}

// Tensor is one input or output.
type Tensor struct {
	Name     string
	DataType string // e.g. TYPE_FP32
	Dims     []int64
	// Reshape is the shape the backend sees, when the config reshapes.
	Reshape    []int64
	HasReshape bool
	Optional   bool
}

// Instances is how many instances of each loaded version Triton makes
// (core's NormalizeInstanceGroup): without instance_group one group of
// KIND_AUTO; a group's count is 1 when unset (2 for the TensorFlow and
// ONNX Runtime backends on the CPU); KIND_AUTO is KIND_GPU when the
// server sees GPUs, and a KIND_GPU group has count instances on each GPU
// it lists, or on each of the gpus the server sees when it lists none.
func (config *Config) Instances(gpus int64) int64 {
	groups := config.InstanceGroups
	if len(groups) == 0 {
		groups = []InstanceGroup{{Kind: "KIND_AUTO"}}
	}
	var total int64
	for _, group := range groups {
		kind := group.Kind
		if kind == "KIND_AUTO" {
			kind = "KIND_CPU"
			if gpus > 0 {
				kind = "KIND_GPU"
			}
		}
		count := group.Count
		if count < 1 {
			count = 1
			if kind == "KIND_CPU" && (config.Backend == "tensorflow" || config.Backend == "onnxruntime") {
				count = 2
			}
		}
		devices := int64(1)
		if kind == "KIND_GPU" {
			if len(group.GPUs) > 0 {
				devices = int64(len(group.GPUs))
			} else if gpus > 0 {
				devices = gpus
			}
		}
		total += count * devices
	}
	return total
}

var instanceKinds = map[string]int32{"KIND_AUTO": 0, "KIND_GPU": 1, "KIND_CPU": 2, "KIND_MODEL": 3}

var controlKinds = map[string]int32{
	"CONTROL_SEQUENCE_START": 0, "CONTROL_SEQUENCE_READY": 1, "CONTROL_SEQUENCE_END": 2, "CONTROL_SEQUENCE_CORRID": 3,
}

var dataTypes = map[string]int32{
	"TYPE_INVALID": 0, "TYPE_BOOL": 1, "TYPE_UINT8": 2, "TYPE_UINT16": 3, "TYPE_UINT32": 4,
	"TYPE_UINT64": 5, "TYPE_INT8": 6, "TYPE_INT16": 7, "TYPE_INT32": 8, "TYPE_INT64": 9,
	"TYPE_FP16": 10, "TYPE_FP32": 11, "TYPE_FP64": 12, "TYPE_STRING": 13, "TYPE_BF16": 14,
}

func dataTypeName(number uint64) string { return enumName(dataTypes, "DataType", number) }

func enumName(values map[string]int32, enum string, number uint64) string {
	for name, n := range values {
		if uint64(n) == number {
			return name
		}
	}
	return fmt.Sprintf("%s(%d)", enum, number)
}

// schema declares the fields of inference.ModelConfig (triton common's
// protobuf/model_config.proto) that Read decodes, with their real names and
// numbers. Other fields are parsed for syntax and skipped.
// Built when first used: at package init every run paid for it.
var schema = sync.OnceValue(func() *textproto.Schema {
	return textproto.MustSchema("inference",
		[]textproto.Enum{{Name: "DataType", Values: dataTypes}, {Name: "Kind", Values: instanceKinds}, {Name: "ControlKind", Values: controlKinds}},
		[]textproto.Message{
			{Name: "ModelConfig", Fields: []textproto.Field{
				textproto.String("name", 1),
				textproto.String("platform", 2),
				textproto.MessageField("version_policy", 3, "ModelVersionPolicy"),
				textproto.Int32("max_batch_size", 4),
				textproto.Repeated(textproto.MessageField("input", 5, "ModelInput")),
				textproto.Repeated(textproto.MessageField("output", 6, "ModelOutput")),
				textproto.Repeated(textproto.MessageField("instance_group", 7, "ModelInstanceGroup")),
				textproto.String("default_model_filename", 8),
				textproto.Repeated(textproto.MessageField("cc_model_filenames", 9, "StringPair")),
				textproto.MessageField("sequence_batching", 13, "ModelSequenceBatching"),
				textproto.MessageField("ensemble_scheduling", 15, "ModelEnsembling"),
				textproto.String("backend", 17),
				textproto.Repeated(textproto.MessageField("batch_input", 20, "Opaque")),
			}},
			{Name: "Opaque"},
			{Name: "ModelSequenceBatching", Fields: []textproto.Field{
				textproto.Repeated(textproto.MessageField("control_input", 2, "ControlInput")),
				textproto.Repeated(textproto.MessageField("state", 5, "State")),
			}},
			{Name: "ControlInput", Fields: []textproto.Field{
				textproto.String("name", 1),
				textproto.Repeated(textproto.MessageField("control", 2, "Control")),
			}},
			{Name: "Control", Fields: []textproto.Field{
				textproto.EnumField("kind", 1, "ControlKind"),
				textproto.Repeated(textproto.Int32("int32_false_true", 2)),
				textproto.Repeated(textproto.Float("fp32_false_true", 3)),
				textproto.EnumField("data_type", 4, "DataType"),
				textproto.Repeated(textproto.Bool("bool_false_true", 5)),
			}},
			{Name: "State", Fields: []textproto.Field{textproto.String("input_name", 1), textproto.String("output_name", 2)}},
			{Name: "ModelInstanceGroup", Fields: []textproto.Field{
				textproto.Int32("count", 2),
				textproto.Repeated(textproto.Int32("gpus", 3)),
				textproto.EnumField("kind", 4, "Kind"),
			}},
			{Name: "ModelEnsembling", Fields: []textproto.Field{
				textproto.Repeated(textproto.MessageField("step", 1, "Step")),
			}},
			// Step's maps are read as the repeated entry messages they are
			// on the wire, so that entries keep the order they are written in.
			{Name: "Step", Fields: []textproto.Field{
				textproto.String("model_name", 1),
				textproto.Int64("model_version", 2),
				textproto.Repeated(textproto.MessageField("input_map", 3, "StringPair")),
				textproto.Repeated(textproto.MessageField("output_map", 4, "StringPair")),
			}},
			{Name: "StringPair", Fields: []textproto.Field{textproto.String("key", 1), textproto.String("value", 2)}},
			{Name: "ModelVersionPolicy", Fields: []textproto.Field{
				textproto.MessageField("latest", 1, "Latest"),
				textproto.MessageField("all", 2, "Opaque"),
				textproto.MessageField("specific", 3, "Specific"),
			}},
			{Name: "Latest", Fields: []textproto.Field{textproto.Uint32("num_versions", 1)}},
			{Name: "Specific", Fields: []textproto.Field{textproto.Repeated(textproto.Int64("versions", 1))}},
			{Name: "Reshape", Fields: []textproto.Field{textproto.Repeated(textproto.Int64("shape", 1))}},
			{Name: "ModelInput", Fields: []textproto.Field{
				textproto.String("name", 1),
				textproto.EnumField("data_type", 2, "DataType"),
				textproto.Repeated(textproto.Int64("dims", 4)),
				textproto.MessageField("reshape", 5, "Reshape"),
				textproto.Bool("optional", 8),
			}},
			{Name: "ModelOutput", Fields: []textproto.Field{
				textproto.String("name", 1),
				textproto.EnumField("data_type", 2, "DataType"),
				textproto.Repeated(textproto.Int64("dims", 3)),
				textproto.MessageField("reshape", 5, "Reshape"),
			}},
		})
})

// Read parses a config.pbtxt.
func Read(text []byte) (*Config, error) {
	if len(text) > MaxConfig {
		return nil, modelfile.Invalidf(FormatName, "%d bytes, more than the %d a model configuration may have", len(text), MaxConfig)
	}
	encoded, err := schema().ToWire(text, "ModelConfig")
	if err != nil {
		return nil, modelfile.Invalidf(FormatName, "%w", err)
	}
	config := &Config{VersionPolicy: VersionPolicy{Kind: "latest", NumVersions: 1}}
	root := wire.NewReader(bytes.NewReader(encoded), int64(len(encoded))).Root()
	err = root.Range(func(f wire.Field) error {
		var err error
		switch f.Number {
		case 1:
			config.Name, err = f.String(MaxConfig)
		case 2:
			config.Platform, err = f.String(MaxConfig)
		case 17:
			config.Backend, err = f.String(MaxConfig)
		case 3:
			err = config.readPolicy(f.Message())
		case 4:
			config.MaxBatchSize = int64(int32(f.Varint))
		case 5, 6:
			var tensor *Tensor
			if tensor, err = readTensor(f.Message(), f.Number == 5); err == nil {
				if f.Number == 5 {
					config.Inputs = append(config.Inputs, *tensor)
				} else {
					config.Outputs = append(config.Outputs, *tensor)
				}
			}
		case 8:
			config.DefaultModelFilename, err = f.String(MaxConfig)
		case 9:
			var key, value string
			err = f.Message().Range(func(part wire.Field) error {
				var err error
				if part.Number == 1 {
					key, err = part.String(MaxConfig)
				} else {
					value, err = part.String(MaxConfig)
				}
				return err
			})
			if config.CCModelFilenames == nil {
				config.CCModelFilenames = map[string]string{}
			}
			config.CCModelFilenames[key] = value
		case 13:
			config.Sequence, err = readSequenceBatching(f.Message())
		case 7:
			var group InstanceGroup
			if group, err = readInstanceGroup(f.Message()); err == nil {
				config.InstanceGroups = append(config.InstanceGroups, group)
			}
		case 15:
			config.Ensemble = true
			config.Scheduling, err = readEnsemble(f.Message())
		case 20:
			config.BatchInputs++
		}
		return err
	})
	if err != nil {
		return nil, modelfile.Invalidf(FormatName, "%w", err)
	}
	if config.Scheduling != nil {
		placeSteps(text, config.Scheduling)
	}
	return config, nil
}

func readSequenceBatching(m wire.Message) (*SequenceBatching, error) {
	sequence := &SequenceBatching{}
	err := m.Range(func(f wire.Field) error {
		switch f.Number {
		case 2:
			controls, err := readControlInput(f.Message())
			sequence.Controls = append(sequence.Controls, controls...)
			return err
		case 5:
			var state SequenceState
			err := f.Message().Range(func(part wire.Field) error {
				var err error
				switch part.Number {
				case 1:
					state.InputName, err = part.String(MaxConfig)
				case 2:
					state.OutputName, err = part.String(MaxConfig)
				}
				return err
			})
			sequence.States = append(sequence.States, state)
			return err
		}
		return nil
	})
	return sequence, err
}

func readControlInput(m wire.Message) ([]SequenceControl, error) {
	var name string
	var controls []SequenceControl
	err := m.Range(func(f wire.Field) error {
		switch f.Number {
		case 1:
			var err error
			name, err = f.String(MaxConfig)
			return err
		case 2:
			control := SequenceControl{Kind: enumName(controlKinds, "ControlKind", 0)}
			var dataType string
			err := f.Message().Range(func(part wire.Field) error {
				switch part.Number {
				case 1:
					control.Kind = enumName(controlKinds, "ControlKind", part.Varint)
				case 2:
					control.DataType = "TYPE_INT32"
				case 3:
					control.DataType = "TYPE_FP32"
				case 5:
					control.DataType = "TYPE_BOOL"
				case 4:
					dataType = dataTypeName(part.Varint)
				}
				return nil
			})
			if control.Kind == "CONTROL_SEQUENCE_CORRID" {
				control.DataType = dataType
			}
			controls = append(controls, control)
			return err
		}
		return nil
	})
	// The name may follow the controls in the text.
	for i := range controls {
		controls[i].Input = name
	}
	return controls, err
}

func readInstanceGroup(m wire.Message) (InstanceGroup, error) {
	group := InstanceGroup{Kind: "KIND_AUTO"}
	err := m.Range(func(f wire.Field) error {
		switch f.Number {
		case 2:
			group.Count = int64(int32(f.Varint))
		case 3:
			gpus, err := packedInt64s(f)
			for _, gpu := range gpus {
				group.GPUs = append(group.GPUs, int64(int32(gpu)))
			}
			return err
		case 4:
			group.Kind = enumName(instanceKinds, "Kind", f.Varint)
		}
		return nil
	})
	return group, err
}

func (config *Config) readPolicy(m wire.Message) error {
	return m.Range(func(f wire.Field) error {
		switch f.Number {
		case 1:
			config.VersionPolicy = VersionPolicy{Kind: "latest", NumVersions: 1}
			return f.Message().Range(func(part wire.Field) error {
				if part.Number == 1 && part.Varint > 0 {
					config.VersionPolicy.NumVersions = int64(uint32(part.Varint))
				}
				return nil
			})
		case 2:
			config.VersionPolicy = VersionPolicy{Kind: "all"}
		case 3:
			config.VersionPolicy = VersionPolicy{Kind: "specific"}
			versions, err := int64s(f.Message(), 1)
			sort.Slice(versions, func(i, j int) bool { return versions[i] < versions[j] })
			config.VersionPolicy.Versions = versions
			return err
		}
		return nil
	})
}

func readTensor(m wire.Message, input bool) (*Tensor, error) {
	tensor := &Tensor{DataType: dataTypeName(0)}
	dimsField := protowire.Number(3)
	if input {
		dimsField = 4
	}
	err := m.Range(func(f wire.Field) error {
		switch {
		case f.Number == 1:
			var err error
			tensor.Name, err = f.String(MaxConfig)
			return err
		case f.Number == 2:
			tensor.DataType = dataTypeName(f.Varint)
		case f.Number == dimsField:
			dims, err := packedInt64s(f)
			tensor.Dims = append(tensor.Dims, dims...)
			return err
		case f.Number == 5:
			tensor.HasReshape = true
			var err error
			tensor.Reshape, err = int64s(f.Message(), 1)
			return err
		case f.Number == 8 && input:
			tensor.Optional = f.Varint != 0
		}
		return nil
	})
	return tensor, err
}

// int64s collects a repeated int64 field of a message, packed or not.
func int64s(m wire.Message, number protowire.Number) ([]int64, error) {
	var values []int64
	err := m.Range(func(f wire.Field) error {
		if f.Number != number {
			return nil
		}
		more, err := packedInt64s(f)
		values = append(values, more...)
		return err
	})
	return values, err
}

func packedInt64s(f wire.Field) ([]int64, error) {
	if f.Type == protowire.VarintType {
		return []int64{int64(f.Varint)}, nil
	}
	packed, err := f.Bytes(MaxConfig)
	if err != nil {
		return nil, err
	}
	var values []int64
	for len(packed) > 0 {
		v, n := protowire.ConsumeVarint(packed)
		if n < 0 {
			return nil, modelfile.Invalidf(FormatName, "bad packed integers")
		}
		values = append(values, int64(v))
		packed = packed[n:]
	}
	return values, nil
}
