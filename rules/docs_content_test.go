package rules_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/checkpoint"
	"github.com/modellint/modellint/lint/model/checkpoint/checkpointtest"
	"github.com/modellint/modellint/lint/model/gguf"
	"github.com/modellint/modellint/lint/model/gguf/gguftest"
	"github.com/modellint/modellint/lint/model/onnx"
	"github.com/modellint/modellint/lint/model/pickle"
	"github.com/modellint/modellint/lint/model/safetensors"
	"github.com/modellint/modellint/lint/model/savedmodel"
	"github.com/modellint/modellint/lint/model/textproto"
	"github.com/modellint/modellint/lint/model/textproto/textprototest"
	"github.com/modellint/modellint/lint/model/tfdtype"
	"github.com/modellint/modellint/lint/model/tfrecord"
)

// contentFormats write the binary files of a model dir tree from the text
// an example gives below them (see parseTree): `name <<FORMAT`, the text,
// and a line FORMAT. name is the file's path in the tree.
var contentFormats = map[string]func(name, text string) ([]byte, error){
	// EOF: the text itself.
	"EOF": func(_, text string) ([]byte, error) { return []byte(text), nil },
	// pbtxt: a text-format protobuf of the message the file holds
	// (fileMessages), written in binary.
	"pbtxt": encodeTextProto,
	// tfrecord: records of the file's message in text format, separated by
	// lines of ---, each written as a TFRecord with its checksums.
	"tfrecord": encodeTFRecord,
	// safetensors: the JSON header, written after its 8-byte length; the
	// tensor data its data_offsets span is a hole of zeros (see treeFile).
	"safetensors": encodeSafetensors,
	// pickle: pickle opcodes, one a line, named and with their argument as
	// pickletools disassembles them (GLOBAL 'posix system').
	"pickle": encodePickle,
	// checkpoint: a TensorFlow checkpoint index (variables.index): its
	// header and entries in text format (checkpointSchema), written as the
	// table TensorFlow's BundleWriter writes.
	"checkpoint": encodeCheckpoint,
	// float32: numbers separated by white space, written as little-endian
	// float32: raw tensor data, as variables.data-* and ONNX external data
	// files hold it.
	"float32": encodeFloat32,
	// gguf: a GGUF header, one metadata key a line (KEY = VALUE: a quoted
	// string, an integer written as uint32, a decimal number as float32)
	// and one tensor a line (tensor NAME TYPE [DIMS], ggml's order); the
	// tensor data they take is a hole of zeros (see treeFile).
	"gguf": encodeGGUF,
}

// fileMessages name the protobuf message of a file the pbtxt and tfrecord
// formats write, by the file's name (or its extension).
var fileMessages = map[string]struct {
	schema func() *textproto.Schema
	name   string
}{
	"saved_model.pb":            {savedmodel.TextSchema, "SavedModel"},
	".onnx":                     {onnxSchema, "ModelProto"},
	path.Base(model.WarmupFile): {predictionLogSchema, "PredictionLog"},
}

// encodeTextProto parses text as the message of the file name and returns
// its wire encoding. Unlike textproto.ToWire, a field the schema does not
// declare is an error: the example would show what the file does not hold.
func encodeTextProto(name, text string) ([]byte, error) {
	base := path.Base(name)
	message, ok := fileMessages[base]
	if !ok {
		message, ok = fileMessages[path.Ext(base)]
	}
	if !ok {
		return nil, fmt.Errorf("%s: no protobuf message is known for the file's name", name)
	}
	desc := message.schema().File().Messages().ByName(protoreflect.Name(message.name))
	decoded := dynamicpb.NewMessage(desc)
	if err := prototext.Unmarshal([]byte(text), decoded); err != nil {
		return nil, fmt.Errorf("%s: %s: %v", name, message.name, err)
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(decoded)
}

func encodeTFRecord(name, text string) ([]byte, error) {
	var out []byte
	for _, record := range strings.Split(text, "\n---\n") {
		payload, err := encodeTextProto(name, record)
		if err != nil {
			return nil, err
		}
		out = tfrecord.AppendRecord(out, payload)
	}
	return out, nil
}

func encodeSafetensors(name, text string) ([]byte, error) {
	header := strings.TrimSpace(text)
	if _, err := safetensorsDataEnd(header); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return append(binary.LittleEndian.AppendUint64(nil, uint64(len(header))), header...), nil
}

func encodeCheckpoint(name, text string) ([]byte, error) {
	desc := checkpointSchema().File().Messages().ByName("CheckpointIndex")
	index := dynamicpb.NewMessage(desc)
	if err := prototext.Unmarshal([]byte(text), index); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	marshal := func(m protoreflect.Message) ([]byte, error) {
		return proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
	}
	header, err := marshal(index.Get(desc.Fields().ByName("header")).Message())
	if err != nil {
		return nil, err
	}
	entries := []checkpointtest.Entry{{Key: nil, Value: header}}
	list := index.Get(desc.Fields().ByName("entry")).List()
	for i := range list.Len() {
		entry := list.Get(i).Message()
		fields := entry.Descriptor().Fields()
		value, err := marshal(entry.Get(fields.ByName("value")).Message())
		if err != nil {
			return nil, err
		}
		entries = append(entries, checkpointtest.Entry{Key: []byte(entry.Get(fields.ByName("key")).String()), Value: value})
	}
	slices.SortFunc(entries, func(a, b checkpointtest.Entry) int { return bytes.Compare(a.Key, b.Key) })
	return checkpointtest.Table(entries, false, 16), nil
}

func encodeFloat32(name, text string) ([]byte, error) {
	var out []byte
	for _, field := range strings.Fields(text) {
		value, err := strconv.ParseFloat(field, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a float32", name, field)
		}
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(value)))
	}
	return out, nil
}

