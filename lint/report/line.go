package report

import (
	"io"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint"
)

// writeLine writes one line per unsuppressed finding, as compilers and
// golangci-lint print them, for editors, grep and problem matchers
// (.github/modellint-matcher.json):
//
//	deploy/serving.yaml:24:11: error MDL205: container "server" sets no memory limit; ...
//
// The line and column are left out where the finding has none. Nothing
// else is written: no header, no summary.
func writeLine(w io.Writer, result *lint.Result, _ Options) error {
	var out strings.Builder
	for finding := range result.EachFinding() {
		if finding.Suppressed() {
			continue
		}
		out.Reset()
		out.WriteString(finding.Location.File)
		if finding.Location.Line > 0 {
			out.WriteString(":" + strconv.Itoa(finding.Location.Line))
			if finding.Location.Column > 0 {
				out.WriteString(":" + strconv.Itoa(finding.Location.Column))
			}
		}
		out.WriteString(": " + finding.Severity.String() + " " + finding.RuleID + ": ")
		out.WriteString(strings.Join(strings.Fields(finding.Message), " "))
		out.WriteByte('\n')
		if _, err := io.WriteString(w, out.String()); err != nil {
			return err
		}
	}
	return nil
}
