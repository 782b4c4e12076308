package model

import (
	"testing"
	"testing/fstest"
)

func TestOVMSVersion(t *testing.T) {
	cases := []struct {
		name   string
		number int64
		reason string
	}{
		{"1", 1, ""}, {"01", 1, ""}, {"1_old", 1, ""}, {" 7", 7, ""}, {"+3", 3, ""},
		{"0", 0, IgnoredNotPositive}, {"-1", 0, IgnoredNotPositive}, {"00", 0, IgnoredNotPositive},
		{"v1", 0, IgnoredNotNumber}, {"latest", 0, IgnoredNotNumber},
		{"99999999999999999999", 0, IgnoredOutOfRange},
	}
	for _, c := range cases {
		number, reason := ovmsVersion(c.name)
		if number != c.number || reason != c.reason {
			t.Errorf("ovmsVersion(%q) = %d, %q; want %d, %q", c.name, number, reason, c.number, c.reason)
		}
	}
}

func TestLoadOVMS(t *testing.T) {
	fsys := fstest.MapFS{
		"0/model.xml":      {Data: []byte("<net/>")},
		"0/model.bin":      {Data: []byte("w")},
		"1/model.xml":      {Data: []byte("<net/>")},
		"1/model.bin":      {Data: []byte("w")},
		"2/model.xml":      {Data: []byte("<net/>")},
		"2/weights.bin":    {Data: []byte("w")},
		"latest/model.xml": {Data: []byte("<net/>")},
	}
	m, err := LoadFS(fsys, "resnet")
	if err != nil {
		t.Fatal(err)
	}
	if m.Layout != LayoutOVMS || m.OVMS == nil || len(m.OVMS.Bases) != 1 {
		t.Fatalf("layout %s, ovms %+v", m.Layout, m.OVMS)
	}
	base := m.OVMS.Bases[0]
	if len(base.Versions) != 2 || base.Versions[1].Name != "2" || !base.Versions[1].Resident || base.Versions[0].ModelFile != "1/model.xml" {
		t.Errorf("versions = %+v", base.Versions)
	}
	if len(base.Ignored) != 2 || base.Ignored[0].Reason != IgnoredNotPositive || base.Ignored[1].Reason != IgnoredNotNumber {
		t.Errorf("ignored = %+v", base.Ignored)
	}
	if len(base.Problems) != 1 || base.Problems[0].File != "2/model.xml" || base.Problems[0].Want != "2/model.bin" || !base.Problems[0].Resident {
		t.Errorf("problems = %+v", base.Problems)
	}
	if m.ResidentVersions != 1 {
		t.Errorf("resident versions = %d", m.ResidentVersions)
	}
	if !IsModelDirFS(fsys) {
		t.Error("IsModelDirFS: false")
	}
}

func TestLoadOVMSRepository(t *testing.T) {
	fsys := fstest.MapFS{
		"config.json": {Data: []byte(`{"model_config_list": [
  {"config": {"name": "resnet", "base_path": "resnet"}},
  {"config": {"name": "face", "base_path": "./face-detection"}},
  {"config": {"name": "remote", "base_path": "s3://bucket/m"}},
  {"config": {"name": "up", "base_path": "../up"}}
]}`)},
		"resnet/1/model.bin":       {Data: []byte("w")},
		"resnet/1/model.xml":       {Data: []byte("<net/>")},
		"resnet/01/model.onnx":     {Data: []byte("w")},
		"tokenizer/tokenizer.json": {Data: []byte("{}")},
	}
	m, err := LoadFS(fsys, "models")
	if err != nil {
		t.Fatal(err)
	}
	if m.Layout != LayoutOVMS || m.OVMS.ConfigFile != "config.json" || m.OVMS.Config == nil {
		t.Fatalf("layout %s, ovms %+v", m.Layout, m.OVMS)
	}
	bases := m.OVMS.Bases
	if len(bases) != 4 || bases[0].Dir != "resnet" || len(bases[0].Problems) != 0 || len(bases[0].Versions) != 2 {
		t.Fatalf("bases = %+v", bases)
	}
	if !bases[1].Missing || bases[1].Dir != "face-detection" || bases[1].Entry.Line != 3 {
		t.Errorf("face = %+v", bases[1])
	}
	if bases[2].Missing || bases[2].Escapes || !bases[3].Escapes {
		t.Errorf("remote = %+v, up = %+v", bases[2], bases[3])
	}
	if !IsModelDirFS(fsys) {
		t.Error("IsModelDirFS: false")
	}
}

func TestOVMSKeepsOtherLayouts(t *testing.T) {
	cases := map[string]fstest.MapFS{
		"tensorflow-serving": {"1/saved_model.pb": {Data: []byte("x")}, "1/labels.xml": {Data: []byte("<l/>")}},
		"triton":             {"config.pbtxt": {Data: []byte(`backend: "openvino"`)}, "1/model.xml": {Data: []byte("<net/>")}, "1/model.bin": {Data: []byte("w")}},
		"huggingface":        {"config.json": {Data: []byte(`{"architectures": ["Bert"]}`)}, "model.safetensors": {Data: []byte("x")}},
	}
	for want, fsys := range cases {
		m, err := LoadFS(fsys, "m")
		if err != nil {
			t.Fatal(err)
		}
		if string(m.Layout) != want || m.OVMS != nil {
			t.Errorf("%s: layout %s", want, m.Layout)
		}
	}
}
