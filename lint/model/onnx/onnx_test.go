package onnx

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/modellint/modellint/lint/model/modelfile"
	"google.golang.org/protobuf/encoding/protowire"
)

const models = "../../../testdata/models"

func read(data []byte) (*Model, error) { return Read(bytes.NewReader(data), int64(len(data))) }

func TestRealModel(t *testing.T) {
	data, err := os.ReadFile(models + "/triton/simple/1/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	got, err := read(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.IRVersion != 10 || got.Opsets[""] != 21 || got.Producer != "triton" {
		t.Errorf("ir %d, opsets %v, producer %q", got.IRVersion, got.Opsets, got.Producer)
	}
	batch16 := []Dim{{}, {Value: 16}}
	want := []ValueInfo{{Name: "INPUT0", ElemType: 6, HasShape: true, Dims: batch16}, {Name: "INPUT1", ElemType: 6, HasShape: true, Dims: batch16}}
	if !reflect.DeepEqual(got.Inputs, want) {
		t.Errorf("inputs = %+v, want %+v", got.Inputs, want)
	}
	if len(got.Outputs) != 2 || got.Outputs[0].Name != "OUTPUT0" || TypeName(got.Outputs[0].ElemType) != "TYPE_INT32" {
		t.Errorf("outputs = %+v", got.Outputs)
	}
}

// builder writes protobuf fields for hand-made models.
type builder []byte

func (b builder) varint(number protowire.Number, v uint64) builder {
	b = protowire.AppendTag(b, number, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func (b builder) bytes(number protowire.Number, v []byte) builder {
	b = protowire.AppendTag(b, number, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func (b builder) str(number protowire.Number, v string) builder { return b.bytes(number, []byte(v)) }

func external(name, location string, offset, length string, dims ...uint64) builder {
	var tensor builder
	for _, dim := range dims {
		tensor = tensor.varint(1, dim)
	}
	tensor = tensor.varint(2, 1).str(8, name)
	tensor = tensor.bytes(13, builder{}.str(1, "location").str(2, location))
	if offset != "" {
		tensor = tensor.bytes(13, builder{}.str(1, "offset").str(2, offset))
	}
	if length != "" {
		tensor = tensor.bytes(13, builder{}.str(1, "length").str(2, length))
	}
	return tensor.varint(14, 1)
}

func TestExternalDataAndInitializers(t *testing.T) {
	inline := builder{}.varint(1, 4).varint(2, 1).str(8, "bias").bytes(9, make([]byte, 16))
	weights := external("w", "model.onnx.data", "0", "4096", 32, 32)
	noLength := external("e", "embed.bin", "64", "", 10, 8) // float32: 320 bytes
	input := builder{}.str(1, "x").bytes(2, builder{}.bytes(1, builder{}.varint(1, 1).bytes(2, builder{}.
		bytes(1, builder{}.str(2, "batch")).bytes(1, builder{}.varint(1, 32)))))
	weightInput := builder{}.str(1, "w") // IR < 4 lists initializers as inputs
	constant := builder{}.str(4, "Constant").bytes(5, builder{}.str(1, "value").bytes(5, builder{}.varint(1, 2).varint(2, 7).bytes(9, make([]byte, 16))))
	subgraph := builder{}.bytes(5, builder{}.varint(1, 1).varint(2, 1).str(8, "inner").bytes(9, make([]byte, 4)))
	ifNode := builder{}.str(4, "If").bytes(5, builder{}.str(1, "then_branch").bytes(6, subgraph))
	graph := builder{}.bytes(1, constant).bytes(1, ifNode).bytes(5, inline).bytes(5, weights).bytes(5, noLength).
		bytes(11, input).bytes(11, weightInput).bytes(12, builder{}.str(1, "y"))
	model := builder{}.varint(1, 3).str(2, "pytorch").bytes(7, graph).bytes(8, builder{}.str(1, "").varint(2, 9))
	got, err := read(model)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Inputs) != 1 || got.Inputs[0].Name != "x" || got.Inputs[0].Dims[0].Param != "batch" || !got.Inputs[0].Dims[1].Fixed() {
		t.Errorf("inputs = %+v, want only x [batch, 32]", got.Inputs)
	}
	if len(got.Overridable) != 0 {
		t.Errorf("overridable = %+v, want none before IR version 4", got.Overridable)
	}
	// From IR version 4 on, the input w that an initializer backs is one a
	// request may override; the graph is read before ir_version here.
	later, err := read(append(builder{}.bytes(7, graph), builder{}.varint(1, 4)...))
	if err != nil {
		t.Fatal(err)
	}
	if len(later.Inputs) != 1 || len(later.Overridable) != 1 || later.Overridable[0].Name != "w" {
		t.Errorf("IR 4: inputs %+v, overridable %+v, want x and w", later.Inputs, later.Overridable)
	}
	wantExternal := []ExternalData{{Tensor: "w", Location: "model.onnx.data", Offset: 0, Length: 4096}, {Tensor: "e", Location: "embed.bin", Offset: 64, Length: 320}}
	if !reflect.DeepEqual(got.External, wantExternal) {
		t.Errorf("external = %+v, want %+v", got.External, wantExternal)
	}
	if got.Initializers != 5 || got.InlineBytes != 16+16+4 || got.Parameters != 4+1024+80+2+1 {
		t.Errorf("%d initializers, %d inline bytes, %d parameters", got.Initializers, got.InlineBytes, got.Parameters)
	}
	if !reflect.DeepEqual(got.Locations(), []string{"embed.bin", "model.onnx.data"}) {
		t.Errorf("locations = %v", got.Locations())
	}
}

func TestInvalid(t *testing.T) {
	real, err := os.ReadFile(models + "/triton/simple/1/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string][]byte{
		"truncated":       real[:len(real)-40],
		"no graph":        builder{}.varint(1, 7),
		"git lfs pointer": []byte("version https://git-lfs.github.com/spec/v1\n"),
		"bad offset":      builder{}.bytes(7, builder{}.bytes(5, external("w", "d", "-5", "4"))),
		"wrong wire type": builder{}.str(1, "ir version as a string"),
	}
	for name, input := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := read(input); !errors.Is(err, modelfile.ErrInvalid) {
				t.Fatalf("err = %v, want a modelfile.ErrInvalid", err)
			}
		})
	}
}

func TestDeepSubgraphsAreRefused(t *testing.T) {
	graph := builder{}
	for i := 0; i <= maxGraphDepth+1; i++ {
		node := builder{}.bytes(5, builder{}.bytes(6, graph))
		graph = builder{}.bytes(1, node)
	}
	if _, err := read(builder{}.bytes(7, graph)); !errors.Is(err, modelfile.ErrInvalid) {
		t.Fatalf("err = %v, want a modelfile.ErrInvalid for subgraphs nested beyond %d", err, maxGraphDepth)
	}
}

func FuzzRead(f *testing.F) {
	for _, path := range []string{models + "/triton/simple/1/model.onnx", models + "/triton/bad_input_dims/1/model.onnx"} {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(builder{}.bytes(7, builder{}.bytes(5, external("w", "../etc/passwd", "0", "8", 2)))))
	f.Fuzz(func(t *testing.T, data []byte) {
		model, err := read(data)
		if err != nil && !errors.Is(err, modelfile.ErrInvalid) {
			t.Fatalf("non-content error: %v", err)
		}
		if err == nil {
			for _, ref := range model.External {
				if ref.Offset < 0 || ref.Length < -1 {
					t.Fatalf("negative external range %+v", ref)
				}
			}
		}
	})
}
