package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/crd"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/report"
	"github.com/modellint/modellint/rules"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/internal/message"
)

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
	crds       string
	enable     []string
	disable    []string
	enableOnly []string
	quiet      bool
	verbose    bool
	noColor    bool
	color      string
	failEmpty  bool
	// annotateFiles lists the files the github format annotates.
	annotateFiles string
	baseline      baselineFlags
	fix           fixFlags
}

// lintCommand is the root command's job: lint the PATHs.
type lintCommand struct {
	flags       lintFlags
	options     engine.Options
	showVersion bool
	// fromEnv are the flags MODELLINT_<FLAG> set.
	fromEnv map[string]bool
}

// byEnvironment names the variable that set the flag an error starts
// with: a user who never typed --fail-on looks for MODELLINT_FAIL_ON.
func (l *lintCommand) byEnvironment(err error) error {
	text := err.Error()
	for name := range l.fromEnv {
		if rest, ok := strings.CutPrefix(text, "--"+name); ok && (rest == "" || rest[0] == ':' || rest[0] == ' ') {
			return errors.New(envName(name) + rest)
		}
	}
	return err
}

// define declares the lint flags on set, each filed under its --help topic.
func (l *lintCommand) define(set *pflag.FlagSet) {
	flags, options := &l.flags, &l.options
	set.StringArrayVarP(&flags.formats, "format", "f", nil,
		"report format FMT[=FILE], repeatable: "+strings.Join(report.Formats, ", ")+" (default table to stdout)")
	set.StringVar(&flags.failOn, "fail-on", "", "lowest severity that exits 1: error, warning, info or none (default error)")
	set.BoolVarP(&flags.quiet, "quiet", "q", false, "print nothing when there is nothing at or above --fail-on")
	set.BoolVarP(&flags.verbose, "verbose", "v", false, "also list the config file used, skipped documents, unknown kinds and skipped rule checks")
	set.StringVar(&flags.color, "color", "auto", "ANSI colors in the table: auto (terminals only; not with NO_COLOR or TERM=dumb), always or never")
	set.BoolVar(&flags.noColor, "no-color", false, "no ANSI colors, as --color never (also when NO_COLOR is set)")
	set.StringVar(&flags.annotateFiles, "annotate-files", "",
		"with -f github, annotate only the findings in the files `FILE` lists, one path a line relative to the working dir (a pull request's changed files)")
	inGroup(set, "Output", "format", "fail-on", "quiet", "verbose", "color", "no-color", "annotate-files")

	set.StringVarP(&flags.configPath, "config", "c", "", "config file (default: .modellint.yaml found upward from the first PATH)")
	set.StringSliceVar(&flags.enable, "enable", nil, "rule IDs or names to enable, even if the config disables them")
	set.StringSliceVar(&flags.disable, "disable", nil, "rule IDs or names to disable")
	set.StringSliceVar(&flags.enableOnly, "enable-only", nil, "run only these rule IDs or names, whatever the config and --enable/--disable say")
	inGroup(set, "Rules", "config", "enable", "disable", "enable-only")

	set.Var(&modelFlag{&options.Models}, "model",
		"link a model dir to the path containers mount it at, DIR[:MOUNTPATH], repeatable")
	set.StringVar(&flags.cluster, "cluster", "", "kubectl get nodes -o yaml of the target cluster")
	set.StringVar(&flags.crds, "crds", "", "the CRDs of the target cluster, a `PATH` to what kubectl get crd -o yaml writes or to a directory of CRD files: custom objects are checked against their schemas")
	set.StringArrayVar(&options.Exclude, "exclude", nil, "leave paths out of a directory walk (.gitignore syntax, relative to the working dir), repeatable; .gitignore and .modellintignore files are honoured too")
	set.BoolVar(&flags.failEmpty, "fail-if-empty", false, "exit 2 when the PATHs hold nothing to lint")
	addBaselineFlags(set, &flags.baseline)
	inGroup(set, "Inputs", "model", "cluster", "crds", "exclude", "fail-if-empty", "baseline", "write-baseline")

	addFixFlags(set, &flags.fix)

	addImageFlags(set, &options.Image)
	inGroup(set, "Images", "image", "offline", "platform", "image-timeout", "timeout", "max-image-size", "cache-dir", "no-cache")
	addRenderFlags(set, &options.Render)
	inGroup(set, "Helm and Kustomize", "helm-values", "helm-set", "release-name", "namespace", "helm-include-tests",
		"kube-version", "api-versions", "kustomize-load-restrictor")
}

