package engine

import (
	"slices"
	"strings"

	"github.com/modellint/modellint/internal/redact"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/manifest"
)

// The values no output may print are gathered while the inputs load,
// before any rule runs, and hidden where a rule's diagnostic becomes a
// finding (reporter.report) and, for what the engine writes itself, at the
// end of the run (redactResult): every format prints the same result.

// addHelmSetSecrets records the --helm-set values: a job passes tokens to a
// chart that way, and a value may reach a rendered field a message quotes.
func addHelmSetSecrets(secrets *redact.Set, assignments []string) {
	for _, assignment := range assignments {
		_, value, ok := strings.Cut(assignment, "=")
		if !ok {
			continue
		}
		secrets.Add(value)
		// a=1,b=2 sets two values, a={x,y} a list.
		for _, part := range strings.Split(value, ",") {
			if _, after, ok := strings.Cut(part, "="); ok {
				part = after
			}
			secrets.Add(strings.Trim(part, "{}"))
		}
	}
}

// addObjectSecrets records the values of the Secret objects read or
// rendered: data (and what it decodes to) and stringData.
func addObjectSecrets(secrets *redact.Set, set *manifest.Set) {
	for _, object := range set.OfKinds("Secret") {
		addValues(secrets, secretValues(object))
	}
}

// addValues records values of Secrets.
func addValues(secrets *redact.Set, values []secretValue) {
	for _, value := range values {
		if value.encoded {
			secrets.AddEncoded(value.text)
		} else {
			secrets.Add(value.text)
		}
	}
}

// secretValues are the values of a Secret object, each its own copy.
func secretValues(object *manifest.Object) []secretValue {
	var values []secretValue
	for _, field := range []string{"data", "stringData"} {
		data, _ := object.Lookup(field)
		for _, text := range stringValues(data) {
			values = append(values, secretValue{text: strings.Clone(text), encoded: field == "data"})
		}
	}
	return values
}

func stringValues(field any) []string {
	fields, _ := field.(map[string]any)
	var values []string
	for _, value := range fields {
		if text, ok := value.(string); ok {
			values = append(values, text)
		}
	}
	return values
}

// addImageSecrets records the env and label values of the images read
// that MDL309 calls secret: the start-path rules expand env values into
// the paths and modules their messages name.
func addImageSecrets(secrets *redact.Set, targets []*lint.Target) {
	seen := map[*image.Image]bool{}
	for _, target := range targets {
		for _, img := range target.Images {
			if img == nil || img.Config == nil || seen[img] {
				continue
			}
			seen[img] = true
			for _, entry := range img.Config.Config.Env {
				if name, value, _ := strings.Cut(entry, "="); redact.LooksSecret(name, value) {
					secrets.Add(value)
				}
			}
			for name, value := range img.Config.Config.Labels {
				if redact.LooksSecret(name, value) {
					secrets.Add(value)
				}
			}
		}
	}
}

// redactFinding hides the secrets in what a finding prints: its message,
// related messages, image location and fix, but the text of the fix's
// edits, which --fix writes into the file as it is (the reports hide it).
func redactFinding(finding *lint.Finding, secrets *redact.Set) {
	finding.Message = secrets.String(finding.Message)
	for i := range finding.Related {
		finding.Related[i].Message = secrets.String(finding.Related[i].Message)
	}
	if where := finding.Image; where != nil {
		where.Reference, where.Layer, where.Path = secrets.String(where.Reference), secrets.String(where.Layer), secrets.String(where.Path)
	}
	if fix := finding.Fix; fix != nil {
		fix.Description, fix.Suggestion = secrets.String(fix.Description), secrets.String(fix.Suggestion)
		cloned := false
		for i, edit := range fix.Edits {
			review := secrets.String(edit.Review.Text)
			if review == edit.Review.Text {
				continue
			}
			if !cloned {
				fix.Edits, cloned = slices.Clone(fix.Edits), true // not the rule's own
			}
			fix.Edits[i].Review.Text = review
		}
	}
}

// redactResult hides the secrets in what the engine wrote itself: notes,
// input errors, links, unused flags and the reasons of skipped checks.
func redactResult(result *lint.Result, secrets *redact.Set) {
	for i := range result.Notes {
		result.Notes[i] = secrets.String(result.Notes[i])
	}
	// The links of a run linted in batches may be made a part at a time,
	// each as the reports read it (lint.Result.SetParts).
	result.ChangeLinks(func(links []string) []string {
		for i := range links {
			links[i] = secrets.String(links[i])
		}
		return links
	})
	for i := range result.Unused {
		result.Unused[i] = secrets.String(result.Unused[i])
	}
	for i := range result.InputErrors {
		result.InputErrors[i].Message = secrets.String(result.InputErrors[i].Message)
	}
	// A run of 10,000 workloads lists ~250,000 skipped checks sharing a
	// few hundred reasons.
	reasons := map[string]string{}
	for i := range result.Evaluations {
		reason := result.Evaluations[i].Reason
		if reason == "" {
			continue
		}
		hidden, seen := reasons[reason]
		if !seen {
			hidden = secrets.String(reason)
			reasons[reason] = hidden
		}
		result.Evaluations[i].Reason = hidden
	}
}

// redactedError is an error of the run whose text has the secrets hidden;
// errors.As still finds the error it wraps.
type redactedError struct {
	err     error
	secrets *redact.Set
}

func (e redactedError) Error() string { return e.secrets.String(e.err.Error()) }
func (e redactedError) Unwrap() error { return e.err }
