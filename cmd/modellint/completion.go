package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/report"
	"github.com/modellint/modellint/rules"
)

// Shell completion (modellint completion bash|zsh|fish|powershell) offers
// what each place takes: paths for PATH and after -f FMT=, directories for
// --cache-dir, rule IDs and names after explain and in the rule lists, the
// values of the flags that take one of a few.

// completeRules offers the rule IDs, each with its name, and the names
// that begin with what was typed, each with its ID (--disable, --enable
// and explain take either); after a comma (--disable MDL205,MDL2) those
// of the rules not listed yet.
func completeRules(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	listed, current := "", toComplete
	if comma := strings.LastIndexByte(toComplete, ','); comma >= 0 {
		listed, current = toComplete[:comma+1], toComplete[comma+1:]
	}
	var ids, names []string
	for _, rule := range rules.All() {
		if strings.Contains(","+listed, ","+rule.ID+",") || strings.Contains(","+listed, ","+rule.Name+",") {
			continue
		}
		if strings.HasPrefix(rule.ID, strings.ToUpper(current)) {
			ids = append(ids, listed+rule.ID+"\t"+rule.Name)
		}
		// Names only once something is typed: the IDs' descriptions list
		// them already.
		if current != "" && strings.HasPrefix(rule.Name, strings.ToLower(current)) {
			names = append(names, listed+rule.Name+"\t"+rule.ID)
		}
	}
	return append(ids, names...), cobra.ShellCompDirectiveNoFileComp
}

// completeExplain offers one rule ID or name, then nothing.
func completeExplain(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 || strings.Contains(toComplete, ",") {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return completeRules(cmd, args, toComplete)
}

// completeValues offers a fixed list of values, each with what it means.
func completeValues(values ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFormat offers the formats; after FMT= the file it is written to.
func completeFormat(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if format, path, ok := strings.Cut(toComplete, "="); ok {
		return completeFilesAfter(format+"=", path)
	}
	return report.Formats, cobra.ShellCompDirectiveNoFileComp
}

// maxCompletedFiles bounds the entries offered from one directory.
const maxCompletedFiles = 1000

// completeFilesAfter offers the files and directories whose path begins
// with path, each after prefix: the shells complete the file names a whole
// word begins, and none begins "sarif=". A directory ends in / and takes
// no space after it, so that its files complete next.
func completeFilesAfter(prefix, path string) ([]string, cobra.ShellCompDirective) {
	dir, base := filepath.Split(path)
	read := dir
	if read == "" {
		read = "."
	}
	entries, err := os.ReadDir(read)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var paths []string
	onlyDir := false
	for _, entry := range entries {
		name := entry.Name()
		if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue // hidden files only when asked for, as the shells do
		}
		if len(paths) == maxCompletedFiles {
			break
		}
		isDir := entry.IsDir()
		if entry.Type()&os.ModeSymlink != 0 {
			info, err := os.Stat(filepath.Join(read, name))
			isDir = err == nil && info.IsDir()
		}
		completion := prefix + dir + name
		if isDir {
			completion += string(filepath.Separator)
		}
		paths = append(paths, completion)
		onlyDir = len(paths) == 1 && isDir
	}
	if onlyDir {
		return paths, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	return paths, cobra.ShellCompDirectiveNoFileComp
}

// completePaths leaves PATH to the shell's file completion.
func completePaths(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveDefault
}

// completeDirs leaves a directory to the shell's completion of directories.
func completeDirs(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}

// registerCompletions attaches the completions to the root command's
// flags and arguments.
func registerCompletions(root *cobra.Command) {
	root.ValidArgsFunction = completePaths
	for _, flag := range []string{"enable", "disable", "enable-only"} {
		_ = root.RegisterFlagCompletionFunc(flag, completeRules)
	}
	_ = root.RegisterFlagCompletionFunc("format", completeFormat)
	_ = root.RegisterFlagCompletionFunc("fail-on", completeValues(
		"error\texit 1 on errors (the default)", "warning\texit 1 on warnings and errors", "info\texit 1 on any finding", "none\tnever exit 1"))
	_ = root.RegisterFlagCompletionFunc("color", completeValues("auto", "always", "never"))
	_ = root.RegisterFlagCompletionFunc("inflate", completeValues(
		image.InflateAuto+"\tigzip or unpigz when on PATH, else in process (the default)",
		image.InflateGo+"\tin process", image.InflateIgzip+"\tISA-L's igzip, on PATH", image.InflateUnpigz+"\tpigz's unpigz, on PATH"))
	_ = root.RegisterFlagCompletionFunc("kustomize-load-restrictor", completeValues(
		"rootOnly\ta kustomization reads files under its own dir only (the default)",
		"none\ta kustomization reads files outside its dir, inside the repository"))
	_ = root.RegisterFlagCompletionFunc("cache-dir", completeDirs)
}
