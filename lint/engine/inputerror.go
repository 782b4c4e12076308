package engine

import (
	"strconv"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
)

// newInputError makes an error about file one line, with the line number
// the loaders put after the file name ("file:12: invalid YAML: …") taken
// out into Line.
func newInputError(file string, err error) lint.InputError {
	message := oneLine(err.Error())
	if rest, ok := strings.CutPrefix(message, file+":"); ok {
		if m := lineFirst.FindStringSubmatch(rest); m != nil {
			line, _ := strconv.Atoi(m[1])
			column, _ := strconv.Atoi(m[2])
			return lint.InputError{File: file, Line: line, Column: column, Message: m[3]}
		}
		message = strings.TrimPrefix(rest, " ")
	}
	return lint.InputError{File: file, Message: message}
}

// lineFirst is the rest of "file:12: msg" or "file:12:5: msg".
var lineFirst = lazyregexp.New(`^(\d+)(?::(\d+))?: (.*)$`)

// fileFirst is a loader's error that starts with the file it is about.
var fileFirst = lazyregexp.New(`^([^\s:]+?)(?::\d+(?::\d+)?)?: `)

// inputErrorOf reads the file (and line) a loader's error starts with:
// "chart/templates/x.yaml:12: …" or "overlay/kustomization.yaml: …".
func inputErrorOf(err error) lint.InputError {
	message := oneLine(err.Error())
	if m := fileFirst.FindStringSubmatch(message); m != nil {
		return newInputError(m[1], err)
	}
	return lint.InputError{File: "-", Message: message}
}

func oneLine(message string) string { return strings.Join(strings.Fields(message), " ") }
