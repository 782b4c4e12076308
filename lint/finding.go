package lint

import (
	"fmt"
	"strings"

	"github.com/modellint/modellint/internal/message"
)

// Severity orders findings; the zero value is Info so that an unset severity
// never fails a build by accident.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	default:
		return "info"
	}
}

// ParseSeverity accepts the names users write in flags and config files.
func ParseSeverity(name string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "error":
		return Error, nil
	case "warning", "warn":
		return Warning, nil
	case "info", "note":
		return Info, nil
	}
	return Info, fmt.Errorf("unknown severity %s (want error, warning or info)", message.Quote(name))
}

// MarshalText lets severities appear by name in JSON and YAML.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a severity name.
func (s *Severity) UnmarshalText(text []byte) error {
	parsed, err := ParseSeverity(string(text))
	if err != nil {
		return err
	}
	*s = parsed
	return nil
}

// Location is where a finding points. Line and Column are 1-based; zero means
// unknown (a whole-file finding). Path is the field path inside the document,
// e.g. spec.template.spec.containers[0].resources.limits.memory.
type Location struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Path   string `json:"path,omitempty"`
}

func (l Location) String() string {
	switch {
	case l.Line > 0 && l.Column > 0:
		return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column)
	case l.Line > 0:
		return fmt.Sprintf("%s:%d", l.File, l.Line)
	}
	return l.File
}

// How a finding was suppressed: in the manifest (an annotation or an inline
// comment) or outside it (the config file).
const (
	SuppressedByAnnotation = "annotation"
	SuppressedByComment    = "inline"
	SuppressedByConfig     = "config"
)

// Suppression records why a finding is not counted. Kind is one of the
// Suppressed* constants.
type Suppression struct {
	Kind   string `json:"kind"`
	Reason string `json:"reason,omitempty"`
}

// Finding is one problem a rule reported.
type Finding struct {
	RuleID   string   `json:"rule"`
	RuleName string   `json:"name"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Location Location `json:"location"`
	// Target names the object the rule evaluated, e.g. Deployment/default/tf-serving.
	Target      string       `json:"target"`
	Suppression *Suppression `json:"suppression,omitempty"`
	// Image locates an image finding inside the image, besides the
	// manifest line a user edits.
	Image *ImageLocation `json:"image,omitempty"`
	// Related are other lines that explain the location: for a field a Helm
	// helper wrote, the template line that included the helper.
	Related []RelatedLocation `json:"related,omitempty"`
	// Fix is the edit that resolves the finding, when the rule has one.
	Fix *Fix `json:"fix,omitempty"`
	// NeverReady says the finding keeps the pod from ever becoming Ready
	// (Diagnostic.NeverReady); the message says so in words.
	NeverReady bool `json:"-"`
}

// RelatedLocation is a line a finding names besides its own, with what it is.
type RelatedLocation struct {
	Location
	Message string `json:"message"`
}

// IncludedFrom is the message of a related location that called a helper.
const IncludedFrom = "the template line that includes the helper"

// ImageLocation is where in an image a finding is: the reference, the layer
// that wrote the path (its diff ID), and the in-image path.
type ImageLocation struct {
	Reference string `json:"reference"`
	Layer     string `json:"layer,omitempty"`
	Path      string `json:"path,omitempty"`
}

// Suppressed reports whether the finding was silenced by the user.
func (f Finding) Suppressed() bool { return f.Suppression != nil }
