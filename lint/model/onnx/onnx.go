// Package onnx reads an ONNX model's structure — IR and opset versions, the
// graph's inputs and outputs, its initializers and the external data files
// they reference — straight from the protobuf wire format. Inline tensor
// data is skipped by offset, never read.
package onnx

import (
	"errors"
	"io"
	"math"
	"math/bits"
	"sort"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/wire"
)

const (
	maxName = 64 << 10
	// maxGraphDepth bounds subgraphs (If/Loop/Scan bodies) inside subgraphs.
	maxGraphDepth = 16
)

// FormatName starts the text of the modelfile.Error values this package
// returns.
const FormatName = "not a valid ONNX model"

// Model is what an .onnx file says.
type Model struct {
	IRVersion       int64
	Producer        string
	ProducerVersion string
	// Opsets maps an operator-set domain ("" is the default ai.onnx) to its version.
	Opsets map[string]int64
	// Inputs are the graph inputs a client feeds (initializers excluded),
	// Outputs the graph outputs, in graph order.
	Inputs  []ValueInfo
	Outputs []ValueInfo
	// Overridable are the graph inputs that are also initializers, from
	// IR version 4 on: ONNX Runtime lets a request override them
	// (Graph::ComputeOverridableInitializers); before version 4 every
	// initializer was listed as an input, and none can be overridden.
	Overridable []ValueInfo
	// Initializers counts the weight tensors, in every (sub)graph.
	Initializers int
	// Parameters is the number of elements of the initializers.
	Parameters int64
	// InlineBytes is the tensor data stored in the .onnx file itself.
	InlineBytes int64
	// External lists the tensors whose data lives in other files.
	External []ExternalData
}

// ValueInfo is a graph input or output.
type ValueInfo struct {
	Name     string
	ElemType int64 // TensorProto.DataType; 0 when not a tensor
	HasShape bool
	Dims     []Dim
}

// Dim is one dimension: a fixed Value, or a symbolic Param ("batch"), or
// neither (unknown).
type Dim struct {
	Value int64
	Param string
}

// Fixed reports whether the dimension has a fixed size.
func (d Dim) Fixed() bool { return d.Param == "" && d.Value > 0 }

// ExternalData is one tensor's reference to an external data file.
type ExternalData struct {
	Tensor   string
	Location string // as written, relative to the .onnx file's directory
	Offset   int64
	// Length is the number of bytes; when the model does not say, the size
	// the tensor's type and shape need (-1 when that is unknown too).
	Length int64
}