// ggufTypes are the ggml types a gguf tensor line may name.
var ggufTypes = map[string]uint32{"F32": gguftest.F32, "F16": gguftest.F16, "BF16": gguftest.BF16,
	"Q8_0": gguftest.Q8_0, "Q4_K": gguftest.Q4_K, "Q6_K": gguftest.Q6_K}

func encodeGGUF(name, text string) ([]byte, error) {
	file := gguftest.File{Strings: map[string]string{}, Uint32s: map[string]uint32{}, Float32s: map[string]float32{}}
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimSpace(line)
		if tensor, ok := strings.CutPrefix(line, "tensor "); ok {
			fields := strings.SplitN(tensor, " ", 3)
			typ, known := ggufTypes[fields[min(1, len(fields)-1)]]
			if len(fields) != 3 || !known || !strings.HasPrefix(fields[2], "[") || !strings.HasSuffix(fields[2], "]") {
				return nil, fmt.Errorf("%s: line %d: want tensor NAME TYPE [DIMS] with TYPE one of %s", name, i+1, strings.Join(slices.Sorted(maps.Keys(ggufTypes)), ", "))
			}
			var dims []uint64
			for _, dim := range strings.Split(strings.Trim(fields[2], "[]"), ",") {
				n, err := strconv.ParseUint(strings.TrimSpace(dim), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s: line %d: dimension %q", name, i+1, dim)
				}
				dims = append(dims, n)
			}
			file.Tensors = append(file.Tensors, gguftest.Tensor{Name: fields[0], Dims: dims, Type: typ})
			continue
		}
		key, value, ok := strings.Cut(line, " = ")
		if !ok {
			return nil, fmt.Errorf("%s: line %d: want KEY = VALUE or tensor NAME TYPE [DIMS]", name, i+1)
		}
		if unquoted, err := strconv.Unquote(value); err == nil {
			file.Strings[key] = unquoted
		} else if n, err := strconv.ParseUint(value, 10, 32); err == nil {
			file.Uint32s[key] = uint32(n)
		} else if f, err := strconv.ParseFloat(value, 32); err == nil {
			file.Float32s[key] = float32(f)
		} else {
			return nil, fmt.Errorf("%s: line %d: %s is not a quoted string, an integer or a number", name, i+1, value)
		}
	}
	header, _ := file.Header()
	if _, err := ggufSize(header); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return header, nil
}

// pickleOpcodes are the opcodes the pickle format writes, with how their
// argument is written.
var pickleOpcodes = map[string]struct {
	code     byte
	argument string // "", "uint1", "int4", "uint8", "string", "global"
}{
	"PROTO": {0x80, "uint1"}, "FRAME": {0x95, "uint8"}, "STOP": {'.', ""}, "MARK": {'(', ""},
	"GLOBAL": {'c', "global"}, "STACK_GLOBAL": {0x93, ""}, "REDUCE": {'R', ""}, "BUILD": {'b', ""},
	"NEWOBJ": {0x81, ""}, "NONE": {'N', ""}, "NEWTRUE": {0x88, ""}, "NEWFALSE": {0x89, ""},
	"BININT1": {'K', "uint1"}, "BININT": {'J', "int4"},
	"SHORT_BINUNICODE": {0x8c, "string"}, "BINUNICODE": {'X', "string"},
	"EMPTY_TUPLE": {')', ""}, "TUPLE": {'t', ""}, "TUPLE1": {0x85, ""}, "TUPLE2": {0x86, ""}, "TUPLE3": {0x87, ""},
	"EMPTY_LIST": {']', ""}, "APPEND": {'a', ""}, "APPENDS": {'e', ""},
	"EMPTY_DICT": {'}', ""}, "SETITEM": {'s', ""}, "SETITEMS": {'u', ""},
	"BINPUT": {'q', "uint1"}, "BINGET": {'h', "uint1"}, "MEMOIZE": {0x94, ""},
}

