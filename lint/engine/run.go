package engine

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/modellint/modellint/internal/gcpace"
	"github.com/modellint/modellint/internal/parallel"
	"github.com/modellint/modellint/internal/redact"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
)

// gcHeadroom is the least the heap grows between two collections while a
// run holds manifests: a run linted in batches holds a batch and the
// compact findings of those before it, a few MiB, and each batch allocates
// several times that.
const gcHeadroom = 16 << 20

// Options configure one lint run.
type Options struct {
	// Paths are files or directories; "-" reads manifests from Stdin.
	Paths  []string
	Stdin  io.Reader
	Config *lint.Config
	// CRDs are CustomResourceDefinitions beside the linted files' own
	// (--crds): custom objects of theirs are judged by their schemas.
	CRDs []*manifest.Object
	// Rules are the enabled rules, with severities already overridden.
	Rules []*lint.Rule
	// Now is today's date (YYYY-MM-DD) for expiring config ignores.
	Now string
	// Models are --model DIR[:MOUNTPATH] links (see link.go).
	Models []lint.ModelMapping
	// Image says how images are found and read (see images.go).
	Image ImageOptions
	// Render says how Helm charts and Kustomize overlays are rendered (see render.go).
	Render RenderOptions
	// Outputs are files the run writes (reports, a baseline): never linted,
	// though they may lie under a PATH.
	Outputs []string
	// Exclude are --exclude patterns (.gitignore syntax, relative to the
	// working directory), added to the config's exclude:.
	Exclude []string
	// Cluster are the target cluster's nodes (--cluster, cluster.nodes);
	// nil when not given, and the rules that need them skip.
	Cluster *cluster.Facts
	// Records says which rule checks Result.Evaluations lists.
	Records Records
	// WithoutFixes says that nothing reads the findings' fixes (no --fix,
	// no report that shows them), so the findings keep none rather than
	// hold them all until the run ends.
	WithoutFixes bool
	// WithoutNotes says that nothing reads Result.Notes (no JSON or SARIF
	// report, no -v), so the run leaves out the notes on each object no
	// rule reads: a PodDisruptionBudget beside each of 10,000 Deployments
	// makes 10,000 of them.
	WithoutNotes bool
	// GCPercent, when above 0, paces the collector from the moment a run
	// has manifests to read, for the rest of the process (its reports
	// included): it collects once the heap has grown by GCPercent of what
	// is live or by gcHeadroom, whichever is more (gcpace.Follow). The
	// objects of the PATHs and then their findings are held to the end, so
	// a tighter target than the runtime's lowers the peak of a large run,
	// and the headroom spares a small one, or one linted in batches, a
	// collection every few MiB. A run of model dirs or images alone holds
	// little and keeps the runtime's default.
	GCPercent int
	// DeepSleepPast is the size of the manifest files from which the field
	// tables of their workloads are dropped until each is linted, and the
	// files parsed again then (manifest.File.Settle); 0 means 48 MiB.
	DeepSleepPast int64
	// FindingsInParts says the reports read the findings a part at a time
	// (lint.Result.FindingParts): a run linted in batches then makes each
	// batch's findings as they are read, not all of them at once.
	FindingsInParts bool
	// BatchesPast is the size of the manifest files from which a run that
	// can be linted a few namespaces at a time is, each batch up to an
	// eighth of it (namespaceBatches); 0 means 8 MiB.
	BatchesPast int64
}

// Records says which rule checks a run lists in Result.Evaluations: 10,000
// workloads make ~400,000 checks, ~250,000 of them skipped when no image is
// read, so a run keeps only those its reports read.
type Records int

const (
	// RecordAll lists every check (JSON and JUnit list them all).
	RecordAll Records = iota
	// RecordSkipped lists the skipped checks only (SARIF counts them by
	// reason, the table lists them at -v).
	RecordSkipped
	// RecordNone lists none and counts the skipped ones in
	// Result.UnlistedSkips (the other reports only count them).
	RecordNone
)

