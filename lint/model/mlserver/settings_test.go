package mlserver

import (
	"errors"
	"testing"

	"github.com/modellint/modellint/lint/model/modelfile"
)

func TestParse(t *testing.T) {
	s, err := Parse([]byte(`{
  "name": "iris",
  "implementation": "mlserver_sklearn.SKLearnModel",
  "parameters": {
    "uri": "./model.joblib",
    "version": "v0.1.0"
  }
}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "iris" || s.Implementation != "mlserver_sklearn.SKLearnModel" || s.ImplementationLine != 3 || !s.HasImplementation ||
		s.URI != "./model.joblib" || s.URILine != 5 || !s.HasURI || s.Version != "v0.1.0" || len(s.Problems) != 0 {
		t.Errorf("settings = %+v", s)
	}
}

func TestParseProblems(t *testing.T) {
	s, err := Parse([]byte(`{"name": "m", "implementation": 1, "parameters": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.HasImplementation || len(s.Problems) != 2 {
		t.Errorf("settings = %+v", s)
	}
	s, err = Parse([]byte(`{"implementation": "a.B", "parameters": {"version": 2}}`))
	if err != nil || len(s.Problems) != 1 || s.Problems[0].Reason != "parameters.version is a number, not a string" {
		t.Errorf("a numeric version: %+v, %v", s, err)
	}
	s, err = Parse([]byte(`{"MLSERVER_MODEL_IMPLEMENTATION": "models.Custom", "parameters": {"environment_tarball": "./env.tar.gz"}}`))
	if err != nil || s.Implementation != "models.Custom" || s.EnvironmentTarball != "./env.tar.gz" || s.HasURI {
		t.Errorf("alias: %+v, %v", s, err)
	}
	if _, err := Parse([]byte("{\"name\": \"m\",\n}")); !errors.Is(err, modelfile.ErrInvalid) {
		t.Errorf("trailing comma: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"name":"iris","implementation":"mlserver_sklearn.SKLearnModel","parameters":{"uri":"./model.joblib"}}`))
	f.Add([]byte(`{"parameters": {"uri": 1, "version": 2}, "implementation": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err == nil && s == nil {
			t.Fatal("no settings and no error")
		}
		if err != nil && !errors.Is(err, modelfile.ErrInvalid) {
			t.Fatalf("an error that is not ErrInvalid: %v", err)
		}
	})
}
