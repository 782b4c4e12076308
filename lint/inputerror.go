package lint

import (
	"strconv"
)

// InputError is an input that could not be read or parsed. The run still
// lints everything else, every report lists it, and the run exits 2.
type InputError struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

func (e InputError) String() string {
	switch {
	case e.Column > 0:
		return e.File + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column) + ": " + e.Message
	case e.Line > 0:
		return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Message
	}
	return e.File + ": " + e.Message
}