// Run lints the inputs. An error means the run could not complete (an
// unreadable or malformed input) and is reported as exit 2. Neither the
// result nor the error holds a value of Result.Secrets, but in the edits
// --fix writes.
func Run(options Options) (*lint.Result, error) {
	secrets := &redact.Set{}
	addHelmSetSecrets(secrets, options.Render.HelmSet)
	result, err := run(options, secrets)
	if err != nil {
		return nil, redactedError{err: err, secrets: secrets}
	}
	return result, nil
}

func run(options Options, secrets *redact.Set) (*lint.Result, error) {
	config := options.Config
	if config == nil {
		config = &lint.Config{}
	}
	result := &lint.Result{Rules: options.Rules, Secrets: secrets}
	walked := walk(options.Paths, options.Stdin, excludes(options, config), options.Outputs)
	if options.GCPercent > 0 && (len(walked.pending) > 0 || len(walked.found.renderDirs) > 0) {
		gcpace.Follow(options.GCPercent, gcHeadroom)
	}
	batched := false
	if batches := namespaceBatches(walked, options, config); batches != nil {
		var err error
		if batched, err = lintInBatches(options, config, secrets, walked, batches, result); err != nil {
			return nil, err
		}
	}
	if !batched {
		walked.load(walked.pending, options.DeepSleepPast)
		linted, err := lintFound(options, config, secrets, walked.found, result, false)
		if err != nil {
			return nil, err
		}
		linted.finish()
	}
	result.PassSuppressed()
	redactResult(result, secrets)
	sortResult(result)
	return result, nil
}

// lintInBatches lints a run a few namespaces at a time (namespaceBatches)
// into result. When a batch's files are not what the first read found (changed
// since, or read otherwise), it returns false, with result and secrets as
// they were, and the run is linted whole.
func lintInBatches(options Options, config *lint.Config, secrets *redact.Set, walked *walker, batches []namespaceBatch, result *lint.Result) (bool, error) {
	whole := secrets.Clone()
	for _, batch := range batches {
		for _, index := range batch.indexes {
			addValues(secrets, index.secrets)
		}
	}
	parts := make([]*linted, len(batches))
	for i, batch := range batches {
		loaded := &walker{found: &inputs{modelUnits: map[string]int{}}}
		loaded.loadAwake(batch.files)
		if !sameIndex(batch, loaded.found) {
			batchesRedone.Add(1)
			secrets.Restore(whole)
			return false, nil
		}
		var err error
		if parts[i], err = lintFound(options, config, secrets, loaded.found, &lint.Result{}, true); err != nil {
			return false, err
		}
		parts[i].finishChecks()
		batches[i] = namespaceBatch{} // its first read's index
	}
	result.InputErrors, result.Notes = walked.found.errors, walked.found.notes
	finishParts(result, parts, options.FindingsInParts)
	noteDroppedSecrets(result, secrets)
	return true, nil
}

