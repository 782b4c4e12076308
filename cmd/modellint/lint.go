package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/report"
	"github.com/modellint/modellint/rules"
)

const usageHeader = `modellint lints a model-serving deployment before it ships.

Usage:
  modellint [flags] [PATH ...]   lint PATHs (default "."); "-" reads manifests from stdin
  modellint rules                list every rule
  modellint explain RULE         print a rule's documentation
  modellint version

Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage or runtime error.

Only regular files are read, each within a size bound; FIFOs and devices are refused.
"-" is the one stream: it is read up to 32 MiB but waits as long as its writer does.

Flags:
`

// output is one -f/--format value: a format and where it goes ("" = stdout).
type output struct {
	format string
	file   string
}

type lintFlags struct {
	formats    []string
	failOn     string
	configPath string
	cluster    string
	enable     []string
	disable    []string
	quiet      bool
	verbose    bool
	noColor    bool
	baseline   baselineFlags
}

func runLint(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var flags lintFlags
	set := pflag.NewFlagSet("modellint", pflag.ContinueOnError)
	set.SetOutput(io.Discard)
	set.StringArrayVarP(&flags.formats, "format", "f", nil,
		"report format FMT[=FILE], repeatable: "+strings.Join(report.Formats, ", ")+" (default table to stdout)")
	set.StringVar(&flags.failOn, "fail-on", "", "lowest severity that exits 1: error, warning, info or none (default error)")
	set.StringVarP(&flags.configPath, "config", "c", "", "config file (default: .modellint.yaml found upward from the first PATH)")
	set.StringSliceVar(&flags.enable, "enable", nil, "rule IDs or names to enable, even if the config disables them")
	set.StringSliceVar(&flags.disable, "disable", nil, "rule IDs or names to disable")
	set.BoolVarP(&flags.quiet, "quiet", "q", false, "print nothing when there is nothing at or above --fail-on")
	set.BoolVarP(&flags.verbose, "verbose", "v", false, "also list skipped documents, unknown kinds and skipped rule checks")
	set.BoolVar(&flags.noColor, "no-color", false, "no ANSI colors (also when NO_COLOR is set)")
	var options lint.Options
	set.Var(&modelFlag{&options.Models}, "model",
		"link a model dir to the path containers mount it at, DIR[:MOUNTPATH], repeatable")
	set.StringVar(&flags.cluster, "cluster", "", "kubectl get nodes -o yaml of the target cluster")
	addImageFlags(set, &options.Image)
	addRenderFlags(set, &options.Render)
	addBaselineFlags(set, &flags.baseline)
	help := set.BoolP("help", "h", false, "show this help")
	if err := set.Parse(args); err != nil {
		fmt.Fprintf(stderr, "modellint: %v (see modellint --help)\n", err)
		return exitError
	}
	if *help {
		fmt.Fprint(stdout, usageHeader+set.FlagUsages())
		return exitClean
	}

	if flags.quiet {
		options.Image.Progress = nil // -q: not a byte on stderr unless something is wrong
	}

	paths := set.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	config, err := loadConfig(flags.configPath, paths)
	if err != nil {
		printError(stderr, err)
		return exitError
	}
	failOn := config.FailOn
	if set.Changed("fail-on") || failOn == "" {
		failOn = flags.failOn
	}
	threshold, failNever, err := parseFailOn(failOn)
	if err != nil {
		printError(stderr, err)
		return exitError
	}
	selected, err := lint.SelectRules(rules.All(), config, flags.enable, flags.disable)
	if err != nil {
		printError(stderr, err)
		return exitError
	}
	outputs, err := parseOutputs(flags.formats)
	if err != nil {
		printError(stderr, err)
		return exitError
	}

	if options.Cluster, err = readCluster(flags.cluster, config); err != nil {
		printError(stderr, err)
		return exitError
	}

	options.Paths, options.Stdin, options.Config, options.Rules = paths, stdin, config, selected
	options.Now = time.Now().UTC().Format(time.DateOnly)
	result, err := lint.Run(options)
	if err == nil {
		err = applyBaseline(flags.baseline, result, stderr)
	}
	if err != nil {
		// A layer read may fail with a registry's answer quoted in the error.
		printError(stderr, err)
		return exitError
	}

	failing := !failNever && result.Count(threshold) > 0
	reportOptions := report.Options{ToolVersion: toolVersion(), Color: useColor(flags.noColor, stdout), Verbose: flags.verbose}
	for _, out := range outputs {
		if out.file == "" && flags.quiet && !failing {
			continue
		}
		if err := writeOutput(out, stdout, result, reportOptions); err != nil {
			printError(stderr, err)
			return exitError
		}
	}
	if failing {
		return exitFindings
	}
	return exitClean
}

