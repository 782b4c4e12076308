package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/modellint/modellint/lint/report"

	"github.com/modellint/modellint/internal/message"
)

// The command line as Go CLIs lay it out (spf13/cobra over pflag): `modellint
// [flags] [PATH ...]` lints, and rules, explain, config, version, help and
// completion are subcommands. A PATH named like a subcommand is written
// ./rules.

const rootLong = `modellint lints a model-serving deployment before it ships: Kubernetes manifests, Helm charts and Kustomize overlays, model directories and container images, each checked on its own and against the others.

Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage or runtime error (an unreadable input among them).

Only regular files are read, each within a size bound; FIFOs and devices are refused. "-" is the one stream: it is read up to 32 MiB but waits as long as its writer does.

Every flag can also be set as MODELLINT_<FLAG> in the environment, e.g. MODELLINT_FAIL_ON=warning or MODELLINT_OFFLINE=1; a flag on the command line wins.`

// flagGroups orders the topics of --help; a flag names its topic in the
// "group" annotation, and flags without one are listed under "Other".
var flagGroups = []string{"Output", "Rules", "Fixes", "Inputs", "Images", "Helm and Kustomize", "Other"}

const groupAnnotation = "group"

// inGroup files flags under a --help topic.
func inGroup(set *pflag.FlagSet, group string, names ...string) {
	for _, name := range names {
		if set.Lookup(name) != nil {
			_ = set.SetAnnotation(name, groupAnnotation, []string{group})
		}
	}
}

func newRootCommand(stdin io.Reader, stdout, stderr io.Writer, code *int) *cobra.Command {
	linter := &lintCommand{fromEnv: map[string]bool{}}
	root := &cobra.Command{
		Use:   "modellint [flags] [PATH ...]",
		Short: "Lint a model-serving deployment before it ships",
		Long:  rootLong,
		Example: `  modellint k8s/                                  # table on stdout
  modellint --helm-values prod.yaml charts/bert   # a chart, rendered in-process
  helm template charts/bert | modellint -         # from stdin
  modellint -f table -f sarif=modellint.sarif deploy/`,
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return applyEnv(cmd.Flags(), linter.fromEnv)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if linter.showVersion {
				fmt.Fprintf(stdout, "modellint %s\n", toolVersion())
				return nil
			}
			*code = linter.run(cmd.Flags(), args, stdin, stdout, stderr)
			return nil
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.HiddenDefaultCmd = false
	linter.define(root.Flags())
	root.Flags().BoolVarP(&linter.showVersion, "version", "V", false, "print the version and exit")
	root.SetUsageFunc(func(cmd *cobra.Command) error { return writeUsage(cmd, stdout) })
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) { _ = writeHelp(cmd, stdout) })
	root.AddCommand(rulesCommand(stdout), explainCommand(stdout), versionCommand(stdout), configCommand(stdout))
	root.SetHelpCommand(helpCommand(root))
	registerCompletions(root)
	return root
}

// helpCommand is "help [COMMAND]": cobra's own prints the main help for a
// command that does not exist, and exits 0.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "Help about any command",
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, sub := range root.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name()+"\t"+sub.Short)
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			topic, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 || (topic == root && len(args) > 0) {
				var names []string
				for _, sub := range root.Commands() {
					if sub.IsAvailableCommand() {
						names = append(names, sub.Name())
					}
				}
				return fmt.Errorf("help: no command %s (the commands are %s; modellint explain RULE documents a rule)",
					message.Quote(strings.Join(args, " ")), strings.Join(names, ", "))
			}
			return topic.Help()
		},
	}
}

// applyEnv sets every flag the command line left unset from MODELLINT_<FLAG>
// (dashes as underscores): flags win over the environment. fromEnv
// records the flags it set, so that an error names the variable.
func applyEnv(set *pflag.FlagSet, fromEnv map[string]bool) error {
	var err error
	set.VisitAll(func(flag *pflag.Flag) {
		if err != nil || flag.Changed || flag.Name == "help" || flag.Name == "version" {
			return
		}
		name := envName(flag.Name)
		value, ok := os.LookupEnv(name)
		if !ok || value == "" {
			return
		}
		if setErr := set.Set(flag.Name, value); setErr != nil {
			err = fmt.Errorf("%s=%s: %v", name, message.Quote(value), setErr)
		}
		fromEnv[flag.Name] = true
	})
	return err
}