// lintFound lints what was found into result. In a batch (namespaceBatches)
// the values of the run's Secrets are known already, and result is the
// batch's part of the run's.
func lintFound(options Options, config *lint.Config, secrets *redact.Set, found *inputs, result *lint.Result, batch bool) (*linted, error) {
	result.InputErrors = append(result.InputErrors, found.errors...)
	result.Notes = append(result.Notes, found.notes...)
	rendered, renderNotes, renderErrors := renderInputs(found.renderDirs, options)
	result.InputErrors = append(result.InputErrors, renderErrors...)
	result.Notes = append(result.Notes, renderNotes...)
	files := append(withoutPatches(withoutRendered(found.manifests, rendered), found.renderDirs), rendered...)
	// Each workload's typed object is decoded while the engine works on it
	// (Workload.Hold), not held for the whole run: 10,000 Deployments
	// decoded are ~70 MB.
	set, refusedByCRDs, err := composedSet(files, options.CRDs, result)
	if err != nil {
		return nil, err
	}
	unitParents := splitUnits(options.Paths, files, set, found.modelUnits)
	units := unitSets(files, set, unitParents)
	noteManifests(result, files, !options.WithoutNotes)
	checkStdin(result, options.Paths, files)

	var targets []*lint.Target
	for _, workload := range set.Workloads {
		targets = append(targets, &lint.Target{Workload: workload})
	}
	linker := newLinker(config, options.Models)
	linker.objects = set
	linker.units, linker.unitParents = found.modelUnits, unitParents
	dirs, err := modelDirs(found.modelDirs, linker.mappings)
	if err != nil {
		return nil, err
	}
	modelTargets, modelErrors := loadModels(dirs)
	result.InputErrors = append(result.InputErrors, modelErrors...)
	joinRepositories(modelTargets, options.Paths, linker.mappings)
	for _, target := range modelTargets {
		if m := target.Model; m.UnreadVersions > 0 {
			result.Notes = append(result.Notes, fmt.Sprintf("%s: %d versions, more than the %d whose SavedModels are read: "+
				"the %d oldest are listed, not read (TF Serving's default policy loads the latest only)",
				m.Dir, len(m.Versions), model.MaxReadVersions, m.UnreadVersions))
		}
	}
	linker.addModels(modelTargets)
	for _, target := range modelTargets {
		result.Files = append(result.Files, target.File())
	}
	targets = append(targets, modelTargets...)
	replayed := &starts{config: config}
	targets, err = attachImages(targets, found.imageSources, options, result, replayed)
	if err != nil {
		return nil, err
	}
	// The job's values before the tree's, which may offer millions.
	addImageSecrets(secrets, targets)
	if !batch {
		addObjectSecrets(secrets, set)
		noteDroppedSecrets(result, secrets)
		if len(result.Files) == 0 && len(result.InputErrors) == 0 {
			result.Notes = append(result.Notes, "no manifests or model directories found")
		}
	}

	// What the links lead to (model dirs, models inside images) is linted
	// before the workloads' rules, which read its findings. A run with
	// neither model dirs nor images has no such step, and makes each
	// target's bundles and links under the hold its rules run in: the
	// workload is decoded once less.
	stage := &workloadStage{config: config, linker: linker, units: units, replayed: replayed,
		checks: checker{rules: options.Rules, ruleIndexes: ruleIndexes(options.Rules), config: config, nodes: options.Cluster, records: options.Records,
			withoutFixes: options.WithoutFixes, secrets: secrets, texts: &texts{}},
		suppressor: newSuppressor(config, set, options.Now, options.Rules),
		linksFirst: len(modelTargets) > 0 || len(linker.mappings) > 0 ||
			slices.ContainsFunc(targets, func(target *lint.Target) bool { return len(target.Images) > 0 })}
	if stage.linksFirst {
		// A target's bundles and links read the images, models and config
		// they share and write only the target's own: on every CPU.
		if err := firstError(parallel.Map(targets, func(target *lint.Target) error {
			return holding(target, func() { stage.prepare(target) })
		})); err != nil {
			return nil, err
		}
	}
	// Without links (!linksFirst) the run has no --model flag, and so none
	// unused.
	result.Unused = append(result.Unused, linker.unused(targets)...)
	if err := expectLayouts(targets); err != nil {
		return nil, err
	}
	bakedTargets, err := lintBakedModels(targets)
	if err != nil {
		return nil, err
	}
	targets = append(targets, bakedTargets...)

	// The phases: model dirs are linted first, their findings go with the
	// links that point servers at them, then the workloads and images are
	// linted, and cross rules read the model's findings off the link.
	var modelPhase, workloadPhase []*lint.Target
	for _, target := range targets {
		if target.Workload == nil && target.Model != nil {
			modelPhase = append(modelPhase, target)
		} else {
			workloadPhase = append(workloadPhase, target)
		}
	}
	modelFindings := map[*model.Model][]lint.Finding{}
	var all []*evaluated
	for _, target := range modelPhase {
		done := stage.checks.run(target, set)
		modelFindings[target.Model] = done.findings
		all = append(all, done)
	}
	linked := map[*model.Model]bool{}
	for _, target := range workloadPhase {
		for _, link := range target.Links {
			link.ModelFindings = modelFindings[link.Model]
			linked[link.Model] = true
		}
	}
	if len(set.Workloads) > 0 {
		for _, done := range all {
			if m := done.target.Model; !linked[m] && len(m.Versions) == 0 {
				unread(done.findings)
			}
		}
	}
	// The fields the API server rejects are read before the objects'
	// documents are dropped (see workloadStage.lint).
	rejected := append(rejectedFindings(set.Invalid, options.Rules, invalidAdvice, secrets),
		rejectedFindings(set.Unknown, options.Rules, unknownAdvice, secrets)...)
	rejected = append(rejected, rejectedFindings(refusedByCRDs, options.Rules, refusedAdvice, secrets)...)
	// On every CPU, each target's rules in order on one goroutine; the
	// results come back in target order, so the report does not depend on
	// the schedule.
	order := inNamespaceTurns(workloadPhase, 2*runtime.GOMAXPROCS(0))
	release := newNamespaceRelease(workloadPhase, units.sets())
	evaluatedInTurn := parallel.Map(order, func(i int) *evaluated {
		done := stage.lint(workloadPhase[i])
		release.done(workloadPhase[i])
		// What the end of the run reads of the target is on done: the
		// target goes as the rules go on.
		done.target, workloadPhase[i] = nil, nil
		return done
	})
	inTargetOrder := make([]*evaluated, len(workloadPhase))
	for turn, i := range order {
		inTargetOrder[i] = evaluatedInTurn[turn]
	}
	for _, done := range inTargetOrder {
		if done.err != nil {
			return nil, done.err
		}
	}
	// A file read again to be linted must be the file read first.
	for _, file := range files {
		if err := file.WakeError(); err != nil {
			return nil, err
		}
	}
	// The objects go before the result is made: the suppressor takes what
	// it reads of them, and nothing else the rest of the run holds leads
	// to them (the set, the linker, the targets of the workload phase).
	stage.suppressor.settle()
	return &linted{result: result, suppressor: stage.suppressor, rules: options.Rules, texts: stage.checks.texts,
		all: append(all, inTargetOrder...), rejected: rejected}, nil
}

