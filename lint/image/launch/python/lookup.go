package python

import (
	"path"
	"strings"
)

// importer is a Python program of the start, kept so that a module named
// to it elsewhere than in its argv (an MLServer model's implementation in
// model-settings.json) can be resolved on its import path afterwards.
type importer struct {
	// program is the console script's name (mlserver), or the module of
	// python -m MODULE.
	program   string
	checker   *checker
	in        *Interpreter
	scriptDir string
}

// programName is the name FindModule knows a run by.
func (c *checker) programName() string {
	if c.entry.Interpreter != "" && len(c.entry.Targets) > 0 && c.entry.Targets[0].Kind == Module {
		return c.entry.Targets[0].Name
	}
	return c.entry.Tool
}

// Lookup is where a module resolves for one run of a program.
type Lookup struct {
	// File is the module's file (a package's __init__, "" for a namespace
	// package) when it is found; Missing the first dotted name that is not.
	File, Missing string
	// Unsure says why a module not found may still be there at run time
	// (a volume on the import path, a .pth that runs code, PYTHONPATH set
	// by a wrapper …): then it is not certainly missing.
	Unsure string
	// Interpreter and SysPath are the Python and the path searched.
	Interpreter *Interpreter
	SysPath     []string
	// OtherSites are where the image installed the module for another
	// Python than the one that runs.
	OtherSites []OtherSite
}

// FindModule resolves a dotted module on the import path of each run of
// program (a console script's name, or python -m's module) in the start,
// with first put in front of it as the program inserts them (a relative
// entry is from the run's working dir). It returns one Lookup per run;
// none when the start does not run program in a Python modelled here.
func (a *Analysis) FindModule(program, module string, first []string) []Lookup {
	var lookups []Lookup
	for _, imp := range a.importers {
		if imp.program != program {
			continue
		}
		c := imp.checker
		var entries []string
		for _, dir := range first {
			entries = append(entries, c.join(c.cwd, dir))
		}
		if imp.scriptDir != "" {
			entries = append(entries, imp.scriptDir)
		}
		entries = sysPath(imp.in, entries)
		lookup := Lookup{Interpreter: imp.in, SysPath: entries}
		top, _, _ := strings.Cut(module, ".")
		if stdlibModules[top] && !strings.Contains(module, ".") {
			lookups = append(lookups, lookup)
			continue
		}
		search := &searchPath{r: c.r, entries: entries, version: imp.in.Version}
		found, missing := search.find(module)
		switch {
		case missing == "":
			lookup.File = found.File
			if lookup.File == "" && len(found.Dirs) > 0 {
				lookup.File = path.Clean(found.Dirs[0])
			}
		case stdlibModules[top] && missing == top:
		default:
			lookup.Missing = missing
			lookup.Unsure = c.missingUnsure(imp.in, search, missing)
			if lookup.Unsure == "" && c.dirUnsure != "" {
				lookup.Unsure = c.dirUnsure
			}
			lookup.OtherSites = c.otherSite(missing, imp.in)
		}
		lookups = append(lookups, lookup)
	}
	return lookups
}
