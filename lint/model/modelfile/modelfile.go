// Package modelfile holds the one error every model-format reader returns
// for content that is not valid in its format, as opposed to a read that
// failed: callers tell the two apart with errors.Is(err, ErrInvalid), and
// quote Reason(err) after naming the file and its format themselves.
package modelfile

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is matched by every Error.
var ErrInvalid = errors.New("invalid model file")

// Error is content that is not valid in Format. Its text starts with
// Format ("invalid GGUF file", "not a valid ONNX model").
type Error struct {
	Format string
	err    error // the whole message, wrapping what the reason wraps
}

func (e *Error) Error() string        { return e.err.Error() }
func (e *Error) Unwrap() error        { return e.err }
func (e *Error) Is(target error) bool { return target == ErrInvalid }

// Invalidf is content not valid in format, for the reason formatted as
// fmt.Errorf formats it (%w wraps).
func Invalidf(format, reason string, args ...any) error {
	return &Error{Format: format, err: fmt.Errorf(format+": "+reason, args...)}
}

// InvalidAt is Invalidf at a byte offset of the file; Reason keeps the format's
// name and the offset, which the reason alone does not make clear.
func InvalidAt(format string, offset int64, reason string, args ...any) error {
	return &Error{Format: format, err: fmt.Errorf(fmt.Sprintf("%s at byte %d: ", format, offset)+reason, args...)}
}

// Reason is err's text without its format's name in front: what a finding
// that already names the format quotes.
func Reason(err error) string {
	var invalid *Error
	if errors.As(err, &invalid) {
		return strings.TrimPrefix(err.Error(), invalid.Format+": ")
	}
	return err.Error()
}