// linted is what lintFound leaves to write into its result once the
// objects are gone: the findings held compactly until then.
type linted struct {
	result     *lint.Result
	suppressor *suppressor
	rules      []*lint.Rule
	texts      *texts
	// all are the targets' ends until finishChecks writes their checks;
	// targets hold what their links and findings are made from after, by
	// place in the lists below: a run linted in batches holds every
	// batch's until the last is linted, and the collector follows none of
	// their pointers.
	all      []*evaluated
	targets  []heldTarget
	names    string // the targets' names and their links' values, one after another
	files    []string
	links    []linkNote
	held     []heldFinding
	owns     []*ownLists
	rejected []lint.Finding
}

// heldTarget is what a target's links and findings are made from
// (appendLinks, appendFindings): its name in linted.names, its file,
// links, held findings and own lists by place in linted's.
type heldTarget struct {
	name, links, held span
	file              uint32
	own               int32 // -1: none
}

// span is a part of a list or a string: [start, end).
type span struct{ start, end uint32 }

func (l *linted) name(target *heldTarget) string {
	return l.names[target.name.start:target.name.end]
}

func (l *linted) own(target *heldTarget) *ownLists {
	if target.own < 0 {
		return nil
	}
	return l.owns[target.own]
}

// finish writes the links, findings, checks and starts into the result.
func (l *linted) finish() {
	l.finishChecks()
	l.result.Links = l.appendLinks(l.result.Links, true)
	l.result.Findings = l.appendFindings(l.result.Findings, true)
}