func encodePickle(name, text string) ([]byte, error) {
	var out []byte
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		op, argument, _ := strings.Cut(strings.TrimSpace(line), " ")
		argument = strings.TrimSpace(argument)
		opcode, ok := pickleOpcodes[op]
		if !ok {
			return nil, fmt.Errorf("%s: line %d: unknown pickle opcode %q", name, i+1, op)
		}
		if (opcode.argument == "") != (argument == "") {
			return nil, fmt.Errorf("%s: line %d: %s takes %s argument", name, i+1, op, map[bool]string{true: "no", false: "an"}[opcode.argument == ""])
		}
		out = append(out, opcode.code)
		var err error
		switch opcode.argument {
		case "uint1", "int4", "uint8":
			var n int64
			n, err = strconv.ParseInt(argument, 10, 64)
			switch opcode.argument {
			case "uint1":
				out = append(out, byte(n))
			case "int4":
				out = binary.LittleEndian.AppendUint32(out, uint32(n))
			case "uint8":
				out = binary.LittleEndian.AppendUint64(out, uint64(n))
			}
		case "string", "global":
			quoted := len(argument) >= 2 && argument[0] == '\'' && argument[len(argument)-1] == '\''
			argument = strings.Trim(argument, "'")
			switch {
			case !quoted:
				err = fmt.Errorf("the argument is not in single quotes")
			case opcode.argument == "global":
				module, attribute, ok := strings.Cut(argument, " ")
				if !ok {
					err = fmt.Errorf("not 'module name'")
				}
				out = append(out, module+"\n"+attribute+"\n"...)
			case opcode.code == 0x8c:
				out = append(out, byte(len(argument)))
				out = append(out, argument...)
			default:
				out = binary.LittleEndian.AppendUint32(out, uint32(len(argument)))
				out = append(out, argument...)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %s %s: %v", name, i+1, op, argument, err)
		}
	}
	if !bytes.HasSuffix(out, []byte{'.'}) {
		return nil, fmt.Errorf("%s: the pickle does not end with STOP", name)
	}
	return out, nil
}

