package report

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/modellint/modellint/lint"
)

// tablewriterColumns is the borderless, left-aligned tablewriter table the
// reports used to print, the reference writeColumns must match.
func tablewriterColumns(t *testing.T, header []string, rows [][]string) []byte {
	var out bytes.Buffer
	table := tablewriter.NewTable(&out,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders:  tw.BorderNone,
			Symbols:  tw.NewSymbols(tw.StyleASCII),
			Settings: tw.Settings{Separators: tw.SeparatorsNone, Lines: tw.LinesNone},
		})),
		tablewriter.WithEastAsian(tw.Off),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	table.Header(header)
	for _, row := range rows {
		if err := table.Append(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := table.Render(); err != nil {
		t.Fatal(err)
	}
	return trimTrailingSpace(out.Bytes())
}

// TestColumnsMatchTablewriter compares the two layouts, after the trailing
// spaces both reports trim, on random tables of the cells reports hold:
// ANSI colours, multi-line cells, wide and combining characters, empty
// cells, rows of different heights.
func TestColumnsMatchTablewriter(t *testing.T) {
	words := []string{"warning", "MDL203", "startup-probe-missing", "42:13", "", "Deployment/team-000/model-0-0",
		ansiRed + "error" + ansiReset, ansiDim + "spec.template" + ansiReset, "模型服务器", "café", "e\u0301t\u00e9", "→", "±½",
		"spec.template.spec.containers[0].resources.limits.memory", "x"}
	random := rand.New(rand.NewPCG(1, 2))
	cell := func() string {
		lines := make([]string, 1+random.IntN(4))
		for i := range lines {
			var parts []string
			for range random.IntN(4) {
				parts = append(parts, words[random.IntN(len(words))])
			}
			lines[i] = strings.Join(parts, " ")
		}
		return strings.Join(lines, "\n")
	}
	for trial := range 200 {
		columns := 1 + random.IntN(5)
		header := make([]string, columns)
		for i := range header {
			header[i] = fmt.Sprintf("H%d", i) + strings.Repeat(" ", random.IntN(12))
		}
		rows := make([][]string, random.IntN(6))
		for r := range rows {
			rows[r] = make([]string, columns)
			for i := range rows[r] {
				rows[r][i] = cell()
			}
		}
		want := tablewriterColumns(t, header, rows)
		var got bytes.Buffer
		writeColumns(&got, header, rows)
		if !bytes.Equal(trimTrailingSpace(got.Bytes()), want) {
			t.Fatalf("trial %d: header %q rows %q:\n got:\n%s\nwant:\n%s", trial, header, rows, got.Bytes(), want)
		}
	}
}

// TestTableInPiecesIsTheTableWhole: a file with more findings than a piece
// holds is written a piece at a time, and the bytes are those of its table
// laid out whole, with colours and without.
func TestTableInPiecesIsTheTableWhole(t *testing.T) {
	severities := []lint.Severity{lint.Error, lint.Warning, lint.Info}
	var findings []lint.Finding
	for i := range 3*pieceFindings + 7 {
		findings = append(findings, lint.Finding{
			RuleID: fmt.Sprintf("MDL%03d", 200+i%40), RuleName: strings.Repeat("long-name-", i%5),
			Severity: severities[i%3],
			Message:  strings.Repeat(fmt.Sprintf("word%d ", i), 1+i%23),
			Location: lint.Location{File: "stream.yaml", Line: 1 + i*7, Column: 1 + i%13, Path: "spec.template.spec.containers[0]"},
			Target:   fmt.Sprintf("Deployment/ns/model-%d", i),
		})
	}
	result := &lint.Result{Findings: findings}
	for _, color := range []bool{false, true} {
		var got bytes.Buffer
		if err := writeTable(&got, result, Options{Width: 100, Color: color}); err != nil {
			t.Fatal(err)
		}
		paint := painter{enabled: color}
		var whole bytes.Buffer
		whole.WriteString(paint.paint(ansiBold, "stream.yaml") + "\n")
		renderFindings(&whole, findings, newFindingLayout(slices.Values(findings), 100), paint, true)
		whole.WriteString("\n")
		want := string(trimTrailingSpace(whole.Bytes())) + summaryLine(result, countResult(result)) + "\n"
		if got.String() != want {
			t.Errorf("color %v: the table in pieces differs from the table whole (%d bytes, want %d)", color, got.Len(), len(want))
		}
	}
}

// TestWidthsMatchTablewriter: displayWidth measures as the table library
// does, escape sequences, wide, combining and ambiguous characters alike.
func TestWidthsMatchTablewriter(t *testing.T) {
	for _, text := range []string{"", "plain", ansiRed + "error" + ansiReset, ansiDim + "spec" + ansiReset + " x",
		"\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "\x1b]0;title\x07after", "模型服务器", "café", "e\u0301t\u00e9",
		"→", "±½", "✅ ok", "👩‍💻", "\x1b[", "a\x00b", "\u200b", "ｆｕｌｌ", "\U0001F1FA\U0001F1F8"} {
		if got, want := displayWidth(text), twwidth.WidthWithOptions(text, twwidth.Options{}); got != want {
			t.Errorf("displayWidth(%q) = %d, the library measures %d", text, got, want)
		}
	}
}