// finishChecks writes the checks and starts into the result, and keeps of
// each target what its links and findings are made from: a batch's
// targets are held so until the run's last batch is linted.
func (l *linted) finishChecks() {
	addRecords(l.result, l.all)
	addStarts(l.result, l.all)
	l.targets = make([]heldTarget, 0, len(l.all))
	var names strings.Builder
	var size, findings, links int
	for _, e := range l.all {
		size += len(e.name) + len(e.linkValues)
		findings += len(e.held) + len(e.findings)
		links += len(e.links)
	}
	names.Grow(size)
	l.held, l.links = make([]heldFinding, 0, findings), make([]linkNote, 0, links)
	files := map[string]uint32{}
	for i, e := range l.all {
		target := heldTarget{own: -1}
		target.name.start = uint32(names.Len())
		names.WriteString(e.name)
		target.name.end = uint32(names.Len())
		file, ok := files[e.file]
		if !ok {
			file = uint32(len(l.files))
			files[e.file] = file
			l.files = append(l.files, e.file)
		}
		target.file = file
		own := heldOwn{lists: e.own}
		target.held.start = uint32(len(l.held))
		l.held = append(l.held, e.held...)
		for j := range e.findings { // a model dir's
			l.held = append(l.held, holdFinding(&e.findings[j], -1, e.name, e.file, &own))
		}
		target.held.end = uint32(len(l.held))
		target.links.start = uint32(len(l.links))
		values := uint32(names.Len())
		names.WriteString(e.linkValues)
		for _, note := range e.links {
			note.value.start += values
			note.value.end += values
			l.links = append(l.links, note)
		}
		target.links.end = uint32(len(l.links))
		if own.lists != nil {
			target.own = int32(len(l.owns))
			l.owns = append(l.owns, own.lists)
		}
		l.targets = append(l.targets, target)
		l.all[i] = nil
	}
	l.names = names.String()
	l.all = nil
}

// appendLinks appends the links to dst. With release, the notes go once
// written (a later call writes none); without, they are written again at
// the next call.
func (l *linted) appendLinks(dst []string, release bool) []string {
	for i := range l.targets {
		target := &l.targets[i]
		own := heldOwn{run: l.texts, lists: l.own(target)}
		name := l.name(target)
		for j := target.links.start; j < target.links.end; j++ {
			dst = append(dst, l.links[j].line(name, l.names, &own))
		}
		if release {
			target.links = span{}
		}
	}
	if release {
		l.links = nil
	}
	return dst
}

// appendFindings appends the findings to dst, made from those held, with
// their suppressions. With release, the held findings go once made (a
// later call makes none); without, they are made again at the next call.
func (l *linted) appendFindings(dst []lint.Finding, release bool) []lint.Finding {
	start := len(dst)
	dst = slices.Grow(dst, l.findingCount())
	for i := range l.targets {
		target := &l.targets[i]
		own := heldOwn{rules: l.rules, run: l.texts, lists: l.own(target)}
		name, file := l.name(target), l.files[target.file]
		for j := target.held.start; j < target.held.end; j++ {
			dst = append(dst, l.held[j].finding(name, file, &own))
		}
		if release {
			target.held, target.own = span{}, -1
		}
	}
	if release {
		l.held, l.owns = nil, nil
	}
	dst = append(dst, l.rejected...)
	return append(dst[:start], l.suppressor.apply(dst[start:])...)
}

// findingCount is how many findings appendFindings appends, less those of
// suppressions.
func (l *linted) findingCount() int {
	return len(l.held) + len(l.rejected)
}

// noteDroppedSecrets says how many secret values the reports may show.
func noteDroppedSecrets(result *lint.Result, secrets *redact.Set) {
	if dropped := secrets.Dropped(); dropped > 0 {
		result.Notes = append(result.Notes, fmt.Sprintf("%d values of Secret objects and image env past the first %d are not hidden in the reports",
			dropped, redact.MaxValues))
	}
}

// workloadStage lints the targets of the workload phase, each on its own.
type workloadStage struct {
	config *lint.Config
	linker *linker
	// linksFirst says the bundles and links were made before (see Run).
	linksFirst bool
	checks     checker
	units      unitSet
	suppressor *suppressor
	// replayed are the starts replayed while the images were read.
	replayed *starts
}