func envName(flag string) string {
	return "MODELLINT_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// terminalWidth is what tables and help wrap to: COLUMNS, else the
// terminal's width when out is one, else 120 (a CI log).
func terminalWidth(out io.Writer) int {
	if columns, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && columns > 0 {
		return max(columns, 40)
	}
	if file, ok := out.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		if width, _, err := term.GetSize(int(file.Fd())); err == nil && width > 0 {
			return max(width, 40)
		}
	}
	return 120
}

func writeHelp(cmd *cobra.Command, out io.Writer) error {
	text := cmd.Long
	if text == "" {
		text = cmd.Short
	}
	for _, paragraph := range strings.Split(text, "\n\n") {
		fmt.Fprintln(out, strings.Join(report.Wrap(paragraph, terminalWidth(out)-1), "\n"))
		fmt.Fprintln(out)
	}
	return writeUsage(cmd, out)
}

// writeUsage prints the usage line, subcommands, examples and the flags
// grouped by topic, wrapped to the terminal.
func writeUsage(cmd *cobra.Command, out io.Writer) error {
	width := terminalWidth(out)
	var b strings.Builder
	b.WriteString("Usage:\n  " + cmd.UseLine() + "\n")
	if cmd.HasAvailableSubCommands() {
		b.WriteString("\nCommands:\n")
		for _, sub := range cmd.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				for i, line := range report.Wrap(sub.Short, width-16) {
					name := ""
					if i == 0 {
						name = sub.Name()
					}
					fmt.Fprintf(&b, "  %-12s %s\n", name, line)
				}
			}
		}
	}
	if cmd.Example != "" {
		b.WriteString("\nExamples:\n" + cmd.Example + "\n")
	}
	flags := cmd.LocalFlags()
	grouped := map[string]*pflag.FlagSet{}
	flags.VisitAll(func(flag *pflag.Flag) {
		if flag.Hidden {
			return // deprecated: still accepted, no longer offered
		}
		group := "Other"
		if names := flag.Annotations[groupAnnotation]; len(names) > 0 {
			group = names[0]
		}
		if grouped[group] == nil {
			grouped[group] = pflag.NewFlagSet(group, pflag.ContinueOnError)
			grouped[group].SortFlags = false
		}
		grouped[group].AddFlag(flag)
	})
	for _, group := range flagGroups {
		set := grouped[group]
		if set == nil {
			continue
		}
		title := group + " flags"
		if len(grouped) == 1 {
			title = "Flags"
		}
		b.WriteString("\n" + title + ":\n" + flagUsages(set, width))
	}
	if cmd.HasAvailableSubCommands() {
		b.WriteString("\n" + strings.Join(report.Wrap("Run \"modellint help COMMAND\" for a command's own help, \"modellint explain RULE\" for a rule's.", width-1), "\n") + "\n")
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// valueNames replace pflag's Go type names in --help.
var valueNames = map[string]string{"string": "STRING", "stringArray": "VALUE", "strings": "LIST", "duration": "DURATION",
	"int": "N", "uint": "N", "int64": "N"}

// flagUsages lays out a group's flags in two columns, the usage wrapped at
// word boundaries to width. Boolean flags show no value (--quiet, not
// --quiet[=true|false]); others show their value's name and default.
func flagUsages(set *pflag.FlagSet, width int) string {
	type row struct{ name, usage string }
	var rows []row
	nameWidth := 0
	set.VisitAll(func(flag *pflag.Flag) {
		name := "    "
		if flag.Shorthand != "" {
			name = "-" + flag.Shorthand + ", "
		}
		name += "--" + flag.Name
		valueName, usage := pflag.UnquoteUsage(flag)
		if flag.Value.Type() != "bool" && valueName != "" {
			if readable, ok := valueNames[valueName]; ok {
				valueName = readable
			}
			name += " " + valueName
		}
		if flag.DefValue != "" && flag.DefValue != "false" && flag.DefValue != "[]" && flag.DefValue != "0s" && !strings.Contains(usage, "(default") {
			usage += fmt.Sprintf(" (default %s)", flag.DefValue)
		}
		rows = append(rows, row{name, usage})
		nameWidth = max(nameWidth, len(name))
	})
	usageWidth := max(30, width-nameWidth-6)
	var b strings.Builder
	for _, r := range rows {
		lines := report.Wrap(r.usage, usageWidth)
		for i, line := range lines {
			left := ""
			if i == 0 {
				left = r.name
			}
			fmt.Fprintf(&b, "  %-*s   %s\n", nameWidth, left, line)
		}
	}
	return b.String()
}
