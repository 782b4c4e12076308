package triton

import (
	"github.com/modellint/modellint/lint/model/textproto"
	"github.com/modellint/modellint/lint/model/wire"
)

// Ensemble is ensemble_scheduling: the models an ensemble runs, in order.
type Ensemble struct {
	Steps []Step
}

// Step is one step of an ensemble (ModelEnsembling.Step).
type Step struct {
	ModelName string
	// ModelVersion is the version the step needs: -1 for whichever the
	// model loads, 0 when not written (which Triton reads as version 0).
	ModelVersion int64
	// InputMap maps the step model's inputs to ensemble tensors, OutputMap
	// its outputs to ensemble tensors: key the model's tensor, value the
	// ensemble's. A key written twice is kept once, with its last value,
	// as protobuf reads a map.
	InputMap  []Mapping
	OutputMap []Mapping
	// Line is where the step opens in config.pbtxt, ModelNameLine and
	// ModelVersionLine where its fields are written: 0 when not known.
	Line, ModelNameLine, ModelVersionLine int
}

// Mapping is one entry of a step's input_map or output_map.
type Mapping struct {
	Key, Value string
	// Line is where its key is written (where the entry opens when it has
	// no key), 0 when not known.
	Line int
}

// NameLine is the line to point at for the step's model: its model_name,
// else where the step opens.
func (s *Step) NameLine() int {
	if s.ModelNameLine > 0 {
		return s.ModelNameLine
	}
	return s.Line
}

func readEnsemble(m wire.Message) (*Ensemble, error) {
	ensemble := &Ensemble{}
	err := m.Range(func(f wire.Field) error {
		if f.Number != 1 {
			return nil
		}
		step, err := readStep(f.Message())
		ensemble.Steps = append(ensemble.Steps, step)
		return err
	})
	return ensemble, err
}

func readStep(m wire.Message) (Step, error) {
	var step Step
	err := m.Range(func(f wire.Field) error {
		var err error
		switch f.Number {
		case 1:
			step.ModelName, err = f.String(MaxConfig)
		case 2:
			step.ModelVersion = int64(f.Varint)
		case 3, 4:
			var entry Mapping
			err = f.Message().Range(func(part wire.Field) error {
				var err error
				switch part.Number {
				case 1:
					entry.Key, err = part.String(MaxConfig)
				case 2:
					entry.Value, err = part.String(MaxConfig)
				}
				return err
			})
			if f.Number == 3 {
				step.InputMap = append(step.InputMap, entry)
			} else {
				step.OutputMap = append(step.OutputMap, entry)
			}
		}
		return err
	})
	return step, err
}

// Where the steps are written. The protobuf parser keeps no positions, so
// placeSteps reads the text's tokens once more, following the fields that
// open and close, and matches what it finds to the parsed steps in order
// (the parser keeps repeated fields in the order written).

type stepPlace struct {
	line, nameLine, versionLine int
	inputs, outputs             []int // each entry's line
}

// placeSteps fills in the lines of the steps, their fields and their map
// entries; where the text and the parse disagree on a count (which valid
// text does not do) the lines stay 0.
func placeSteps(text []byte, ensemble *Ensemble) {
	places := scanSteps(text)
	if len(places) != len(ensemble.Steps) {
		return
	}
	for i := range ensemble.Steps {
		step, place := &ensemble.Steps[i], places[i]
		step.Line, step.ModelNameLine, step.ModelVersionLine = place.line, place.nameLine, place.versionLine
		placeEntries(step.InputMap, place.inputs)
		placeEntries(step.OutputMap, place.outputs)
		step.InputMap = lastOfEachKey(step.InputMap)
		step.OutputMap = lastOfEachKey(step.OutputMap)
	}
}

func placeEntries(entries []Mapping, lines []int) {
	if len(entries) != len(lines) {
		return
	}
	for i := range entries {
		entries[i].Line = lines[i]
	}
}

// lastOfEachKey keeps one entry a key, its last, where the first was.
func lastOfEachKey(entries []Mapping) []Mapping {
	kept := entries[:0:0]
	at := map[string]int{}
	for _, entry := range entries {
		if i, ok := at[entry.Key]; ok {
			kept[i].Value = entry.Value
			continue
		}
		at[entry.Key] = len(kept)
		kept = append(kept, entry)
	}
	return kept
}

