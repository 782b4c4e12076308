package lint

import "github.com/modellint/modellint/lint/manifest"

// Fixes: what a finding already says to do, as edits of the file the user
// wrote (see manifest.Edit), applied by --fix and offered in the reports.

// FixSafety says whether a rule's fix can change behaviour beyond its finding.
type FixSafety string

const (
	// FixNone: the rule offers no fix.
	FixNone FixSafety = ""
	// FixSafe fixes do what the finding asks and nothing else: raising a
	// limit, adding a startupProbe, pinning the digest that was read.
	FixSafe FixSafety = "safe"
	// FixUnsafe fixes change how the workload behaves (a probe path, a
	// strategy): --fix applies them only with --unsafe-fixes.
	FixUnsafe FixSafety = "unsafe"
)

// Fix is one finding's fix. Without edits it is a suggestion to make by
// hand: the field is in rendered output, flow style or not written at all.
type Fix struct {
	Description string          `json:"description"`
	Safety      FixSafety       `json:"safety"`
	Edits       []manifest.Edit `json:"edits,omitempty"`
	// Moves rename files of a model dir (into a version dir); never files
	// inside an image.
	Moves []Move `json:"moves,omitempty"`
	// Suggestion is the YAML the fix writes, for the reports (a GitHub
	// suggestion block, the job summary) and for fixes without edits.
	Suggestion string `json:"suggestion,omitempty"`

	// countOnly marks a fix kept only to be counted: a run whose reports
	// show no fix keeps its findings' fixes as one of the two shared
	// FixableOnly values, so the table still says what --fix would fix.
	countOnly bool
}

// fixableOnly are the fixes FixableOnly returns, one per safety.
var fixableOnly = map[FixSafety]*Fix{
	FixSafe:   {Safety: FixSafe, countOnly: true},
	FixUnsafe: {Safety: FixUnsafe, countOnly: true},
}

// FixableOnly stands for an applicable fix of the given safety whose edits
// and moves are not kept: Applicable says what --fix would do with it,
// and nothing else is known. The value is shared: never modify it.
func FixableOnly(safety FixSafety) *Fix {
	return fixableOnly[safety]
}

// Move renames a file or directory.
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Applicable reports whether --fix may apply the fix.
func (f *Fix) Applicable(unsafe bool) bool {
	return f != nil && (f.countOnly || len(f.Edits)+len(f.Moves) > 0) && (f.Safety == FixSafe || (unsafe && f.Safety == FixUnsafe))
}

// EditFix is a fix made of edits of the file the user wrote; without
// edits (the rule could not make them) it is a suggestion.
func EditFix(description, suggestion string, edits ...manifest.Edit) *Fix {
	return &Fix{Description: description, Edits: edits, Suggestion: suggestion}
}

// MoveFix is a fix that renames files of the model dir the rule lints; the
// engine drops the moves of a model baked into an image, not the user's to move.
func MoveFix(description string, moves ...Move) *Fix {
	return &Fix{Description: description, Moves: moves}
}
