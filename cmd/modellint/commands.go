package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/modellint/modellint/lint/report"
	"github.com/modellint/modellint/rules"
)

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

// toolVersion prefers the linker-set version, then the module version that
// `go install …@vX` records.
func toolVersion() string {
	if version != "dev" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return version
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "modellint: version takes no arguments")
		return exitError
	}
	fmt.Fprintf(stdout, "modellint %s\n", toolVersion())
	return exitClean
}

// runRules lists the rules; --markdown prints docs/rules.md instead.
func runRules(args []string, stdout, stderr io.Writer) int {
	list := report.RuleList
	switch {
	case len(args) == 1 && args[0] == "--markdown":
		list = report.RulesMarkdown
	case len(args) > 0:
		fmt.Fprintln(stderr, "modellint: usage: modellint rules [--markdown] (and: modellint explain ID)")
		return exitError
	}
	if err := list(stdout, rules.All()); err != nil {
		fmt.Fprintf(stderr, "modellint: %v\n", err)
		return exitError
	}
	return exitClean
}

func runExplain(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "modellint: usage: modellint explain RULE (an ID such as MDL205, or a name)")
		return exitError
	}
	rule := rules.Lookup(rules.All(), args[0])
	if rule == nil {
		fmt.Fprintf(stderr, "modellint: no rule %q (modellint rules lists them)\n", args[0])
		return exitError
	}
	if err := report.Explain(stdout, rule); err != nil {
		fmt.Fprintf(stderr, "modellint: %v\n", err)
		return exitError
	}
	return exitClean
}