// run lints the PATHs with the parsed flags and returns the exit code.
func (l *lintCommand) run(set *pflag.FlagSet, paths []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags, options := l.flags, l.options
	if progress, ok := options.Image.Progress.(*layerProgress); ok && flags.verbose {
		progress.verbose = true // a summary line per image stays at -v
	}
	if flags.quiet {
		options.Image.Progress = nil // -q: not a byte on stderr unless something is wrong
	}

	if len(paths) == 0 {
		paths = []string{"."}
	}
	if flags.fix.unsafe && !flags.fix.apply && !flags.fix.diff {
		printError(stderr, errors.New("--unsafe-fixes works with --fix or --diff: add one of them"))
		return exitError
	}
	// The fixes of the document on stdin are made to its text, kept as the
	// engine reads it.
	var stdinSource bytes.Buffer
	if (flags.fix.apply || flags.fix.diff) && slices.Contains(paths, "-") && stdin != nil {
		stdin = io.TeeReader(stdin, &stdinSource)
	}
	config, err := loadConfig(flags.configPath, paths)
	if err == nil && flags.configPath == "" {
		for _, warning := range otherConfigs(paths, config.Path) {
			printWarning(stderr, warning)
		}
	}
	if err != nil {
		// A config's problems are one line each, every one named.
		for _, line := range strings.Split(err.Error(), "\n") {
			printError(stderr, errors.New(line))
		}
		return exitError
	}
	failOn := config.FailOn
	if set.Changed("fail-on") || failOn == "" {
		failOn = flags.failOn
	}
	threshold, failNever, err := parseFailOn(failOn)
	if err != nil {
		printError(stderr, l.byEnvironment(err))
		return exitError
	}
	selected, err := engine.SelectRules(rules.All(), config, flags.enable, flags.disable)
	if err == nil && len(flags.enableOnly) > 0 {
		selected, err = engine.OnlyRules(rules.All(), config, flags.enableOnly)
	}
	if err != nil {
		printError(stderr, l.byEnvironment(err))
		return exitError
	}

	outputs, err := parseOutputs(flags.formats)
	if err == nil {
		err = checkWritable(outputs, flags.baseline.write)
	}
	if err != nil {
		printError(stderr, l.byEnvironment(err))
		return exitError
	}

	if options.Exclude, err = anchorExcludes(options.Exclude); err != nil {
		printError(stderr, l.byEnvironment(err))
		return exitError
	}
	if options.Cluster, err = readCluster(flags.cluster, config); err != nil {
		printError(stderr, err)
		return exitError
	}
	if flags.crds != "" {
		if options.CRDs, err = crd.ReadPath(flags.crds); err != nil {
			printError(stderr, err)
			return exitError
		}
	}

	options.Paths, options.Stdin, options.Config, options.Rules = paths, stdin, config, selected
	options.Records = recordsFor(outputs, flags.verbose)
	options.WithoutFixes = !fixesRead(outputs, flags.fix)
	options.WithoutNotes = !notesRead(outputs, flags.verbose)
	options.FindingsInParts = findingsInParts(outputs, flags.fix, flags.baseline)
	options.GCPercent = manifestGCPercent()
	for _, out := range outputs {
		if out.file != "" {
			options.Outputs = append(options.Outputs, out.file)
		}
	}
	options.Outputs = append(options.Outputs, flags.baseline.read, flags.baseline.write)
	options.Now = time.Now().UTC().Format(time.DateOnly)
	result, err := engine.Run(options)
	if err == nil {
		err = applyBaseline(flags.baseline, result, stderr)
	}
	reportOut := stdout
	if err == nil && (flags.fix.apply || flags.fix.diff) {
		var outcome fixOutcome
		if outcome, err = runFixes(flags.fix, result, stdinSource.Bytes(), stdout, stderr); outcome.done && err == nil {
			return outcome.code
		}
		if err == nil && outcome.stdin != nil {
			// The fixed document is stdout, as a formatter writes it; the
			// reports meant for stdout go to stderr.
			if _, err = stdout.Write(outcome.stdin); err == nil {
				options.Stdin, reportOut = bytes.NewReader(outcome.stdin), stderr
			}
		}
		if err == nil {
			// What remains after the fixes, as a run without them reports it.
			if result, err = engine.Run(options); err == nil {
				err = applyBaseline(flags.baseline, result, stderr)
			}
		}
	}
	if err != nil {
		// A layer read may fail with a registry's answer quoted in the error.
		printError(stderr, err)
		return exitError
	}
	// -v says which config the run used, first among the notes.
	result.Notes = append([]string{"config " + describeConfig(config)}, result.Notes...)
	// Each input that could not be read is one line; the reports below
	// still cover everything else, and the run exits 2.
	for _, problem := range result.InputErrors {
		printError(stderr, errors.New(problem.String()))
	}
	for _, unused := range result.Unused {
		printWarning(stderr, unused)
	}
	empty := len(result.Files) == 0 && len(result.InputErrors) == 0
	if empty && flags.failEmpty {
		fmt.Fprintf(stderr, "modellint: nothing to lint in %s (--fail-if-empty)\n", message.Escape(strings.Join(paths, " ")))
	}

	failing := !failNever && result.Fails(threshold)
	color, err := useColor(flags.color, flags.noColor, stdout)
	if err != nil {
		printError(stderr, l.byEnvironment(err))
		return exitError
	}
	reportOptions := report.Options{ToolVersion: toolVersion(), Color: color, Verbose: flags.verbose, Width: terminalWidth(stdout),
		SourceURL: sourceURL()}
	// Reports name files relative to the working directory, however the
	// PATHs and the config were named.
	if wd, err := os.Getwd(); err == nil {
		reportOptions.BaseDir = wd
	}
	if flags.annotateFiles != "" {
		if reportOptions.AnnotateFiles, err = readFileList(flags.annotateFiles); err != nil {
			printError(stderr, l.byEnvironment(fmt.Errorf("--annotate-files: %w", err)))
			return exitError
		}
	}
	for _, out := range outputs {
		if out.file == "" && flags.quiet && !failing {
			continue
		}
		if err := writeOutput(out, reportOut, result, reportOptions); err != nil {
			printError(stderr, err)
			return exitError
		}
	}
	switch {
	case len(result.InputErrors) > 0 || (empty && flags.failEmpty):
		return exitError
	case failing:
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
		found, err := engine.FindConfig(start)
		if err != nil {
			return nil, err
		}
		if found == "" {
			return &lint.Config{}, nil
		}
		path = found
	}
	return engine.LoadConfig(path)
}

