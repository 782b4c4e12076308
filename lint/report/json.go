package report

import (
	"bufio"
	"bytes"
	stdjson "encoding/json"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/modellint/modellint/lint"
)

// jsonVersion is the version of the JSON format documented in
// docs/json-format.md. It changes only when a field is removed or changes
// meaning; new fields may appear without a change.
const jsonVersion = 1

// The JSON format has its own types, so that a change in the engine's types
// cannot change the documented format by accident.
type jsonReport struct {
	Version     int             `json:"version"`
	Tool        jsonTool        `json:"tool"`
	Summary     jsonSummary     `json:"summary"`
	Files       []string        `json:"files"`
	Findings    jsonFindings    `json:"findings"`
	Evaluations jsonEvaluations `json:"evaluations"`
	Notes       []string        `json:"notes"`
	Links       []string        `json:"links"`
	// InputErrors are inputs that could not be read; the run exits 2.
	InputErrors []jsonInputError `json:"inputErrors,omitempty"`
	// Unused are --image/--model flags nothing used.
	Unused []string `json:"unused,omitempty"`
}

type jsonInputError struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

type jsonTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type jsonSummary struct {
	Error      int `json:"error"`
	Warning    int `json:"warning"`
	Info       int `json:"info"`
	Suppressed int `json:"suppressed"`
	Skipped    int `json:"skipped"`
	// Fixable and UnsafeFixable are the counts the table's last line
	// gives: what --fix fixes, and how many more --unsafe-fixes does.
	Fixable       int `json:"fixable"`
	UnsafeFixable int `json:"unsafeFixable"`
}

type jsonFinding struct {
	Rule        string           `json:"rule"`
	Name        string           `json:"name"`
	Severity    string           `json:"severity"`
	Message     string           `json:"message"`
	Location    jsonLocation     `json:"location"`
	Target      string           `json:"target"`
	Suppression *jsonSuppression `json:"suppression,omitempty"`
	Related     []jsonRelated    `json:"related,omitempty"`
	// Fix is what --fix would change, or a suggestion to make by hand.
	Fix *lint.Fix `json:"fix,omitempty"`
}

// jsonRelated is another line a finding names: the template line that
// included the helper the finding is placed in.
type jsonRelated struct {
	jsonLocation
	Message string `json:"message"`
}

type jsonLocation struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Path   string `json:"path,omitempty"`
}

type jsonSuppression struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason,omitempty"`
}

// jsonFindings are the run's findings, each converted as it is written:
// a large run makes them a part at a time (lint.Result.FindingParts).
// A report read back (docs/json-format.md's example is checked so) holds
// them converted, in read.
type jsonFindings struct {
	result *lint.Result
	read   []jsonFinding
}

// MarshalJSONTo writes the findings as an array of jsonFinding, with the
// options the report is written with.
func (findings jsonFindings) MarshalJSONTo(encoder *jsontext.Encoder) error {
	if err := encoder.WriteToken(jsontext.BeginArray); err != nil {
		return err
	}
	for _, finding := range findings.read {
		if err := jsonv2.MarshalEncode(encoder, finding); err != nil {
			return err
		}
	}
	if findings.result != nil {
		for finding := range findings.result.EachFinding() {
			if err := jsonv2.MarshalEncode(encoder, newJSONFinding(finding)); err != nil {
				return err
			}
		}
	}
	return encoder.WriteToken(jsontext.EndArray)
}

// UnmarshalJSON reads the findings of a report, rejecting unknown fields.
func (findings *jsonFindings) UnmarshalJSON(data []byte) error {
	decoder := stdjson.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	return decoder.Decode(&findings.read)
}

// newJSONFinding is finding as the JSON format writes it.
func newJSONFinding(finding lint.Finding) jsonFinding {
	converted := jsonFinding{
		Rule:     finding.RuleID,
		Name:     finding.RuleName,
		Severity: finding.Severity.String(),
		Message:  finding.Message,
		Location: jsonLocation{
			File: finding.Location.File, Line: finding.Location.Line,
			Column: finding.Location.Column, Path: finding.Location.Path,
		},
		Target: finding.Target,
		Fix:    finding.Fix,
	}
	for _, related := range finding.Related {
		converted.Related = append(converted.Related, jsonRelated{
			jsonLocation: jsonLocation{File: related.File, Line: related.Line, Column: related.Column, Path: related.Path},
			Message:      related.Message,
		})
	}
	if finding.Suppression != nil {
		converted.Suppression = &jsonSuppression{Kind: finding.Suppression.Kind, Reason: finding.Suppression.Reason}
	}
	return converted
}

// jsonEvaluations are the run's evaluations, each converted as it is
// written: a large run has hundreds of thousands, too many to hold a
// converted copy of while the report is written.
type jsonEvaluations []lint.Evaluation

// MarshalJSONTo writes the evaluations as an array of jsonEvaluation, with
// the options the report is written with.
func (evaluations jsonEvaluations) MarshalJSONTo(encoder *jsontext.Encoder) error {
	if err := encoder.WriteToken(jsontext.BeginArray); err != nil {
		return err
	}
	for _, evaluation := range evaluations {
		if err := jsonv2.MarshalEncode(encoder, jsonEvaluation{
			Rule: evaluation.RuleID, Target: evaluation.Target, File: evaluation.File,
			Line: evaluation.Line, Status: string(evaluation.Status), Reason: evaluation.Reason,
		}); err != nil {
			return err
		}
	}
	return encoder.WriteToken(jsontext.EndArray)
}

type jsonEvaluation struct {
	Rule   string `json:"rule"`
	Target string `json:"target"`
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

func writeJSON(w io.Writer, result *lint.Result, options Options) error {
	c := countResult(result)
	report := jsonReport{
		Version: jsonVersion,
		Tool:    jsonTool{Name: toolName, Version: options.ToolVersion},
		Summary: jsonSummary{
			Error: c.errors, Warning: c.warnings, Info: c.infos,
			Suppressed: c.suppressed, Skipped: c.skipped,
			Fixable: c.fixable, UnsafeFixable: c.unsafeFixable,
		},
		Files:       append([]string{}, result.Files...),
		Findings:    jsonFindings{result: result},
		Evaluations: result.Evaluations,
		Notes:       append([]string{}, result.Notes...),
		Links:       []string{},
		Unused:      result.Unused,
	}
	for links := range result.LinkParts() {
		report.Links = append(report.Links, links...)
	}
	for _, problem := range result.InputErrors {
		report.InputErrors = append(report.InputErrors, jsonInputError{File: problem.File, Line: problem.Line, Message: problem.Message})
	}
	return writeIndentedJSON(w, report)
}

// writeIndentedJSON writes value with two-space indentation and a trailing
// newline, without escaping <, > and & (reports are not embedded in HTML).
func writeIndentedJSON(w io.Writer, value any) error {
	// encoding/json's Encoder encodes the whole value, then indents a copy
	// of it, holding a large report twice. This encoder writes as it goes,
	// with encoding/json's semantics and layout.
	output := bufio.NewWriter(w)
	if err := jsonv2.MarshalWrite(output, value, jsonv1.DefaultOptionsV1(),
		jsontext.EscapeForHTML(false), jsontext.WithIndent("  ")); err != nil {
		return err
	}
	output.WriteByte('\n')
	return output.Flush()
}
