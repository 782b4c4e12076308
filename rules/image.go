package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/manifest"
)

// imageFacts are the reasons image rules skip.
const (
	skipUnresolvable = "the image reference did not resolve (see MDL310)"
	skipNoLayers     = "the image's layers were not read"
)

// imageCheck is one container with its image, or an image linted on its own.
type imageCheck struct {
	container *manifest.Container // nil for an image on its own
	img       *image.Image
	spec      launch.Spec
	arch      string // the nodes' architecture, "" when unknown
	start     *launch.Analysis
	bundle    *lint.Bundle
}

// label names the container (or image) in messages.
func (c *imageCheck) label() string {
	if c.container == nil {
		return "image " + c.img.Reference
	}
	return describe(c.container)
}

// field is the manifest line a user edits about the image.
func (c *imageCheck) field() string {
	if c.container == nil {
		return ""
	}
	return c.container.Path + ".image"
}

// argvField is the manifest line that wrote argv[0], else the image line.
func (c *imageCheck) argvField() string {
	if c.container == nil {
		return ""
	}
	switch {
	case c.spec.ArgvFrom == "command" && len(c.container.Command) > 0:
		return c.container.Path + ".command[0]"
	case c.spec.ArgvFrom == "args" && len(c.container.Args) > 0:
		return c.container.Path + ".args[0]"
	}
	return c.field()
}

