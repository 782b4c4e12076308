package compose

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint/manifest"
)

// placeholder is a field of the InferenceService's metadata in a runtime's
// container: {{.Name}}, {{.Namespace}}, {{.Labels.KEY}},
// {{.Annotations.KEY}}, {{index .Labels "KEY"}}.
var placeholder = lazyregexp.New(`\{\{\s*(?:\.(Name|Namespace)|\.(Labels|Annotations)\.([A-Za-z0-9_]+)|index\s+\.(Labels|Annotations)\s+"([^"]*)")\s*\}\}`)

// fillPlaceholders fills the placeholders of the container's command, args
// and env values from the InferenceService's metadata. KServe runs the
// container's JSON as a Go template over the metadata
// (utils.ReplacePlaceholders); a template of a repository's files is not
// run here (its ranges can multiply without bound), only the fields a
// runtime's args name are filled in. Others stay as written.
func fillPlaceholders(c *corev1.Container, object *manifest.Object) {
	var labels, annotations map[string]string
	for _, field := range []struct {
		key  string
		into *map[string]string
	}{{"labels", &labels}, {"annotations", &annotations}} {
		_ = object.Decode(field.into, "metadata", field.key)
	}
	fill := func(text string) string {
		return placeholder.ReplaceAllStringFunc(text, func(match string) string {
			groups := placeholder.FindStringSubmatch(match)
			switch {
			case groups[1] == "Name":
				return object.Name
			case groups[1] == "Namespace":
				return object.Namespace
			case groups[2] == "Labels":
				return labels[groups[3]]
			case groups[2] == "Annotations":
				return annotations[groups[3]]
			case groups[4] == "Labels":
				return labels[groups[5]]
			default:
				return annotations[groups[5]]
			}
		})
	}
	c.Command = fillAll(c.Command, fill)
	c.Args = fillAll(c.Args, fill)
	env := make([]corev1.EnvVar, len(c.Env))
	for i, variable := range c.Env {
		variable.Value = fill(variable.Value)
		env[i] = variable
	}
	if c.Env != nil {
		c.Env = env
	}
}

func fillAll(words []string, fill func(string) string) []string {
	if words == nil {
		return nil
	}
	filled := make([]string, len(words))
	for i, word := range words {
		filled[i] = fill(word)
	}
	return filled
}