// prepare makes a target's bundles and links.
func (s *workloadStage) prepare(target *lint.Target) {
	buildBundles(target, s.config, s.replayed, s.units.of(target))
	if target.Workload != nil {
		s.linker.link(target)
	}
}

// lint runs the rules on a target, holding its workload's typed fields.
// Once they are done, nothing reads its bundles or links, and nothing but
// its name reads its workload: what the end of the run needs of it is read
// here, and the workload is done (manifest.Workload.Done).
func (s *workloadStage) lint(target *lint.Target) *evaluated {
	var done *evaluated
	err := holding(target, func() {
		if !s.linksFirst {
			s.prepare(target)
		}
		done = s.checks.run(target, s.units.of(target))
		own := heldOwn{run: s.checks.texts, lists: done.own}
		done.links, done.linkValues = linkNotes(target, &own)
		done.own = own.lists
		if target.Workload != nil {
			s.suppressor.learn(target.Workload)
		}
	})
	target.Bundles, target.Links = nil, nil
	if err != nil {
		return &evaluated{target: target, err: err}
	}
	if target.Workload != nil {
		target.Workload.Done()
	}
	return done
}

// holding runs work with the typed fields of the target's workload, if it
// has one, decoded (see manifest.Workload.Hold).
func holding(target *lint.Target, work func()) error {
	if target.Workload == nil {
		work()
		return nil
	}
	if err := target.Workload.Hold(); err != nil {
		return err
	}
	defer target.Workload.Release()
	work()
	return nil
}

// firstError is the first error of a list in its order, nil when none.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// excludes are the paths a walk leaves out: the config's exclude: globs,
// relative to the config file, then --exclude, relative to the working dir.
func excludes(options Options, config *lint.Config) []Exclude {
	var list []Exclude
	if len(config.Exclude) > 0 {
		dir := "."
		if config.Path != "" {
			dir = filepath.Dir(config.Path)
		}
		list = append(list, Exclude{Dir: dir, Patterns: config.Exclude})
	}
	if len(options.Exclude) > 0 {
		list = append(list, Exclude{Dir: ".", Patterns: options.Exclude})
	}
	return list
}

// unitSet is, per unit (a PATH argument, a rendered chart or overlay, a
// deployment beside another under a PATH), the set of its objects and of
// the units it lies in: references resolve within them only.
type unitSet struct {
	all    *manifest.Set
	byUnit map[int]*manifest.Set
}

func unitSets(files []*manifest.File, all *manifest.Set, parents map[int]int) unitSet {
	grouped := map[int][]*manifest.File{}
	for _, file := range files {
		grouped[file.Unit] = append(grouped[file.Unit], file)
	}
	sets := unitSet{all: all, byUnit: map[int]*manifest.Set{}}
	if len(grouped) < 2 {
		return sets
	}
	for unit, group := range grouped {
		for parent, ok := parents[unit]; ok; parent, ok = parents[parent] {
			group = append(group[:len(group):len(group)], grouped[parent]...)
		}
		sets.byUnit[unit] = all.Subset(group)
	}
	return sets
}

// sets are every set a target's rules may see.
func (u unitSet) sets() []*manifest.Set {
	sets := []*manifest.Set{u.all}
	for _, set := range u.byUnit {
		sets = append(sets, set)
	}
	return sets
}

// of is the set a target's rules see: its own unit's objects.
func (u unitSet) of(target *lint.Target) *manifest.Set {
	if target.Workload != nil {
		if set := u.byUnit[target.Workload.Object.File.Unit]; set != nil {
			return set
		}
	}
	return u.all
}

// checkStdin makes an empty standard input an error: a failed `helm
// template |` upstream must not pass as a clean deployment.
func checkStdin(r *lint.Result, paths []string, files []*manifest.File) {
	for _, path := range paths {
		if path != "-" {
			continue
		}
		for _, file := range files {
			if file.Path == "<stdin>" && len(file.Objects) > 0 {
				return
			}
		}
		r.InputErrors = append(r.InputErrors, lint.InputError{File: "<stdin>", Message: "no Kubernetes objects on standard input"})
	}
}