// where renders the image location for messages: "(image REF, layer 2/3
// sha256:…, /path)".
func where(img *image.Image, layer, path string) string {
	parts := []string{"image " + img.Reference}
	if layer != "" {
		parts = append(parts, layer)
	}
	if path != "" {
		parts = append(parts, path)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// imageChecks returns the containers whose image facts are known. Rules
// mark the pass skipped when some are not (offline, unresolvable, no
// layers while needLayers), so a partial check never reads as a pass.
func imageChecks(pass *lint.Pass, needLayers bool) []*imageCheck {
	target := pass.Target
	var checks []*imageCheck
	var skipped []string
	for _, bundle := range target.Bundles {
		c := bundle.Container
		img := bundle.Image
		if c != nil && c.Image == "" {
			continue
		}
		if img == nil {
			skipped = append(skipped, target.ImagesMissing)
			continue
		}
		if skip := unusable(img, needLayers); skip != "" {
			skipped = append(skipped, skip)
			continue
		}
		checks = append(checks, &imageCheck{container: c, img: img, spec: bundle.Spec, arch: bundle.Arch, start: bundle.Start, bundle: bundle})
	}
	if len(skipped) > 0 {
		pass.Skip(lint.JoinReasons(skipped))
	}
	return checks
}

func unusable(img *image.Image, needLayers bool) string {
	switch {
	case img.Unresolvable != "":
		return skipUnresolvable
	case needLayers && img.FS() == nil:
		return skipNoLayers
	}
	return ""
}

// analyze returns the container's replayed start; what could not be
// checked turns the pass into a skip unless something was found.
func (c *imageCheck) analyze(pass *lint.Pass) *launch.Analysis {
	if reasons := uncheckedReasons(c.start); len(reasons) > 0 {
		pass.Skip("not checked: " + strings.Join(reasons, "; "))
	}
	return c.start
}

// reportProblems reports the start problems of some kinds.
func reportProblems(pass *lint.Pass, c *imageCheck, analysis *launch.Analysis, severity lint.Severity, kinds ...launch.Kind) {
	for _, problem := range analysis.Problems {
		if !hasKind(kinds, problem.Kind) {
			continue
		}
		path := problemPath(problem)
		field := c.field()
		if path == "" || (len(c.spec.Argv) > 0 && (path == c.spec.Argv[0] || len(analysis.Steps) == 0)) || wrapperArgv(problem.Via) {
			field = c.argvField()
		}
		location := lint.ImageLocation{Reference: c.img.Reference, Layer: problem.LayerDigest, Path: path}
		pass.Report(lint.Diagnostic{Severity: severity, Path: field, Image: location, Message: fmt.Sprintf("%s: %s%s%s %s %s; %s", c.label(), platformStart(c), wrapperChain(problem.Via), startPathSubject(c, path), problemDetail(problem), where(c.img, problem.Layer, ""), startFix(c, problem))})
	}
}

// startFix is the advice for a start problem. A file the user may not
// reach because directories above it have no search bit for them needs
// those directories opened, not an execute bit it already has: every one
// of them, as opening only the topmost leaves the user stopped at the
// next.
func startFix(c *imageCheck, p launch.Problem) string {
	blocked := blockingDirs(c, p)
	if len(blocked) == 0 {
		return fixFor(p.Kind)
	}
	if len(blocked) == 1 {
		dir := blocked[0]
		return fmt.Sprintf("directory %s (%s, owner %d:%d) does not let %s through: give it the search bit (chmod %s+x %s, "+
			"or mode 0755), install the program outside it (/usr/local/bin), or run as a user that may enter it",
			dir.Path, dir.Mode, dir.UID, dir.GID, p.User, permissionClass(p.User, dir.UID, dir.GID), dir.Path)
	}
	described := make([]string, len(blocked))
	for i, dir := range blocked {
		described[i] = fmt.Sprintf("%s (%s, owner %d:%d)", dir.Path, dir.Mode, dir.UID, dir.GID)
	}
	return fmt.Sprintf("directories %s do not let %s through: give each the search bit (%s, or mode 0755), install the "+
		"program outside them (/usr/local/bin), or run as a user that may enter them",
		joinAnd(described), p.User, searchBitCommands(p.User, blocked))
}

// searchBitCommands is the chmod that opens the directories to the user,
// one per permission class that applies.
func searchBitCommands(user launch.User, dirs []launch.Dir) string {
	var classes []string
	byClass := map[string][]string{}
	for _, dir := range dirs {
		class := permissionClass(user, dir.UID, dir.GID)
		if byClass[class] == nil {
			classes = append(classes, class)
		}
		byClass[class] = append(byClass[class], dir.Path)
	}
	commands := make([]string, len(classes))
	for i, class := range classes {
		commands[i] = fmt.Sprintf("chmod %s+x %s", class, strings.Join(byClass[class], " "))
	}
	return strings.Join(commands, "; ")
}

// blockingDirs are the directories that keep the user from the program,
// topmost first: the ones the start path stopped at, or, when a PATH
// lookup found only files the user may not run, the ones above the first
// candidate when every candidate is behind such a directory (when some
// candidate lacks its own execute bit, the file is what to fix).
func blockingDirs(c *imageCheck, p launch.Problem) []launch.Dir {
	switch p.Reason {
	case launch.ParentNotSearchable:
		if len(p.Blocked) == 0 {
			return []launch.Dir{{Path: p.At, Mode: p.Mode, UID: p.UID, GID: p.GID}}
		}
		return p.Blocked
	case launch.InPathNotExecutable:
		var first []launch.Dir
		for _, candidate := range p.Candidates {
			resolved := candidate.Path
			if _, after, found := strings.Cut(resolved, " -> "); found {
				resolved = after
			}
			dirs := launch.BlockingDirs(c.img.FS(), p.User, resolved)
			if len(dirs) == 0 {
				return nil
			}
			if first == nil {
				first = dirs
			}
		}
		return first
	}
	return nil
}

// permissionClass is the class of a file's permission bits that apply to
// the user: "u" as its owner, "g" in its group, "o" otherwise.
func permissionClass(user launch.User, uid, gid uint32) string {
	switch {
	case user.UID == uid:
		return "u"
	case slices.Contains(user.Groups, gid):
		return "g"
	}
	return "o"
}

func hasKind(kinds []launch.Kind, kind launch.Kind) bool {
	for _, k := range kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// startPathSubject names what a problem's path is: argv[0] with where it
// came from, or a file further down the start path.
func startPathSubject(c *imageCheck, path string) string {
	if path == "" {
		return "the container"
	}
	if len(c.spec.Argv) > 0 && path == c.spec.Argv[0] {
		return fmt.Sprintf("argv[0] %q (from %s)", path, argvOrigin(c))
	}
	return path
}

// wrapperArgv says the hops that led to a problem are only the wrappers
// of the container's own argv (command: [gosu, app, serve]), no script.
func wrapperArgv(via []launch.Hop) bool {
	return len(via) == 1 && via[0].Wrapper
}

// wrapperChain names the wrapper scripts that led to a problem:
// "/usr/bin/tf_serving_entrypoint.sh (line 3) runs tensorflow_model_server: ".
func wrapperChain(via []launch.Hop) string {
	var out strings.Builder
	for _, hop := range via {
		verb := "runs"
		if hop.Exec {
			verb = "execs"
		}
		if hop.Line == 0 {
			// A supervisor's service dir, which names its run script by no line.
			fmt.Fprintf(&out, "%s %s %s: ", hop.Script, verb, hop.Program)
			continue
		}
		fmt.Fprintf(&out, "%s (line %d) %s %s: ", hop.Script, hop.Line, verb, hop.Program)
	}
	return out.String()
}

// platformStart says what a platform runs in place of the manifest's
// command and args, "" when the manifest's (or the image's) run.
func platformStart(c *imageCheck) string {
	if c.container == nil || c.container.StartedBy == "" {
		return ""
	}
	return fmt.Sprintf("%s runs %s (not the image's ENTRYPOINT and CMD); ", c.container.StartedBy,
		message.Quote(strings.Join(c.spec.Argv, " ")))
}

func argvOrigin(c *imageCheck) string {
	switch c.spec.ArgvFrom {
	case "command":
		return "the manifest's command"
	case "args":
		return "the manifest's args, with no ENTRYPOINT"
	case "KubeRay":
		return "the command KubeRay gives the Ray container"
	}
	return "the image's " + c.spec.ArgvFrom
}

func fixFor(kind launch.Kind) string {
	switch kind {
	case launch.NotFound:
		return "fix the command (or ENTRYPOINT) to name a file the image has, or add it to the image"
	case launch.NotExecutable:
		return "set the execute bit in the image (`COPY --chmod=0755` or `RUN chmod +x`), or run as a user that may execute it"
	case launch.InterpreterMissing:
		return "install the interpreter in the image, fix the #! line, or use a base image with the libc the binary was built for"
	case launch.VersionMissing:
		return "build the binary on (or for) the image's glibc, or use a base image with a newer glibc"
	case launch.LibraryMissing:
		return "install the library in the image or point LD_LIBRARY_PATH / the binary's RUNPATH at it"
	case launch.ArchMismatch:
		return "build the image for the nodes' architecture (docker buildx --platform) or schedule it on matching nodes"
	}
	return ""
}