// otherConfigs names the PATHs whose nearest .modellint.yaml is not the
// one the run uses: one config applies to a run (the first PATH's), so a
// PATH with its own is linted on its own to get it.
func otherConfigs(paths []string, used string) []string {
	var warnings []string
	for _, path := range paths[min(1, len(paths)):] {
		if path == "-" {
			continue
		}
		found, err := engine.FindConfig(path)
		if err != nil || found == "" || found == used {
			continue
		}
		using := used
		if using == "" {
			using = "none"
		}
		warnings = append(warnings, fmt.Sprintf("%s has its own config %s, but this run uses %s (the first PATH's); "+
			"lint %s on its own, or give -c, to choose", path, found, using, path))
	}
	return warnings
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
		return 0, false, fmt.Errorf("--fail-on: %s is not a severity (want error, warning, info or none)", message.Quote(value))
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
			return nil, fmt.Errorf("--format %s: unknown format (want one of %s)", message.Quote(format), strings.Join(report.Formats, ", "))
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

// anchorExcludes makes the absolute paths among --exclude patterns the
// patterns that name them: relative to the working dir, anchored there
// (/tmp/w/k8s/a.yaml run in /tmp/w is /k8s/a.yaml). As .gitignore reads
// it, an absolute path would name a path under the working dir that
// repeats it whole, and exclude nothing. A path outside the working dir
// has no such pattern: refused.
func anchorExcludes(patterns []string) ([]string, error) {
	var cwd string
	anchored := make([]string, 0, len(patterns))
	for _, pattern := range patterns {
		if !filepath.IsAbs(pattern) {
			anchored = append(anchored, pattern)
			continue
		}
		if cwd == "" {
			var err error
			if cwd, err = os.Getwd(); err != nil {
				return nil, fmt.Errorf("--exclude %s: %w", message.Quote(pattern), err)
			}
		}
		rel, err := filepath.Rel(cwd, pattern)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("--exclude %s: outside the working dir %s, which patterns are relative to; run modellint from a dir above it",
				message.Quote(pattern), cwd)
		}
		if rel == "." {
			return nil, fmt.Errorf("--exclude %s: the working dir itself would exclude everything", message.Quote(pattern))
		}
		rel = "/" + filepath.ToSlash(rel)
		if strings.HasSuffix(pattern, string(filepath.Separator)) {
			rel += "/"
		}
		anchored = append(anchored, rel)
	}
	return anchored, nil
}

// recordsFor returns which rule checks the reports read: JSON and JUnit
// list every one, SARIF and the table at -v the skipped ones; the other
// reports count the skipped ones only.
func recordsFor(outputs []output, verbose bool) engine.Records {
	records := engine.RecordNone
	for _, out := range outputs {
		switch {
		case out.format == "json" || out.format == "junit":
			return engine.RecordAll
		case out.format == "sarif" || out.format == "table" && verbose:
			records = engine.RecordSkipped
		}
	}
	return records
}

// fixesRead says whether the findings' fixes are read: by --fix and
// --diff, and by the reports that show them (JSON, SARIF, Markdown).
func fixesRead(outputs []output, fix fixFlags) bool {
	if fix.apply || fix.diff {
		return true
	}
	return slices.ContainsFunc(outputs, func(out output) bool {
		return out.format == "json" || out.format == "sarif" || out.format == "markdown"
	})
}

