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
