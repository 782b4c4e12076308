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

func TestTFServingLines(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []Entry
	}{
		{"every base_path written", "model_config_list {\n  config {\n    name: \"a\"\n    base_path: \"/m/a\"\n  }\n  config { name: \"b\" base_path: \"/m/b\" }\n}\n",
			[]Entry{{Name: "a", BasePath: "/m/a", Line: 4}, {Name: "b", BasePath: "/m/b", Line: 6}}},
		{"a base_path missing", "model_config_list {\n  config { name: \"a\" base_path: \"/m/a\" }\n  config {\n    name: \"b\"\n  }\n}\n",
			[]Entry{{Name: "a", BasePath: "/m/a", Line: 2}, {Name: "b", Line: 3}}},
	} {
		config, err := TFServing([]byte(c.text))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(config.Entries, c.want) {
			t.Errorf("%s: entries %+v, want %+v", c.name, config.Entries, c.want)
		}
	}
}

func TestMaxFile(t *testing.T) {
	pad := func(text string, size int) []byte {
		return []byte(text + "#" + strings.Repeat("x", size-len(text)-1))
	}
	tfServing := "model_config_list { config { name: \"a\" base_path: \"/m/a\" } }\n"
	if _, err := TFServing(pad(tfServing, MaxFile)); err != nil {
		t.Errorf("a model config file of %d bytes: %v", MaxFile, err)
	}
	if _, err := TFServing(pad(tfServing, MaxFile+1)); err == nil {
		t.Errorf("a model config file of %d bytes parsed", MaxFile+1)
	}
	properties := "model_store=/m\n"
	if _, err := ParseProperties(pad(properties, MaxFile)); err != nil {
		t.Errorf("a properties file of %d bytes: %v", MaxFile, err)
	}
	if _, err := ParseProperties(pad(properties, MaxFile+1)); err == nil {
		t.Errorf("a properties file of %d bytes parsed", MaxFile+1)
	}
}

func TestParsePropertiesLines(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       Properties
	}{
		{"last line ends in a backslash", "load_models=a.mar\nmodel_store=/m\\", Properties{"load_models": {"a.mar", 1}, "model_store": {"/m", 2}}},
		{"line of one backslash", "\\\nmodel_store=/m\n", Properties{"model_store": {"/m", 1}}},
		{"key without value", "model_store=/m\ndebug\n", Properties{"model_store": {"/m", 1}, "debug": {"", 2}}},
		{"key ends in an escape", "debug\\\\\n", Properties{`debug\`: {"", 1}}},
	} {
		properties, err := ParseProperties([]byte(c.text))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(properties, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, properties, c.want)
		}
	}
}
