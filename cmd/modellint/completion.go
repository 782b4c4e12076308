package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/modellint/modellint/lint/report"
	"github.com/modellint/modellint/rules"
)

// Shell completion (modellint completion bash|zsh|fish|powershell) offers
// what each place takes: paths for PATH, rule IDs after explain and in
// the rule lists, the values of the flags that take one of a few.

// completeRuleIDs offers the rule IDs, each with its name; after a comma
// (--disable MDL205,MDL2) the IDs not listed yet.
func completeRuleIDs(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	listed, current := "", toComplete
	if comma := strings.LastIndexByte(toComplete, ','); comma >= 0 {
		listed, current = toComplete[:comma+1], toComplete[comma+1:]
	}
	var ids []string
	for _, rule := range rules.All() {
		if strings.HasPrefix(rule.ID, strings.ToUpper(current)) && !strings.Contains(","+listed, ","+rule.ID+",") {
			ids = append(ids, listed+rule.ID+"\t"+rule.Name)
		}
	}
	return ids, cobra.ShellCompDirectiveNoFileComp
}

// completeExplain offers one rule ID, then nothing.
func completeExplain(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 || strings.Contains(toComplete, ",") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return completeRuleIDs(cmd, args, toComplete)
}

// completeValues offers a fixed list of values, each with what it means.
func completeValues(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFormat offers the formats; after FMT= the file it is written to.
func completeFormat(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if strings.Contains(toComplete, "=") {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return report.Formats, cobra.ShellCompDirectiveNoFileComp
}

// completePaths leaves PATH to the shell's file completion.
func completePaths(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveDefault
}

// registerCompletions attaches the completions to the root command's
// flags and arguments.
func registerCompletions(root *cobra.Command) {
	root.ValidArgsFunction = completePaths
	for _, flag := range []string{"enable", "disable", "enable-only"} {
		_ = root.RegisterFlagCompletionFunc(flag, completeRuleIDs)
	}
	_ = root.RegisterFlagCompletionFunc("format", completeFormat)
	_ = root.RegisterFlagCompletionFunc("fail-on", completeValues(
		"error\texit 1 on errors (the default)", "warning\texit 1 on warnings and errors", "info\texit 1 on any finding", "none\tnever exit 1"))
	_ = root.RegisterFlagCompletionFunc("color", completeValues("auto", "always", "never"))
}