// Read decodes a model of size bytes.
func Read(r io.ReaderAt, size int64) (*Model, error) {
	model := &Model{Opsets: map[string]int64{}}
	sawGraph := false
	err := wire.NewReader(r, size).Root().Range(func(f wire.Field) error {
		switch {
		case f.Number == 1 && f.Type == protowire.VarintType:
			model.IRVersion = int64(f.Varint)
		case f.Number == 2 && f.Type == protowire.BytesType:
			var err error
			model.Producer, err = f.String(maxName)
			return err
		case f.Number == 3 && f.Type == protowire.BytesType:
			var err error
			model.ProducerVersion, err = f.String(maxName)
			return err
		case f.Number == 7 && f.Type == protowire.BytesType:
			sawGraph = true
			return model.readGraph(f.Message(), 0)
		case f.Number == 8 && f.Type == protowire.BytesType:
			return model.readOpset(f.Message())
		case f.Number <= 8 && f.Number != 4 && f.Number != 5 && f.Number != 6:
			return modelfile.Invalidf(FormatName, "ModelProto has no field %d of wire type %d", f.Number, f.Type)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, wire.ErrMalformed) {
			err = modelfile.Invalidf(FormatName, "%w", err)
		}
		return nil, err
	}
	if !sawGraph {
		return nil, modelfile.Invalidf(FormatName, "no graph")
	}
	if model.IRVersion < 4 {
		model.Overridable = nil
	}
	return model, nil
}

func (model *Model) readOpset(m wire.Message) error {
	domain, version := "", int64(0)
	err := m.Range(func(f wire.Field) error {
		switch {
		case f.Number == 1 && f.Type == protowire.BytesType:
			var err error
			domain, err = f.String(maxName)
			return err
		case f.Number == 2 && f.Type == protowire.VarintType:
			version = int64(f.Varint)
		}
		return nil
	})
	model.Opsets[domain] = version
	return err
}

func (model *Model) readGraph(m wire.Message, depth int) error {
	if depth > maxGraphDepth {
		return modelfile.Invalidf(FormatName, "subgraphs nested deeper than %d", maxGraphDepth)
	}
	initializers := map[string]bool{}
	var inputs, outputs []ValueInfo
	err := m.Range(func(f wire.Field) error {
		if f.Type != protowire.BytesType {
			return nil
		}
		switch f.Number {
		case 1: // node: its attributes can hold tensors and subgraphs
			return model.readNode(f.Message(), depth)
		case 5:
			name, err := model.readTensor(f.Message())
			initializers[name] = true
			return err
		case 11, 12:
			info, err := readValueInfo(f.Message())
			if err != nil {
				return err
			}
			if f.Number == 11 {
				inputs = append(inputs, *info)
			} else {
				outputs = append(outputs, *info)
			}
		case 15: // sparse_initializer: values=1, indices=2
			return f.Message().Range(func(part wire.Field) error {
				if (part.Number == 1 || part.Number == 2) && part.Type == protowire.BytesType {
					name, err := model.readTensor(part.Message())
					if part.Number == 1 {
						initializers[name] = true
					}
					return err
				}
				return nil
			})
		}
		return nil
	})
	if err != nil || depth > 0 {
		return err
	}
	// Before IR version 4 initializers were also listed as inputs; they
	// are weights, not something a client sends.
	for _, input := range inputs {
		if initializers[input.Name] {
			model.Overridable = append(model.Overridable, input)
		} else {
			model.Inputs = append(model.Inputs, input)
		}
	}
	model.Outputs = outputs
	return nil
}

func (model *Model) readNode(m wire.Message, depth int) error {
	return m.Range(func(f wire.Field) error {
		if f.Number != 5 || f.Type != protowire.BytesType {
			return nil
		}
		return f.Message().Range(func(attr wire.Field) error {
			if attr.Type != protowire.BytesType {
				return nil
			}
			switch attr.Number {
			case 5, 10: // t, tensors
				_, err := model.readTensor(attr.Message())
				return err
			case 6, 11: // g, graphs
				return model.readGraph(attr.Message(), depth+1)
			}
			return nil
		})
	})
}

// readTensor accounts for one TensorProto and returns its name.
func (model *Model) readTensor(m wire.Message) (string, error) {
	var name string
	var dims []int64
	var dataType int64
	var location string
	var external map[string]string
	inline := int64(0)
	err := m.Range(func(f wire.Field) error {
		switch f.Number {
		case 1:
			if f.Type == protowire.VarintType {
				dims = append(dims, int64(f.Varint))
				return nil
			}
			packed, err := f.Bytes(maxName)
			if err != nil {
				return err
			}
			for len(packed) > 0 {
				v, n := protowire.ConsumeVarint(packed)
				if n < 0 {
					return modelfile.Invalidf(FormatName, "bad dims")
				}
				dims = append(dims, int64(v))
				packed = packed[n:]
			}
		case 2:
			dataType = int64(f.Varint)
		case 8:
			var err error
			name, err = f.String(maxName)
			return err
		case 4, 5, 6, 7, 9, 10, 11: // typed data and raw_data
			switch f.Type {
			case protowire.BytesType:
				inline += f.Len()
			case protowire.Fixed32Type:
				inline += 4
			case protowire.Fixed64Type:
				inline += 8
			default:
				inline += int64(protowire.SizeVarint(f.Varint))
			}
		case 13:
			if f.Type != protowire.BytesType {
				return nil
			}
			key, value, err := readStringPair(f.Message())
			if err != nil {
				return err
			}
			if external == nil {
				external = map[string]string{}
			}
			external[key] = value
		case 14:
			if f.Varint == 1 {
				location = "external"
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	model.Initializers++
	elements, known := int64(1), true
	for _, dim := range dims {
		hi, lo := bits.Mul64(uint64(elements), uint64(dim))
		if dim < 0 || hi != 0 || lo > math.MaxInt64 {
			known = false
			break
		}
		elements = int64(lo)
	}
	if known {
		model.Parameters += elements
	}
	model.InlineBytes += inline
	if location != "external" && external == nil {
		return name, nil
	}
	ref := ExternalData{Tensor: name, Location: external["location"], Length: -1}
	if value, ok := external["offset"]; ok {
		if ref.Offset, err = strconv.ParseInt(value, 10, 64); err != nil || ref.Offset < 0 {
			return "", modelfile.Invalidf(FormatName, "tensor %q has external offset %q", name, value)
		}
	}
	if value, ok := external["length"]; ok {
		if ref.Length, err = strconv.ParseInt(value, 10, 64); err != nil || ref.Length < 0 {
			return "", modelfile.Invalidf(FormatName, "tensor %q has external length %q", name, value)
		}
	} else if bitsPerElement := elementBits(dataType); known && bitsPerElement > 0 {
		hi, lo := bits.Mul64(uint64(elements), uint64(bitsPerElement))
		if hi == 0 && lo/8 < math.MaxInt64 {
			ref.Length = int64((lo + 7) / 8)
		}
	}
	model.External = append(model.External, ref)
	return name, nil
}

func readStringPair(m wire.Message) (key, value string, err error) {
	err = m.Range(func(f wire.Field) error {
		if f.Type != protowire.BytesType {
			return nil
		}
		var err error
		switch f.Number {
		case 1:
			key, err = f.String(maxName)
		case 2:
			value, err = f.String(maxName)
		}
		return err
	})
	return key, value, err
}

// readValueInfo reads name and, for tensors, element type and shape:
// ValueInfoProto{name=1, type=2 TypeProto{tensor_type=1 {elem_type=1,
// shape=2 {dim=1 {dim_value=1, dim_param=2}}}}}.
func readValueInfo(m wire.Message) (*ValueInfo, error) {
	info := &ValueInfo{}
	err := m.Range(func(f wire.Field) error {
		if f.Type != protowire.BytesType {
			return nil
		}
		switch f.Number {
		case 1:
			var err error
			info.Name, err = f.String(maxName)
			return err
		case 2:
			return f.Message().Range(func(typ wire.Field) error {
				if typ.Number != 1 || typ.Type != protowire.BytesType {
					return nil
				}
				return typ.Message().Range(func(tensor wire.Field) error {
					switch {
					case tensor.Number == 1 && tensor.Type == protowire.VarintType:
						info.ElemType = int64(tensor.Varint)
					case tensor.Number == 2 && tensor.Type == protowire.BytesType:
						info.HasShape = true
						return tensor.Message().Range(func(dim wire.Field) error {
							if dim.Number != 1 || dim.Type != protowire.BytesType {
								return nil
							}
							var d Dim
							err := dim.Message().Range(func(part wire.Field) error {
								switch {
								case part.Number == 1 && part.Type == protowire.VarintType:
									d.Value = int64(part.Varint)
								case part.Number == 2 && part.Type == protowire.BytesType:
									var err error
									d.Param, err = part.String(maxName)
									return err
								}
								return nil
							})
							info.Dims = append(info.Dims, d)
							return err
						})
					}
					return nil
				})
			})
		}
		return nil
	})
	return info, err
}

// elementBits is the size of an element of a TensorProto.DataType, 0 when
// not fixed (strings) or unknown.
func elementBits(dataType int64) int {
	switch dataType {
	case 25, 26: // UINT2, INT2
		return 2
	case 21, 22, 23: // UINT4, INT4, FLOAT4E2M1
		return 4
	case 2, 3, 9, 17, 18, 19, 20, 24:
		return 8
	case 4, 5, 10, 16:
		return 16
	case 1, 6, 12:
		return 32
	case 7, 11, 13, 14:
		return 64
	case 15:
		return 128
	}
	return 0
}

// TypeName names a TensorProto.DataType as Triton's config does (TYPE_FP32 ...),
// or "" when Triton has no such type.
func TypeName(dataType int64) string {
	names := map[int64]string{
		1: "TYPE_FP32", 2: "TYPE_UINT8", 3: "TYPE_INT8", 4: "TYPE_UINT16", 5: "TYPE_INT16",
		6: "TYPE_INT32", 7: "TYPE_INT64", 8: "TYPE_STRING", 9: "TYPE_BOOL", 10: "TYPE_FP16",
		11: "TYPE_FP64", 12: "TYPE_UINT32", 13: "TYPE_UINT64", 16: "TYPE_BF16",
	}
	return names[dataType]
}

// ElemTypeName is ONNX's name of an element type without its
// ONNX_TENSOR_ELEMENT_DATA_TYPE_ prefix (FLOAT, INT64), as Triton's ONNX
// Runtime backend prints it (OnnxDataTypeName); the number for one it
// does not name.
func ElemTypeName(elemType int64) string {
	names := []string{"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL",
		"FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"}
	if elemType >= 0 && elemType < int64(len(names)) {
		return names[elemType]
	}
	return strconv.FormatInt(elemType, 10)
}

// Locations are the distinct external data files, sorted.
func (model *Model) Locations() []string {
	set := map[string]bool{}
	for _, ref := range model.External {
		set[ref.Location] = true
	}
	locations := make([]string, 0, len(set))
	for location := range set {
		locations = append(locations, location)
	}
	sort.Strings(locations)
	return locations
}
