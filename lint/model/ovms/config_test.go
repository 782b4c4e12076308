package ovms

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/model/modelfile"
)

func TestParse(t *testing.T) {
	doc := `{
  "model_config_list": [
    {"config": {"name": "resnet", "base_path": "resnet"}},
    {
      "config": {
        "name": "face",
        "base_path": "/models/face",
        "model_version_policy": {"specific": {"versions": [1, 3]}},
        "target_device": "CPU"
      }
    },
    {"config": {"base_path": "x"}},
    {"config": {"name": "plain"}}
  ],
  "mediapipe_config_list": [{"name": "graph", "base_path": "graph"}]
}`
	config, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !config.ModelList || config.ModelListLine != 2 {
		t.Errorf("model list %v at line %d", config.ModelList, config.ModelListLine)
	}
	want := []Entry{
		{Name: "resnet", BasePath: "resnet", HasBasePath: true, Line: 3, BasePathLine: 3},
		{Name: "face", BasePath: "/models/face", HasBasePath: true, Line: 5, BasePathLine: 7},
		{Name: "plain", Line: 13, BasePathLine: 13},
	}
	if len(config.Models) != len(want) {
		t.Fatalf("models = %+v", config.Models)
	}
	for i := range want {
		want[i].Policy = VersionPolicy{Kind: "latest", NumVersions: 1}
		if i == 1 {
			want[i].Policy = VersionPolicy{Kind: "specific", Versions: []int64{1, 3}}
		}
		if !reflect.DeepEqual(config.Models[i], want[i]) {
			t.Errorf("model %d = %+v, want %+v", i, config.Models[i], want[i])
		}
	}
	if len(config.Problems) != 1 || config.Problems[0].Line != 12 || !strings.Contains(config.Problems[0].Reason, "model_config_list[2].config has no name") {
		t.Errorf("problems = %+v", config.Problems)
	}
	if len(config.Graphs) != 1 || config.Graphs[0].Name != "graph" || config.Graphs[0].Line != 15 {
		t.Errorf("graphs = %+v", config.Graphs)
	}
}

func TestParseRefused(t *testing.T) {
	if _, err := Parse([]byte("{\"model_config_list\": [\n}")); !errors.Is(err, modelfile.ErrInvalid) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("invalid JSON: %v", err)
	}
	if _, err := Parse([]byte(`[]`)); !errors.Is(err, modelfile.ErrInvalid) {
		t.Errorf("an array: %v", err)
	}
	config, err := Parse([]byte(`{"mediapipe_config_list": []}`))
	if err != nil || config.ModelList {
		t.Errorf("no model list: %+v, %v", config, err)
	}
	config, err = Parse([]byte(`{"model_config_list": {"config": {}}}`))
	if err != nil || config.ModelList || len(config.Problems) != 1 {
		t.Errorf("model list an object: %+v, %v", config, err)
	}
	if !LooksLikeConfig([]byte(`{"model_config_list": 1}`)) || LooksLikeConfig([]byte(`{"architectures": ["Bert"]}`)) {
		t.Error("LooksLikeConfig")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"model_config_list":[{"config":{"name":"a","base_path":"/m"}}]}`))
	f.Add([]byte(`{"model_config_list":[{"config":{"name":1}}, 2], "mediapipe_config_list": [{"name": "g"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		config, err := Parse(data)
		if err == nil && config == nil {
			t.Fatal("no config and no error")
		}
		if err != nil && !errors.Is(err, modelfile.ErrInvalid) {
			t.Fatalf("an error that is not ErrInvalid: %v", err)
		}
	})
}