// findingsInParts says whether every reader of the run's findings reads
// them a part at a time: the reports asked for do, and no baseline or fix
// reads them all.
func findingsInParts(outputs []output, fix fixFlags, baseline baselineFlags) bool {
	if fix.apply || fix.diff || baseline.read != "" || baseline.write != "" {
		return false
	}
	return !slices.ContainsFunc(outputs, func(out output) bool { return !report.ReadsInParts(out.format) })
}

// notesRead says whether the run's notes are read: by JSON and SARIF, and
// by the table at -v.
func notesRead(outputs []output, verbose bool) bool {
	return slices.ContainsFunc(outputs, func(out output) bool {
		return out.format == "json" || out.format == "sarif" || out.format == "table" && verbose
	})
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

// useColor follows --color, then the NO_COLOR convention
// (https://no-color.org) and TERM=dumb: auto colors terminals only.
func useColor(mode string, noColor bool, stdout io.Writer) (bool, error) {
	switch mode {
	case "always":
		return !noColor, nil
	case "never":
		return false, nil
	case "auto", "":
	default:
		return false, fmt.Errorf("--color %s: want auto, always or never", message.Quote(mode))
	}
	if noColor || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false, nil
	}
	file, ok := stdout.(*os.File)
	if !ok {
		return false, nil
	}
	info, err := file.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0, nil
}

// checkWritable fails before linting when a report or baseline cannot be
// written, rather than after printing the table: in a container the usual
// cause is a bind-mounted dir owned by another user than the image's.
func checkWritable(outputs []output, baselineFile string) error {
	files := []string{baselineFile}
	for _, out := range outputs {
		files = append(files, out.file)
	}
	for _, file := range files {
		if file == "" {
			continue
		}
		probe, err := os.CreateTemp(filepath.Dir(file), ".modellint-write-check-*")
		if err != nil {
			return fmt.Errorf("cannot write %s: %v; in a container, run it as your own user (docker run --user \"$(id -u):$(id -g)\" ...) "+
				"or write reports into a dir that user may write", file, fileread.Cause(err))
		}
		probe.Close()
		os.Remove(probe.Name())
	}
	return nil
}

// sourceURL is where CI shows the linted files at this commit, for the
// Markdown summary's links: GitHub Actions' and GitLab CI's own variables.
func sourceURL() string {
	server, repo, sha := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_SHA")
	if server != "" && repo != "" && sha != "" {
		return server + "/" + repo + "/blob/" + sha
	}
	if project, sha := os.Getenv("CI_PROJECT_URL"), os.Getenv("CI_COMMIT_SHA"); project != "" && sha != "" {
		return project + "/-/blob/" + sha
	}
	return ""
}

// describeConfig names the config file a run uses, for -v.
func describeConfig(config *lint.Config) string {
	if config.Path == "" {
		return "file: none found (defaults)"
	}
	return "file: " + config.Path
}

func oneLine(message string) string {
	return strings.Join(strings.Fields(message), " ")
}

// printError writes err as the one line a failed run ends with: on one
// line, at most about message.MaxLine bytes (its start, which names the
// input, and its end, which says what went wrong, around a count of what
// was left out), its control characters escaped, credentials a registry's
// answer may quote removed.
func printError(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "modellint: %s\n", message.Line(image.RedactCredentials(oneLine(err.Error()))))
}

// printWarning writes a warning as one line, bounded as an error is.
func printWarning(stderr io.Writer, warning string) {
	fmt.Fprintf(stderr, "modellint: warning: %s\n", message.Line(warning))
}

// modelFlag parses --model DIR[:MOUNTPATH] into model mappings.
type modelFlag struct{ mappings *[]lint.ModelMapping }

func (f *modelFlag) String() string { return "" }
func (f *modelFlag) Type() string   { return "DIR[:MOUNTPATH]" }
func (f *modelFlag) Set(value string) error {
	mapping, err := engine.ParseModelMapping(value)
	if err != nil {
		return err
	}
	*f.mappings = append(*f.mappings, mapping)
	return nil
}

// maxFileListBytes bounds an --annotate-files list: a pull request of
// 3,000 files (GitHub's limit on a diff) is ~300 KiB of paths.
const maxFileListBytes = 4 << 20

// readFileList reads a list of paths, one a line, as report paths.
func readFileList(path string) (map[string]bool, error) {
	data, err := fileread.Regular(path, maxFileListBytes)
	if err != nil {
		return nil, err
	}
	files := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSuffix(line, "\r"); line != "" {
			files[filepath.ToSlash(filepath.Clean(line))] = true
		}
	}
	return files, nil
}