// onnxSchema declares the part of onnx.proto an example's model.onnx
// spells out: opsets, the graph's inputs, outputs, nodes and initializers
// with their external data. Enums name the numbers ONNX writes as int32.
var onnxSchema = sync.OnceValue(func() *textproto.Schema {
	return textproto.MustSchema("onnx",
		[]textproto.Enum{
			{Name: "DataType", Values: map[string]int32{"UNDEFINED": 0, "FLOAT": 1, "UINT8": 2, "INT8": 3, "UINT16": 4,
				"INT16": 5, "INT32": 6, "INT64": 7, "STRING": 8, "BOOL": 9, "FLOAT16": 10, "DOUBLE": 11, "UINT32": 12,
				"UINT64": 13, "BFLOAT16": 16}},
			{Name: "DataLocation", Values: map[string]int32{"DEFAULT": 0, "EXTERNAL": 1}},
		},
		[]textproto.Message{
			{Name: "ModelProto", Fields: []textproto.Field{
				textproto.Int64("ir_version", 1),
				textproto.String("producer_name", 2),
				textproto.MessageField("graph", 7, "GraphProto"),
				textproto.Repeated(textproto.MessageField("opset_import", 8, "OperatorSetIdProto")),
			}},
			{Name: "OperatorSetIdProto", Fields: []textproto.Field{
				textproto.String("domain", 1),
				textproto.Int64("version", 2),
			}},
			{Name: "GraphProto", Fields: []textproto.Field{
				textproto.Repeated(textproto.MessageField("node", 1, "NodeProto")),
				textproto.String("name", 2),
				textproto.Repeated(textproto.MessageField("initializer", 5, "TensorProto")),
				textproto.Repeated(textproto.MessageField("input", 11, "ValueInfoProto")),
				textproto.Repeated(textproto.MessageField("output", 12, "ValueInfoProto")),
			}},
			{Name: "NodeProto", Fields: []textproto.Field{
				textproto.Repeated(textproto.String("input", 1)),
				textproto.Repeated(textproto.String("output", 2)),
				textproto.String("name", 3),
				textproto.String("op_type", 4),
			}},
			{Name: "TensorProto", Fields: []textproto.Field{
				textproto.Repeated(textproto.Int64("dims", 1)),
				textproto.EnumField("data_type", 2, "DataType"),
				textproto.String("name", 8),
				textproto.Repeated(textproto.MessageField("external_data", 13, "StringStringEntryProto")),
				textproto.EnumField("data_location", 14, "DataLocation"),
			}},
			{Name: "StringStringEntryProto", Fields: []textproto.Field{
				textproto.String("key", 1),
				textproto.String("value", 2),
			}},
			{Name: "ValueInfoProto", Fields: []textproto.Field{
				textproto.String("name", 1),
				textproto.MessageField("type", 2, "TypeProto"),
			}},
			{Name: "TypeProto", Fields: []textproto.Field{textproto.MessageField("tensor_type", 1, "TensorTypeProto")}},
			{Name: "TensorTypeProto", Fields: []textproto.Field{
				textproto.EnumField("elem_type", 1, "DataType"),
				textproto.MessageField("shape", 2, "TensorShapeProto"),
			}},
			{Name: "TensorShapeProto", Fields: []textproto.Field{textproto.Repeated(textproto.MessageField("dim", 1, "Dimension"))}},
			{Name: "Dimension", Fields: []textproto.Field{
				textproto.Int64("dim_value", 1),
				textproto.String("dim_param", 2),
			}},
		})
})

// checkpointSchema declares a checkpoint index as text: the
// BundleHeaderProto under the empty key, then each tensor's name and
// BundleEntryProto (tensorflow/core/protobuf/tensor_bundle.proto), as a
// text-format map is written.
var checkpointSchema = sync.OnceValue(func() *textproto.Schema {
	return textproto.MustSchema("tensorflow",
		[]textproto.Enum{
			{Name: "DataType", Values: tfdtype.Names()},
			{Name: "Endianness", Values: map[string]int32{"LITTLE": 0, "BIG": 1}},
		},
		[]textproto.Message{
			{Name: "CheckpointIndex", Fields: []textproto.Field{
				textproto.MessageField("header", 1, "BundleHeaderProto"),
				textproto.Repeated(textproto.MessageField("entry", 2, "BundleEntry")),
			}},
			{Name: "BundleHeaderProto", Fields: []textproto.Field{
				textproto.Int32("num_shards", 1),
				textproto.EnumField("endianness", 2, "Endianness"),
			}},
			{Name: "BundleEntry", Fields: []textproto.Field{
				textproto.String("key", 1),
				textproto.MessageField("value", 2, "BundleEntryProto"),
			}},
			{Name: "BundleEntryProto", Fields: []textproto.Field{
				textproto.EnumField("dtype", 1, "DataType"),
				textproto.MessageField("shape", 2, "TensorShapeProto"),
				textproto.Int32("shard_id", 3),
				textproto.Int64("offset", 4),
				textproto.Int64("size", 5),
			}},
			{Name: "TensorShapeProto", Fields: []textproto.Field{textproto.Repeated(textproto.MessageField("dim", 2, "Dim"))}},
			{Name: "Dim", Fields: []textproto.Field{textproto.Int64("size", 1)}},
		})
})

