package server

import (
	"slices"
	"strconv"
	"strings"
)

// Setting is where a server reads one setting: flags first, then env.
type Setting struct {
	Flags []string
	Env   []string
}

// Flags is a setting read from flags only.
func Flags(names ...string) Setting { return Setting{Flags: names} }

// FlagOrEnv is a setting read from a flag, else an env var.
func FlagOrEnv(flag, env string) Setting { return Setting{Flags: []string{flag}, Env: []string{env}} }

// Name is how messages name the setting: its first flag, or env var.
func (s Setting) Name() string {
	if len(s.Flags) > 0 {
		return s.Flags[0]
	}
	if len(s.Env) > 0 {
		return s.Env[0]
	}
	return ""
}

// Args are what a server runs with: the words of its command line (a word
// holding white space, a sh -c string, split into its words, each keeping
// the field that wrote it; an empty word dropped) and its environment. It is the one reader of a
// server's flags and env vars.
type Args struct {
	words    []Word
	env      map[string]string
	envIndex map[string]int
}

// NewArgs reads a command line and environment; envIndex gives the
// position of each manifest env entry, for the field findings cite.
func NewArgs(line []Word, env map[string]string, envIndex map[string]int) Args {
	args := Args{env: env, envIndex: envIndex, words: make([]Word, 0, len(line))}
	for _, word := range line {
		for part := range strings.FieldsSeq(word.Text) {
			args.words = append(args.words, Word{Text: part, Field: word.Field})
		}
	}
	return args
}

// ArgsOf reads a plain command line and environment, with no fields.
func ArgsOf(argv []string, env map[string]string) Args {
	words := make([]Word, len(argv))
	for i, text := range argv {
		words[i] = Word{Text: text}
	}
	return NewArgs(words, env, nil)
}

// Value reads a setting: of its first flag that is given, the last value
// (argparse, absl and getopt keep the last of a repeated flag), else its
// first env var that is set.
func (a Args) Value(s Setting) (Value, bool) {
	for _, flag := range s.Flags {
		if values := a.Values(flag); len(values) > 0 {
			return values[len(values)-1], true
		}
	}
	for _, name := range s.Env {
		if value, ok := a.env[name]; ok {
			field := ""
			if i, ok := a.envIndex[name]; ok {
				field = "env[" + strconv.Itoa(i) + "].value"
			}
			return Value{Value: value, From: "env " + name, Field: field}, true
		}
	}
	return Value{}, false
}

// Flag is the value of a flag, the last one given.
func (a Args) Flag(flag string) (string, bool) {
	value, ok := a.Value(Flags(flag))
	return value.Value, ok
}

// Port is a port flag's value, or fallback when it is not given or not a
// number.
func (a Args) Port(flag string, fallback int32) int32 {
	if value, ok := a.Flag(flag); ok {
		if n, err := strconv.Atoi(value); err == nil {
			return int32(n)
		}
	}
	return fallback
}

// Values are every "--flag=value" and "--flag value" given, in order.
// Single-dash spellings ("-flag") count too, as Go and absl flag parsers
// accept them.
func (a Args) Values(flag string) []Value {
	name := strings.TrimLeft(flag, "-")
	var values []Value
	for i, word := range a.words {
		if !strings.HasPrefix(word.Text, "-") {
			continue
		}
		key, value, inline := strings.Cut(strings.TrimLeft(word.Text, "-"), "=")
		if key != name {
			continue
		}
		field := word.Field
		if !inline {
			if i+1 >= len(a.words) {
				continue
			}
			value, field = a.words[i+1].Text, a.words[i+1].Field
		}
		values = append(values, Value{Value: strings.Trim(value, `"'`), From: flag, Field: field})
	}
	return values
}

// Positional is the first word after a subcommand ("vllm serve MODEL")
// that is no flag.
func (a Args) Positional(subcommand string) (Value, bool) {
	for i, word := range a.words {
		if word.Text == subcommand && i+1 < len(a.words) && !strings.HasPrefix(a.words[i+1].Text, "-") {
			next := a.words[i+1]
			return Value{Value: next.Text, From: subcommand + " argument", Field: next.Field}, true
		}
	}
	return Value{}, false
}

// Switch reads a pair of value-less flags that turn one setting on and off
// (--mmap and --no-mmap): the last of them given decides. ok is false when
// none is given.
func (a Args) Switch(on, off []string) (value Value, enabled, ok bool) {
	for _, word := range a.words {
		switch {
		case slices.Contains(on, word.Text):
			value, enabled, ok = Value{Value: word.Text, From: word.Text, Field: word.Field}, true, true
		case slices.Contains(off, word.Text):
			value, enabled, ok = Value{Value: word.Text, From: word.Text, Field: word.Field}, false, true
		}
	}
	return value, enabled, ok
}

// Env is an env var's value, and whether it is set.
func (a Args) Env(name string) (Value, bool) {
	return a.Value(Setting{Env: []string{name}})
}