// evaluated is what the rules found on one target, and how each ended.
// The records are kept compact while the run holds every object in memory
// (10,000 workloads record ~400,000 of them) and become Evaluations at the
// end, once.
type evaluated struct {
	// target is nil once a workload phase target is linted.
	target *lint.Target
	// starts are the target's Starts, as its rules recorded them.
	starts []lint.StartEstimate
	// name and file are the target's (Target.Name, Target.File).
	name, file string
	// findings are a model dir's, which the cross rules read
	// (Link.ModelFindings); every other target's are held.
	findings []lint.Finding
	held     []heldFinding
	own      *ownLists
	records  []record
	// unlistedSkips counts the skipped checks not recorded (RecordNone).
	unlistedSkips int
	// links say how the target's serving containers found their models
	// (Result.Links); linkValues has their values.
	links      []linkNote
	linkValues string
	// err is why the target's workload could not be read again.
	err error
	// line is the target's (Target.Line), read while its document is there.
	line int
}

// record is one rule's end on the target of its evaluated.
type record struct {
	rule   *lint.Rule
	status lint.Status
	reason string // why it was skipped
}

// checker runs the rules on targets, with what every check shares.
type checker struct {
	rules        []*lint.Rule
	ruleIndexes  map[string]int
	config       *lint.Config
	nodes        *cluster.Facts
	records      Records
	withoutFixes bool
	secrets      *redact.Set
	texts        *texts
}

// run runs the rules that apply to a target.
func (c *checker) run(target *lint.Target, set *manifest.Set) *evaluated {
	applies := make([]*lint.Rule, 0, len(c.rules))
	for _, rule := range c.rules {
		if rule.Check != nil && appliesTo(rule, target) {
			applies = append(applies, rule) // not the rules the engine reports itself (MDL001, MDL002), or for another kind of target
		}
	}
	// Held until the run ends, so without the room appending leaves.
	out := &evaluated{target: target, name: target.Name(), file: target.File(), line: target.Line()}
	if c.records == RecordAll {
		out.records = make([]record, 0, len(applies))
	}
	// The findings gather in a reused slice and are kept in one of their
	// size, and one Pass serves the target's rules in turn (see
	// docs/performance.md).
	scratch := findingScratch.Get().(*[]lint.Finding)
	out.findings = (*scratch)[:0]
	reports := &reporter{target: target, withoutFixes: c.withoutFixes, secrets: c.secrets, texts: c.texts}
	pass := newPass(reports, set, c.config, c)
	for _, rule := range applies {
		c.check(out, pass, reports, rule)
	}
	found := out.findings
	if target.Workload == nil && target.Model != nil {
		out.findings = slices.Clone(found)
	} else {
		out.findings = nil
		out.held = make([]heldFinding, len(found))
		own := heldOwn{rules: c.rules, run: c.texts}
		for i := range found {
			rule, known := c.ruleIndexes[found[i].RuleID]
			if !known {
				rule = -1
			}
			out.held[i] = holdFinding(&found[i], rule, out.name, out.file, &own)
		}
		out.own = own.lists
	}
	out.starts = target.Starts
	clear(found) // what they point to is not held by the pool
	*scratch = found[:0]
	findingScratch.Put(scratch)
	return out
}

// findingScratch holds the slices findings gather in, see run.
var findingScratch = sync.Pool{New: func() any { return new([]lint.Finding) }}

// check runs one rule on the target of e with pass, the target's, and
// records how it ended.
func (c *checker) check(e *evaluated, pass *lint.Pass, reports *reporter, rule *lint.Rule) {
	target := e.target
	end := record{rule: rule, status: lint.StatusPass}
	if missing := missingFacts(target, rule); missing != "" {
		end.status, end.reason = lint.StatusSkip, missing
	} else {
		pass.Rule = rule
		reports.rule, reports.findings, reports.skip = rule, reports.findings[:0], ""
		rule.Check(pass)
		if target.Baked != nil {
			locateBaked(target.Baked, reports.findings)
		}
		switch {
		case len(reports.findings) > 0:
			end.status = lint.StatusFail
		case reports.skip != "":
			end.status, end.reason = lint.StatusSkip, reports.skip
		}
		e.findings = append(e.findings, reports.findings...)
	}
	switch {
	case c.records == RecordAll, c.records == RecordSkipped && end.status == lint.StatusSkip:
		e.records = append(e.records, end)
	case end.status == lint.StatusSkip:
		e.unlistedSkips++
	}
}

