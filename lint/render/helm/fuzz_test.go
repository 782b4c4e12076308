package helm

import (
	"strings"
	"testing"
)

// FuzzTemplateLines checks that no template source makes the line tracing
// panic: the marks, each line's own text, the values actions and helper
// calls, and reading the marks back off a render. Seeds live in
// testdata/fuzz/FuzzTemplateLines.
func FuzzTemplateLines(f *testing.F) {
	f.Add("{{- range $spec := .Values.models }}\n---\nspec:\n  {{- include \"x\" $spec | nindent 2 }}\n{{- end }}\n")
	f.Add("{{- define \"x\" -}}\na: {{ .a }}\n{{- end }}\n{{ template \"x\" . }}\n")
	f.Add("x: {{ tpl (include \"y\" .) . }}\n{{/* a comment */}}\ny: `{{ \"}}\" }}`\n")
	f.Fuzz(func(t *testing.T, source string) {
		marked := markTemplate(source, 0)
		if stripped := markPattern.ReplaceAllLiteralString(marked, ""); strings.Count(stripped, "\n") != strings.Count(source, "\n") {
			t.Errorf("marks changed the number of lines:\n%q\n%q", source, marked)
		}
		lines := literalLines(source)
		valueActions("fuzz", source)
		for _, line := range helperCalls("fuzz", source) {
			if line < 1 || line > len(lines)-1 {
				t.Errorf("helper call on line %d of a %d-line template", line, len(lines)-1)
			}
		}
		readMarks(marked, markPattern.ReplaceAllLiteralString(marked, ""), func(int, int) bool { return true })
	})
}