// predictionLogSchema declares the part of TF Serving's prediction_log.proto
// (and the request it holds) that a warmup record spells out.
var predictionLogSchema = sync.OnceValue(func() *textproto.Schema {
	return textproto.MustSchema("tensorflow.serving",
		[]textproto.Enum{{Name: "DataType", Values: tfdtype.Names()}},
		[]textproto.Message{
			{Name: "PredictionLog", Fields: []textproto.Field{
				textproto.MessageField("log_metadata", 1, "LogMetadata"),
				textproto.MessageField("predict_log", 6, "PredictLog"),
			}},
			{Name: "LogMetadata", Fields: []textproto.Field{textproto.MessageField("model_spec", 1, "ModelSpec")}},
			{Name: "PredictLog", Fields: []textproto.Field{textproto.MessageField("request", 1, "PredictRequest")}},
			{Name: "PredictRequest", Fields: []textproto.Field{
				textproto.MessageField("model_spec", 1, "ModelSpec"),
				textproto.Repeated(textproto.MessageField("inputs", 2, "InputsEntry")),
				textproto.Repeated(textproto.String("output_filter", 3)),
			}},
			{Name: "ModelSpec", Fields: []textproto.Field{
				textproto.String("name", 1),
				textproto.String("signature_name", 3),
			}},
			{Name: "InputsEntry", Fields: []textproto.Field{
				textproto.String("key", 1),
				textproto.MessageField("value", 2, "TensorProto"),
			}},
			{Name: "TensorProto", Fields: []textproto.Field{
				textproto.EnumField("dtype", 1, "DataType"),
				textproto.MessageField("tensor_shape", 2, "TensorShapeProto"),
				textproto.Repeated(textproto.Field{Name: "float_val", Number: 5, Kind: protoreflect.FloatKind}),
				textproto.Repeated(textproto.Int32("int_val", 7)),
				textproto.Repeated(textproto.Bytes("string_val", 8)),
			}},
			{Name: "TensorShapeProto", Fields: []textproto.Field{textproto.Repeated(textproto.MessageField("dim", 2, "Dim"))}},
			{Name: "Dim", Fields: []textproto.Field{textproto.Int64("size", 1)}},
		})
})

func TestContentSchemas(t *testing.T) {
	textprototest.Check(t, onnxSchema())
	textprototest.Check(t, predictionLogSchema())
	textprototest.Check(t, checkpointSchema())
}