// scanSteps lists where ensemble_scheduling's steps are written.
func scanSteps(text []byte) []stepPlace {
	type frame struct {
		field string
		list  bool // a [ ] list: its { } entries are its field's messages
	}
	var (
		stack  []frame
		places []stepPlace
		tokens = &tokenizer{text: text, line: 1}
	)
	// path is the fields of the open messages, outermost first.
	path := func() []string {
		var fields []string
		for _, f := range stack {
			if !f.list {
				fields = append(fields, f.field)
			}
		}
		return fields
	}
	at := func(want ...string) bool {
		fields := path()
		if len(fields) != len(want) {
			return false
		}
		for i := range want {
			if fields[i] != want[i] {
				return false
			}
		}
		return true
	}
	open := func(field string, line int) {
		switch {
		case field == "step" && at("ensemble_scheduling"):
			places = append(places, stepPlace{line: line})
		case field == "input_map" && at("ensemble_scheduling", "step") && len(places) > 0:
			places[len(places)-1].inputs = append(places[len(places)-1].inputs, line)
		case field == "output_map" && at("ensemble_scheduling", "step") && len(places) > 0:
			places[len(places)-1].outputs = append(places[len(places)-1].outputs, line)
		}
		if len(stack) < textproto.MaxNesting {
			stack = append(stack, frame{field: field})
		}
	}
	scalar := func(field string, line int) {
		if len(places) == 0 {
			return
		}
		place := &places[len(places)-1]
		switch {
		case at("ensemble_scheduling", "step") && field == "model_name":
			place.nameLine = line
		case at("ensemble_scheduling", "step") && field == "model_version":
			place.versionLine = line
		case at("ensemble_scheduling", "step", "input_map") && field == "key" && len(place.inputs) > 0:
			place.inputs[len(place.inputs)-1] = line
		case at("ensemble_scheduling", "step", "output_map") && field == "key" && len(place.outputs) > 0:
			place.outputs[len(place.outputs)-1] = line
		}
	}
	for {
		tok := tokens.next()
		switch tok.kind {
		case tokenEnd:
			return places
		case tokenName:
			if n := len(stack); n > 0 && stack[n-1].list {
				continue // an enum value or bool in a list of scalars
			}
			value := tokens.next()
			if value.kind == ':' {
				value = tokens.next()
			}
			switch value.kind {
			case '{', '<':
				open(tok.text, value.line)
			case '[':
				if len(stack) < textproto.MaxNesting {
					stack = append(stack, frame{field: tok.text, list: true})
				}
			case tokenEnd:
				return places
			default:
				scalar(tok.text, tok.line)
			}
		case '{', '<':
			if n := len(stack); n > 0 && stack[n-1].list {
				open(stack[n-1].field, tok.line)
			}
		case '}', '>', ']':
			if n := len(stack); n > 0 {
				stack = stack[:n-1]
			}
		}
	}
}

// Token kinds besides the punctuation characters themselves.
const (
	tokenEnd    = 0
	tokenName   = 'a' // a field name, enum value or bool
	tokenScalar = '0' // a string or number
)

type token struct {
	kind byte
	text string // of a name
	line int
}

// tokenizer splits text-format protobuf into names, scalars and
// punctuation, skipping white space and # comments.
type tokenizer struct {
	text []byte
	at   int
	line int
}

func (t *tokenizer) next() token {
	for t.at < len(t.text) {
		c := t.text[t.at]
		switch {
		case c == '\n':
			t.line++
			t.at++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			t.at++
		case c == '#':
			for t.at < len(t.text) && t.text[t.at] != '\n' {
				t.at++
			}
		case c == '"' || c == '\'':
			line := t.line
			t.at++
			for t.at < len(t.text) && t.text[t.at] != c && t.text[t.at] != '\n' {
				if t.text[t.at] == '\\' && t.at+1 < len(t.text) && t.text[t.at+1] != '\n' {
					t.at++
				}
				t.at++
			}
			if t.at < len(t.text) && t.text[t.at] == c {
				t.at++
			}
			return token{kind: tokenScalar, line: line}
		case isNameByte(c) || c == '-' || c == '+':
			start := t.at
			for t.at++; t.at < len(t.text) && (isNameByte(t.text[t.at]) || t.text[t.at] == '-' || t.text[t.at] == '+'); t.at++ {
			}
			word := string(t.text[start:t.at])
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' {
				return token{kind: tokenName, text: word, line: t.line}
			}
			return token{kind: tokenScalar, line: t.line}
		default:
			t.at++
			return token{kind: c, line: t.line}
		}
	}
	return token{kind: tokenEnd, line: t.line}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
}
