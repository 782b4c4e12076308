// Package mlserver reads Seldon MLServer's model-settings.json: the
// model's name, the runtime class it is served by (implementation) and the
// parameters that say where its artifact is, each with its line.
package mlserver

import (
	"fmt"

	"github.com/modellint/modellint/lint/model/jsonpos"
	"github.com/modellint/modellint/lint/model/modelfile"
)

// FormatName names the format in errors.
const FormatName = "MLServer model settings"

// SettingsFile is the file MLServer's repository finds models by.
const SettingsFile = "model-settings.json"

// MaxSettings bounds the file read; real ones are under a KiB.
const MaxSettings = jsonpos.MaxSize

// Settings is what model-settings.json says of the model. Python's json
// keeps the last of duplicate keys, and so does Parse.
type Settings struct {
	Name     string
	NameLine int
	// Implementation is the runtime's import path as written
	// ("mlserver_sklearn.SKLearnModel"); HasImplementation says it is set
	// (under "implementation" or its alias MLSERVER_MODEL_IMPLEMENTATION).
	Implementation     string
	HasImplementation  bool
	ImplementationLine int
	// URI is parameters.uri, where the runtime loads the artifact from;
	// HasURI says it is set (else MLServer uses the model's dir).
	URI     string
	HasURI  bool
	URILine int
	// Version is parameters.version.
	Version string
	// EnvironmentPath and EnvironmentTarball are the parameters that load
	// the model in another Python environment than the server's.
	EnvironmentPath, EnvironmentTarball string
	// Line is the document's first line, where a finding about a missing
	// field points.
	Line int
	// Problems are fields of a type pydantic refuses: MLServer then logs
	// "Failed load model settings at …" and skips the model.
	Problems []Problem
}

// Problem is a field MLServer's validation refuses, at its line.
type Problem struct {
	Line   int
	Reason string
}

// Parse reads a model-settings.json. Content that is not JSON, or not an
// object, is a modelfile.ErrInvalid error.
func Parse(data []byte) (*Settings, error) {
	doc, err := jsonpos.Parse(data)
	if err != nil {
		return nil, modelfile.Invalidf(FormatName, "not valid JSON: %w", err)
	}
	if doc.Kind != jsonpos.Object {
		return nil, modelfile.Invalidf(FormatName, "line %d: the document is %s, not an object", doc.Line, doc.Kind)
	}
	s := &Settings{Line: doc.Line}
	if name := doc.GetLast("name"); name != nil {
		s.Name, s.NameLine = s.text(name, "name"), name.Line
	}
	implementation := doc.GetLast("implementation")
	if implementation == nil {
		implementation = doc.GetLast("MLSERVER_MODEL_IMPLEMENTATION")
	}
	if implementation != nil && implementation.Kind != jsonpos.Null {
		s.Implementation, s.ImplementationLine = s.text(implementation, "implementation"), implementation.Line
		s.HasImplementation = implementation.Kind == jsonpos.String
	}
	parameters := doc.GetLast("parameters")
	switch {
	case parameters == nil || parameters.Kind == jsonpos.Null:
	case parameters.Kind != jsonpos.Object:
		s.problem(parameters.Line, "parameters is %s, not an object", parameters.Kind)
	default:
		if uri := parameters.GetLast("uri"); uri != nil && uri.Kind != jsonpos.Null {
			s.URI, s.URILine = s.text(uri, "parameters.uri"), uri.Line
			s.HasURI = uri.Kind == jsonpos.String
		}
		if version := parameters.GetLast("version"); version != nil && version.Kind != jsonpos.Null {
			// pydantic does not turn a number into the str the field is.
			s.Version = s.text(version, "parameters.version")
		}
		s.EnvironmentPath = parameters.GetLast("environment_path").Literal()
		s.EnvironmentTarball = parameters.GetLast("environment_tarball").Literal()
	}
	return s, nil
}

// text is a string field's value, recording a problem for another type.
func (s *Settings) text(v *jsonpos.Value, field string) string {
	if v.Kind != jsonpos.String {
		s.problem(v.Line, "%s is %s, not a string", field, v.Kind)
		return ""
	}
	return v.Text
}

func (s *Settings) problem(line int, format string, args ...any) {
	s.Problems = append(s.Problems, Problem{Line: line, Reason: fmt.Sprintf(format, args...)})
}
