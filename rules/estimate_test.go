package rules

import (
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/model"
)

func TestEstimateMemory(t *testing.T) {
	estimates := (&lint.Config{EstimateSettings: lint.EstimateConfig{MemoryFactor: 2}}).Estimates()
	need := estimateMemory(estimates, 1<<30, 1, 2)
	if need.Bytes != 4<<30+256<<20 || need.Formula() != "1.0 GiB × 2 × 2 copies + 256.0 MiB baseline" {
		t.Errorf("estimate %d %q", need.Bytes, need.Formula())
	}
}

// How a model is loaded decides the rate the load estimate reads it at:
// the weights a server would load first name it (GGUF, then safetensors,
// then pickles), and a layout names it when no weights were read.
func TestLoadFormatOf(t *testing.T) {
	gguf, safetensors := []model.GGUFFile{{}}, []model.SafetensorsFile{{}}
	pickles, onnx := []model.PickleFile{{}}, []model.ONNXFile{{}}
	cases := []struct {
		model *model.Model
		want  loadFormat
	}{
		{&model.Model{GGUF: gguf, Safetensors: safetensors, Pickles: pickles}, loadFormat{"GGUF read into memory", 4000}},
		{&model.Model{Safetensors: safetensors, Pickles: pickles}, loadFormat{"safetensors read into memory", 4000}},
		{&model.Model{SafetensorsIndexes: []model.SafetensorsIndex{{}}, Layout: model.LayoutTorchServe}, loadFormat{"safetensors read into memory", 4000}},
		{&model.Model{Pickles: pickles, ONNX: onnx}, loadPickle},
		{&model.Model{Layout: model.LayoutTorchServe}, loadPickle},
		{&model.Model{ONNX: onnx, Layout: model.LayoutTriton}, loadFormat{"ONNX read into memory", 4000}},
		{&model.Model{Layout: model.LayoutONNX}, loadFormat{"ONNX read into memory", 4000}},
		{&model.Model{Layout: model.LayoutTFServing}, loadFormat{"SavedModel variables read into memory", 4000}},
		{&model.Model{Layout: model.LayoutFiles}, loadRead},
	}
	for i, c := range cases {
		if got := loadFormatOf(c.model); got != c.want {
			t.Errorf("case %d: %+v, want %+v", i+1, got, c.want)
		}
	}
}