// addRecords appends the records of each target as Evaluations: those of
// one target share its name and file.
func addRecords(r *lint.Result, all []*evaluated) {
	records := 0
	for _, e := range all {
		records += len(e.records)
	}
	r.Evaluations = slices.Grow(r.Evaluations, records)
	for _, e := range all {
		r.UnlistedSkips += e.unlistedSkips
		named := lint.Evaluation{Target: e.name, File: e.file, Line: e.line}
		for _, end := range e.records {
			evaluation := named
			evaluation.RuleID, evaluation.Status, evaluation.Reason = end.rule.ID, end.status, end.reason
			r.Evaluations = append(r.Evaluations, evaluation)
		}
	}
}

// What MDL002 advises after the API server's own message: an object the
// API server rejects is not linted further (invalidAdvice); one with
// unknown fields is linted as read (unknownAdvice).
const (
	invalidAdvice = ": the API server rejects the object, so nothing of it is deployed; " +
		"fix the value (modellint does not check the rest of this object until then)"
	unknownAdvice = "; remove it or move it where the API defines it"
	refusedAdvice = ": the API server rejects the object; change the value to one the schema allows"
)

// rejectedFindings reports each problem the API server would reject the
// object for as MDL002 at its field, its message followed by advice.
func rejectedFindings(problems []*manifest.InvalidError, rules []*lint.Rule, advice string, secrets *redact.Set) []lint.Finding {
	rule := ruleByID(rules, lint.InvalidRuleID)
	if rule == nil {
		return nil
	}
	var findings []lint.Finding
	for _, problem := range problems {
		object := problem.Object
		file, pos := object.Where(problem.Path)
		severity := rule.Severity
		if problem.Unsure && !rule.SeverityConfigured {
			severity = min(severity, lint.Warning)
		}
		message := problem.Message + advice
		if problem.Unsure {
			// The cluster's CRD decides: say how to give it.
			message += ", or give the cluster's CRDs with --crds (kubectl get crd " + problem.CRD + " -o yaml)"
		}
		finding := lint.Finding{
			RuleID: rule.ID, RuleName: rule.Name, Severity: severity,
			Message:  message,
			Location: lint.Location{File: file, Line: pos.Line, Column: pos.Column, Path: object.FullPath(problem.Path)},
			Target:   object.ID(),
			Related:  helperCall(object, problem.Path),
		}
		redactFinding(&finding, secrets) // the API server's message quotes the value
		findings = append(findings, finding)
	}
	return findings
}

// ruleIndexes maps the ID of each rule to its place in rules.
func ruleIndexes(rules []*lint.Rule) map[string]int {
	indexes := make(map[string]int, len(rules))
	for i, rule := range rules {
		indexes[rule.ID] = i
	}
	return indexes
}

// ruleByID returns the enabled rule with an ID, or nil when it is disabled.
func ruleByID(rules []*lint.Rule, id string) *lint.Rule {
	for _, rule := range rules {
		if rule.ID == id {
			return rule
		}
	}
	return nil
}

// unread lowers the errors of a model dir with no version that no server
// of the linted workloads reads (a sample config.pbtxt beside the docs) to
// warnings: they fail no pod of these manifests. A model dir linted alone,
// with no manifests, keeps them, and so does one with versions, which a
// server whose path is not known (the image not read) may serve.
func unread(findings []lint.Finding) {
	for i := range findings {
		if findings[i].Severity == lint.Error {
			findings[i].Severity = lint.Warning
			findings[i].Message += "; no server of the linted manifests reads this model dir, so it fails no pod of theirs"
		}
	}
}