// TestContentFormats reads what each format writes with modellint's own
// reader of the file.
func TestContentFormats(t *testing.T) {
	encode := func(t *testing.T, format, name, text string) []byte {
		t.Helper()
		data, err := contentFormats[format](name, text)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	t.Run("pbtxt SavedModel", func(t *testing.T) {
		data := encode(t, "pbtxt", "1/saved_model.pb", `meta_graphs { meta_info_def { tags: "serve" tags: "gpu" } }`)
		saved, err := savedmodel.Read(bytes.NewReader(data), int64(len(data)))
		if err != nil || len(saved.MetaGraphs) != 1 || !saved.MetaGraphs[0].HasTags("gpu", "serve") {
			t.Errorf("read %+v, %v; want one meta graph tagged serve, gpu", saved, err)
		}
	})
	t.Run("pbtxt ONNX", func(t *testing.T) {
		data := encode(t, "pbtxt", "1/model.onnx", `ir_version: 8
			graph {
			  input { name: "x" type { tensor_type { elem_type: INT32 shape { dim { dim_param: "batch" } dim { dim_value: 16 } } } } }
			  initializer { name: "w" data_type: FLOAT dims: [4, 2] data_location: EXTERNAL external_data { key: "location" value: "model.onnx.data" } }
			}`)
		read, err := onnx.Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		input := read.Inputs[0]
		if input.Name != "x" || input.ElemType != 6 || len(input.Dims) != 2 || input.Dims[0].Param != "batch" || input.Dims[1].Value != 16 {
			t.Errorf("input %+v, want x int32 [batch, 16]", input)
		}
		if len(read.External) != 1 || read.External[0].Location != "model.onnx.data" || read.External[0].Length != 32 {
			t.Errorf("external %+v, want 32 bytes in model.onnx.data", read.External)
		}
	})
	t.Run("tfrecord", func(t *testing.T) {
		data := encode(t, "tfrecord", "1/assets.extra/tf_serving_warmup_requests",
			"predict_log { request { model_spec { name: \"a\" } } }\n---\npredict_log { request { model_spec { name: \"b\" } } }\n")
		var payloads [][]byte
		records, _, err := tfrecord.Read(bytes.NewReader(data), int64(len(data)), 10, func(_ int, payload []byte) error {
			payloads = append(payloads, payload)
			return nil
		})
		if err != nil || records != 2 || len(payloads) != 2 || bytes.Equal(payloads[0], payloads[1]) {
			t.Errorf("read %d records %q, %v; want two different ones", records, payloads, err)
		}
	})
	t.Run("safetensors", func(t *testing.T) {
		data := encode(t, "safetensors", "model.safetensors",
			`{"b": {"dtype": "F16", "shape": [2], "data_offsets": [16, 20]}, "a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}`+"\n")
		_, written, size, err := treeFile("model.safetensors", string(data))
		if err != nil {
			t.Fatal(err)
		}
		data = append([]byte(written), make([]byte, size-int64(len(written)))...)
		read, err := safetensors.Read(bytes.NewReader(data), int64(len(data)))
		if err != nil || !slices.Equal(read.Tensors, []string{"a", "b"}) || read.ParameterBytes != 20 {
			t.Errorf("read %+v, %v; want tensors a and b in 20 bytes", read, err)
		}
	})
	t.Run("checkpoint", func(t *testing.T) {
		data := encode(t, "checkpoint", "variables/variables.index", `header { num_shards: 2 }
			entry { key: "w" value { dtype: DT_FLOAT shape { dim { size: 4 } } shard_id: 1 offset: 8 size: 16 } }
			entry { key: "b" value { dtype: DT_FLOAT shape { dim { size: 2 } } size: 8 } }`)
		index, err := checkpoint.Read(bytes.NewReader(data), int64(len(data)))
		if err != nil || index.NumShards != 2 || index.Tensors != 2 || !slices.Equal(index.ShardEnds, []int64{8, 24}) {
			t.Errorf("read %+v, %v; want 2 tensors in 2 shards ending at 8 and 24", index, err)
		}
	})
	t.Run("float32", func(t *testing.T) {
		data := encode(t, "float32", "variables/variables.data-00000-of-00001", "0.5 -2\n  1e3\n")
		want := []byte{0, 0, 0, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0x7a, 0x44}
		if !bytes.Equal(data, want) {
			t.Errorf("got % x, want % x", data, want)
		}
	})
	t.Run("gguf", func(t *testing.T) {
		data := encode(t, "gguf", "models/llama/tiny.gguf", `general.architecture = "llama"
			llama.block_count = 2
			llama.rope.freq_base = 10000.5
			tensor token_embd.weight Q8_0 [64, 32]
			tensor output.weight F16 [64, 32]`)
		_, written, size, err := treeFile("models/llama/tiny.gguf", string(data))
		if err != nil {
			t.Fatal(err)
		}
		data = append([]byte(written), make([]byte, size-int64(len(written)))...)
		read, err := gguf.Read(bytes.NewReader(data), int64(len(data)))
		if err != nil || read.Architecture != "llama" || read.BlockCount != 2 || read.TensorCount != 2 || read.Parameters != 2*64*32 ||
			read.WeightBytes != 64*32/32*34+64*32*2 {
			t.Errorf("read %+v, %v; want a llama of 2 blocks and its two tensors", read, err)
		}
	})
	t.Run("pickle", func(t *testing.T) {
		data := encode(t, "pickle", "pytorch_model.bin",
			"PROTO 2\nGLOBAL 'posix system'\nSHORT_BINUNICODE 'id'\nTUPLE1\nREDUCE\nSTOP\n")
		scan, err := pickle.ScanFile(bytes.NewReader(data), int64(len(data)))
		if err != nil || !slices.Equal(scan.Imports, []string{"posix.system"}) || scan.Incomplete != "" {
			t.Errorf("scan %+v, %v; want a complete scan importing posix.system", scan, err)
		}
	})
}

func TestContentFormatErrors(t *testing.T) {
	for _, tree := range []string{
		"1/\n  saved_model.pb <<pbtxt\n    meta_graphs { meta_info_def { tag: \"serve\" } }\n  pbtxt",
		"1/\n  variables.index <<pbtxt\n    num_shards: 1\n  pbtxt",
		"1/\n  model.png <<png\n    x\n  png",
		"1/\n  model.safetensors <<safetensors\n    {\"a\": {\"dtype\": \"F32\", \"shape\": [4]}}\n  safetensors",
		"1/\n  model.pkl <<pickle\n    GLOBAL posix system\n    STOP\n  pickle",
		"1/\n  model.pkl <<pickle\n    PROTO 2\n  pickle",
		"1/\n  saved_model.pb <<pbtxt\n    meta_graphs {}\n",
		"1/\n  variables.index <<checkpoint\n    entry { key: \"w\" value { shard: 1 } }\n  checkpoint",
		"1/\n  variables.data-00000-of-00001 <<float32\n    0.5 half\n  float32",
		"1/\n  model.gguf <<gguf\n    general.architecture: llama\n  gguf",
		"1/\n  model.gguf <<gguf\n    tensor token_embd.weight Q5_K [4096, 32000]\n  gguf",
		"1/\n  model.gguf <<gguf\n    tensor token_embd.weight Q8_0 [4001, 32000]\n  gguf",
	} {
		if files, err := parseTree(tree); err == nil {
			t.Errorf("parseTree accepts\n%s\nas %q", tree, files)
		}
	}
}
