// Package ovms reads OpenVINO Model Server's config.json (the file its
// --config_path names): the models of model_config_list and the graphs of
// mediapipe_config_list, each with its name, base_path and line, and the
// problems that make OVMS refuse the file.
package ovms

import (
	"fmt"
	"strconv"

	"github.com/modellint/modellint/lint/model/jsonpos"
	"github.com/modellint/modellint/lint/model/modelfile"
)

// FormatName names the format in errors.
const FormatName = "OVMS config"

// ConfigFile is the name OVMS's examples and demos give the file.
const ConfigFile = "config.json"

// MaxConfig bounds the config file read; real ones are a few KiB.
const MaxConfig = jsonpos.MaxSize

// Config is what a config.json says of the models OVMS serves.
type Config struct {
	// ModelList says model_config_list is present and an array, which
	// OVMS's schema requires; ModelListLine is its line (that of the
	// document when it is absent).
	ModelList     bool
	ModelListLine int
	// Models are model_config_list's entries, Graphs the
	// mediapipe_config_list's.
	Models []Entry
	Graphs []Entry
	// Problems are what the schema refuses, besides a missing list: OVMS
	// then fails to start ("Configuration file is not in valid
	// configuration format").
	Problems []Problem
}

// Entry is one model (or graph) of the config.
type Entry struct {
	Name string
	// BasePath is base_path as written; HasBasePath says it is written
	// (without it OVMS reads the model from the config file's dir).
	BasePath    string
	HasBasePath bool
	// Line is the entry's line, BasePathLine base_path's (Line without it).
	Line, BasePathLine int
	// Policy is model_version_policy; OVMS's default serves the latest
	// version.
	Policy VersionPolicy
}

// VersionPolicy says which versions OVMS serves: Kind "latest" (the
// NumVersions highest), "all", or "specific" (Versions).
type VersionPolicy struct {
	Kind        string
	NumVersions int64
	Versions    []int64
}

// Problem is a part of the file OVMS's schema refuses, at its line.
type Problem struct {
	Line   int
	Reason string
}

// Parse reads a config.json. Content that is not JSON, or not an object,
// is a modelfile.ErrInvalid error; a document OVMS's schema refuses is a
// Config with ModelList false or Problems.
func Parse(data []byte) (*Config, error) {
	doc, err := jsonpos.Parse(data)
	if err != nil {
		return nil, modelfile.Invalidf(FormatName, "not valid JSON: %w", err)
	}
	if doc.Kind != jsonpos.Object {
		return nil, modelfile.Invalidf(FormatName, "line %d: the document is %s, not an object", doc.Line, doc.Kind)
	}
	config := &Config{ModelListLine: doc.Line}
	if list := doc.Get("model_config_list"); list != nil {
		config.ModelListLine = list.Line
		if list.Kind == jsonpos.Array {
			config.ModelList = true
			config.Models = config.entries(list, "model_config_list", true)
		} else {
			config.problem(list.Line, "model_config_list is %s, not an array", list.Kind)
		}
	}
	if list := doc.Get("mediapipe_config_list"); list != nil {
		if list.Kind == jsonpos.Array {
			config.Graphs = config.entries(list, "mediapipe_config_list", false)
		} else {
			config.problem(list.Line, "mediapipe_config_list is %s, not an array", list.Kind)
		}
	}
	return config, nil
}

func (c *Config) problem(line int, format string, args ...any) {
	c.Problems = append(c.Problems, Problem{Line: line, Reason: fmt.Sprintf(format, args...)})
}

// entries reads a list's entries: {"config": {...}} for models, the
// object itself for graphs.
func (c *Config) entries(list *jsonpos.Value, field string, wrapped bool) []Entry {
	var entries []Entry
	for i, item := range list.Items {
		where := fmt.Sprintf("%s[%d]", field, i)
		object := item
		if wrapped {
			if item.Kind != jsonpos.Object {
				c.problem(item.Line, "%s is %s, not an object with a config", where, item.Kind)
				continue
			}
			object = item.Get("config")
			if object == nil {
				c.problem(item.Line, "%s has no config object", where)
				continue
			}
			where += ".config"
		}
		if object.Kind != jsonpos.Object {
			c.problem(object.Line, "%s is %s, not an object", where, object.Kind)
			continue
		}
		entry := Entry{Line: object.Line, BasePathLine: object.Line, Policy: VersionPolicy{Kind: "latest", NumVersions: 1}}
		name := object.Get("name")
		switch {
		case name == nil:
			c.problem(object.Line, "%s has no name", where)
			continue
		case name.Kind != jsonpos.String:
			c.problem(name.Line, "%s.name is %s, not a string", where, name.Kind)
			continue
		}
		entry.Name = name.Text
		if base := object.Get("base_path"); base != nil {
			if base.Kind != jsonpos.String {
				c.problem(base.Line, "%s.base_path is %s, not a string", where, base.Kind)
				continue
			}
			entry.BasePath, entry.HasBasePath, entry.BasePathLine = base.Text, true, base.Line
		}
		if policy := object.Get("model_version_policy"); wrapped && policy != nil {
			entry.Policy = readPolicy(policy, entry.Policy)
		}
		entries = append(entries, entry)
	}
	return entries
}

// readPolicy reads model_version_policy; a policy the schema refuses
// leaves the default (the config then fails as a whole anyway).
func readPolicy(policy *jsonpos.Value, fallback VersionPolicy) VersionPolicy {
	if all := policy.Get("all"); all != nil && all.Kind == jsonpos.Object {
		return VersionPolicy{Kind: "all"}
	}
	if specific := policy.Get("specific"); specific != nil {
		read := VersionPolicy{Kind: "specific"}
		for _, item := range specific.Get("versions").List() {
			if n, err := strconv.ParseInt(item.Text, 10, 64); item.Kind == jsonpos.Number && err == nil {
				read.Versions = append(read.Versions, n)
			}
		}
		return read
	}
	if latest := policy.Get("latest"); latest != nil {
		if n, err := strconv.ParseInt(latest.Get("num_versions").Literal(), 10, 64); err == nil && n > 0 {
			return VersionPolicy{Kind: "latest", NumVersions: n}
		}
	}
	return fallback
}

// LooksLikeConfig reports whether a document is meant as an OVMS config
// (an object with model_config_list or mediapipe_config_list), however
// broken: a Hugging Face config.json has neither.
func LooksLikeConfig(data []byte) bool {
	doc, err := jsonpos.Parse(data)
	if err != nil {
		return false
	}
	return doc.Get("model_config_list") != nil || doc.Get("mediapipe_config_list") != nil
}