func loadConfig(explicit string, paths []string) (*lint.Config, error) {
	path := explicit
	if path == "" {
		start := paths[0]
		if start == "-" {
			start = "."
		}
		found, err := lint.FindConfig(start)
		if err != nil {
			return nil, err
		}
		if found == "" {
			return &lint.Config{}, nil
		}
		path = found
	}
	return lint.LoadConfig(path)
}

// readCluster reads the nodes --cluster names, else the config's
// cluster.nodes; nil when neither is set.
func readCluster(flagPath string, config *lint.Config) (*cluster.Facts, error) {
	path := flagPath
	if path == "" {
		path = config.ClusterNodesPath()
	}
	if path == "" {
		return nil, nil
	}
	return cluster.Read(path)
}

// parseFailOn returns the threshold severity, or never=true for "none".
func parseFailOn(value string) (threshold lint.Severity, never bool, err error) {
	switch strings.ToLower(value) {
	case "":
		return lint.Error, false, nil
	case "none", "never":
		return lint.Error, true, nil
	}
	threshold, err = lint.ParseSeverity(value)
	if err != nil {
		return 0, false, fmt.Errorf("--fail-on: %w", err)
	}
	return threshold, false, nil
}

func parseOutputs(values []string) ([]output, error) {
	if len(values) == 0 {
		return []output{{format: "table"}}, nil
	}
	var outputs []output
	toStdout := 0
	for _, value := range values {
		format, file, _ := strings.Cut(value, "=")
		if !knownFormat(format) {
			return nil, fmt.Errorf("--format %q: unknown format (want one of %s)", format, strings.Join(report.Formats, ", "))
		}
		if file == "" || file == "-" {
			file = ""
			toStdout++
		}
		outputs = append(outputs, output{format: format, file: file})
	}
	if toStdout > 1 {
		return nil, errors.New("--format: only one format can go to stdout; give the others a file (FMT=FILE)")
	}
	return outputs, nil
}

func knownFormat(format string) bool {
	for _, known := range report.Formats {
		if format == known {
			return true
		}
	}
	return false
}

func writeOutput(out output, stdout io.Writer, result *lint.Result, options report.Options) error {
	if out.file == "" {
		return report.Write(stdout, out.format, result, options)
	}
	fileOptions := options
	fileOptions.Color = false
	file, err := os.Create(out.file)
	if err != nil {
		return fmt.Errorf("--format %s: %w", out.format, err)
	}
	if err := report.Write(file, out.format, result, fileOptions); err != nil {
		file.Close()
		return fmt.Errorf("write %s: %w", out.file, err)
	}
	if err := file.Close(); err != nil {
		return fmt.Errorf("write %s: %w", out.file, err)
	}
	return nil
}

// useColor follows the NO_COLOR convention (https://no-color.org) and only
// colors terminals.
func useColor(noColor bool, stdout io.Writer) bool {
	if noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	file, ok := stdout.(*os.File)
	if !ok {
		return false
	}
	info, err := file.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func oneLine(message string) string {
	return strings.Join(strings.Fields(message), " ")
}

// maxErrorLine bounds the error line: a chart's include recursion quotes
// itself a thousand times, and a hostile value may be megabytes.
const maxErrorLine = 1000

// printError writes err as the one line a failed run ends with: on one
// line, at most about maxErrorLine bytes (its start, which names the
// input, and its end, which says what went wrong, around a count of what
// was left out), credentials a registry's answer may quote removed.
func printError(stderr io.Writer, err error) {
	message := image.RedactCredentials(oneLine(err.Error()))
	if len(message) > maxErrorLine {
		head, tail := maxErrorLine*6/10, maxErrorLine*3/10
		for head > 0 && !utf8.RuneStart(message[head]) {
			head--
		}
		start := len(message) - tail
		for start < len(message) && !utf8.RuneStart(message[start]) {
			start++
		}
		message = fmt.Sprintf("%s … (%d bytes left out) … %s", message[:head], start-head, message[start:])
	}
	fmt.Fprintf(stderr, "modellint: %s\n", message)
}

// modelFlag parses --model DIR[:MOUNTPATH] into model mappings.
type modelFlag struct{ mappings *[]lint.ModelMapping }

func (f *modelFlag) String() string { return "" }
func (f *modelFlag) Type() string   { return "DIR[:MOUNTPATH]" }
func (f *modelFlag) Set(value string) error {
	mapping, err := lint.ParseModelMapping(value)
	if err != nil {
		return err
	}
	*f.mappings = append(*f.mappings, mapping)
	return nil
}
