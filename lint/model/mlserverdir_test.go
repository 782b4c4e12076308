package model

import (
	"testing"
	"testing/fstest"
)

func TestLoadMLServer(t *testing.T) {
	cases := []struct {
		name    string
		fsys    fstest.MapFS
		layout  Layout
		uri     string
		missing bool
		outside bool
	}{
		{"sklearn", fstest.MapFS{
			"model-settings.json": {Data: []byte(`{"name": "iris", "implementation": "mlserver_sklearn.SKLearnModel", "parameters": {"uri": "./model.joblib"}}`)},
			"model.joblib":        {Data: []byte("x")},
		}, LayoutMLServer, "model.joblib", false, false},
		{"missing artifact", fstest.MapFS{
			"model-settings.json": {Data: []byte(`{"implementation": "mlserver_xgboost.XGBoostModel", "parameters": {"uri": "file:model.bst"}}`)},
		}, LayoutMLServer, "model.bst", true, false},
		{"remote", fstest.MapFS{
			"model-settings.json": {Data: []byte(`{"implementation": "mlserver_mlflow.MLflowRuntime", "parameters": {"uri": "s3://bucket/model"}}`)},
		}, LayoutMLServer, "", false, true},
		{"up", fstest.MapFS{
			"model-settings.json": {Data: []byte(`{"implementation": "a.B", "parameters": {"uri": "../shared/model.pkl"}}`)},
		}, LayoutMLServer, "", false, true},
		{"onnx", fstest.MapFS{
			"model-settings.json": {Data: []byte(`{"implementation": "runtime.ONNXModel", "parameters": {"uri": "model.onnx"}}`)},
			"model.onnx":          {Data: []byte("x")},
		}, LayoutONNX, "model.onnx", false, false},
	}
	for _, c := range cases {
		m, err := LoadFS(c.fsys, "models/m")
		if err != nil {
			t.Fatal(err)
		}
		ms := m.MLServer
		if m.Layout != c.layout || ms == nil || ms.Settings == nil || ms.URIPath != c.uri || ms.URIMissing != c.missing || ms.URIOutside != c.outside {
			t.Errorf("%s: layout %s, mlserver %+v", c.name, m.Layout, ms)
		}
		if !IsModelDirFS(c.fsys) {
			t.Errorf("%s: not a model dir", c.name)
		}
	}
	m, err := LoadFS(fstest.MapFS{"model-settings.json": {Data: []byte("{\n  \"name\": \"iris\",\n}\n")}}, "models/iris")
	if err != nil {
		t.Fatal(err)
	}
	if ms := m.MLServer; ms == nil || ms.SettingsError == "" || ms.SettingsLine != 3 {
		t.Errorf("invalid JSON: %+v", ms)
	}
}
