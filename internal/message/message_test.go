package message

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	for value, want := range map[string]string{
		"1Gi":                          `"1Gi"`,
		"a\nb":                         `"a\nb"`,
		strings.Repeat("x", 80):        `"` + strings.Repeat("x", 80) + `"`,
		strings.Repeat("x", 1000):      `"` + strings.Repeat("x", 80) + `"… (920 more bytes)`,
		strings.Repeat("é", 100):       `"` + strings.Repeat("é", 40) + `"… (120 more bytes)`,
		"x" + strings.Repeat("é", 100): `"x` + strings.Repeat("é", 39) + `"… (122 more bytes)`,
	} {
		if got := Quote(value); got != want {
			t.Errorf("Quote(%.20q…) = %s, want %s", value, got, want)
		}
	}
}

func TestLine(t *testing.T) {
	if got := Line("a:\n  b\tc  "); got != "a: b c" {
		t.Errorf("Line = %q", got)
	}
	long := "config.yaml: " + strings.Repeat("é", 10<<20) + " is not a severity"
	got := Line(long)
	if len(got) > MaxLine+64 || !utf8.ValidString(got) || !strings.HasPrefix(got, "config.yaml: ") ||
		!strings.HasSuffix(got, " is not a severity") || !strings.Contains(got, "bytes left out") {
		t.Errorf("Line of %d bytes = %d bytes: %.100q…", len(long), len(got), got)
	}
}

func TestLines(t *testing.T) {
	lines := &Lines{Limit: 2}
	lines.Write([]byte("found symbolic link\nin two "))
	lines.Write([]byte("writes\n\n" + strings.Repeat("x", 10<<20) + "\nlast"))
	got := lines.Lines()
	if len(got) != 3 || got[0] != "found symbolic link" || got[1] != "in two writes" || got[2] != "… and 2 more lines" {
		t.Errorf("Lines = %.200q", got)
	}
	long := &Lines{}
	long.Write([]byte(strings.Repeat("y", 10<<20)))
	if got := long.Lines(); len(got) != 1 || len(got[0]) > MaxLine+64 {
		t.Errorf("a 10 MB line kept as %d lines, the first of %d bytes", len(got), len(got[0]))
	}
}

func TestEscape(t *testing.T) {
	for text, want := range map[string]string{
		"deploy/serving.yaml":              "deploy/serving.yaml",
		"C:\\models\\é 模型":                 "C:\\models\\é 模型",
		"a\x1b[31mred\x1b[0m":              `a\x1b[31mred\x1b[0m`,
		"\x1b]8;;https://x\x07link\x1b\\":  `\x1b]8;;https://x\alink\x1b\`,
		"x\n::warning file=f::forged":      `x\n::warning file=f::forged`,
		"tab\there\r\n":                    `tab\there\r\n`,
		"del\x7f nul\x00":                  `del\x7f nul\x00`,
		"c1 \u0085 \u009b":                 `c1 \u0085 \u009b`,
		"bidi \u202egnp.exe \u2066x\u2069": `bidi \u202egnp.exe \u2066x\u2069`,
		"sep \u2028 \u2029":                `sep \u2028 \u2029`,
		"bad \xff\xfe utf-8":               `bad \xff\xfe utf-8`,
		"x ##[error]forged ##":             `x #\x23[error]forged ##`,
	} {
		if got := Escape(text); got != want {
			t.Errorf("Escape(%q) = %q, want %q", text, got, want)
		}
		if got := Escape(Escape(text)); got != want {
			t.Errorf("Escape is not idempotent on %q: %q", text, got)
		}
	}
	if got, want := EscapeLines("a: 1\nb: \x1b[2J\n"), "a: 1\nb: \\x1b[2J\n"; got != want {
		t.Errorf("EscapeLines = %q, want %q", got, want)
	}
	if got := Line("error:\n  file\x1b[31m\u202e"); got != `error: file\x1b[31m\u202e` {
		t.Errorf("Line = %q", got)
	}
	clean := "Deployment/default/serving: memory limit missing"
	if allocs := testing.AllocsPerRun(100, func() { _ = Escape(clean) }); allocs != 0 {
		t.Errorf("Escape of clean text allocates %v times", allocs)
	}
}
