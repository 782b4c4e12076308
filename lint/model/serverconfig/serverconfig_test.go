package serverconfig

import (
	"reflect"
	"strings"
	"testing"
)

func TestTFServing(t *testing.T) {
	text := `# two models
model_config_list {
  config {
    name: "resnet"
    base_path: "/models/resnet"   # the SavedModel
    model_platform: "tensorflow"
  }
  config: { name: 'bert' base_path: "/models/bert" model_version_policy { all {} } }
}
`
	config, err := TFServing([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Name: "resnet", BasePath: "/models/resnet", Line: 5}, {Name: "bert", BasePath: "/models/bert", Line: 8}}
	if !reflect.DeepEqual(config.Entries, want) {
		t.Errorf("entries %+v, want %+v", config.Entries, want)
	}
	for _, bad := range []string{"model_config_list { config { name: resnet } }", "model_config_list {", "model_config_list { config { name: \"a\" name: \"b\" } }"} {
		if _, err := TFServing([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := TFServing([]byte(strings.Repeat("a {", 200))); err == nil {
		t.Error("deep nesting parsed")
	}
}

func TestParseProperties(t *testing.T) {
	text := "# comment\n! also\ninference_address=http://0.0.0.0:8085\nmodel_store : /mnt/models/model-store\n" +
		"load_models = mnist.mar,\\\n    bert=bert.mar\nkey\\ with\\ space value\\u0041\nmodel_store=/home/model-server/store\n"
	properties, err := ParseProperties([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := Properties{
		"inference_address": {"http://0.0.0.0:8085", 3},
		"model_store":       {"/home/model-server/store", 8},
		"load_models":       {"mnist.mar,bert=bert.mar", 5},
		"key with space":    {"valueA", 7},
	}
	if !reflect.DeepEqual(properties, want) {
		t.Errorf("got %+v, want %+v", properties, want)
	}
	if _, err := ParseProperties([]byte(`a=\u00`)); err == nil {
		t.Error("a malformed escape parsed")
	}
}

func FuzzTFServing(f *testing.F) {
	f.Add([]byte(`model_config_list { config { name: "a" base_path: "/m/a" } }`))
	f.Fuzz(func(t *testing.T, text []byte) { TFServing(text) })
}

func FuzzParseProperties(f *testing.F) {
	f.Add([]byte("model_store=/m\nload_models=all\\\n  ,b.mar\n"))
	f.Fuzz(func(t *testing.T, text []byte) { ParseProperties(text) })
}
