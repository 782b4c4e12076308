package engine

import (
	"iter"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/modellint/modellint/internal/parallel"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// A run holds every object of its PATHs until its rules have run, because
// any workload's rules may read any of them. In a tree of plain manifests
// where each namespace has its own files, the rules of a workload read the
// objects of its own namespace only (references, Services, disruption
// budgets, limits: see Set.ReleaseNamespace), so such a run is linted a
// few namespaces at a time, a batch's files read as its turn comes, and
// holds one batch's objects at a time: its findings are the same, for a
// first, shorter read of every file that finds the namespaces.

// batchesPast is the size of the manifest files from which a run is linted
// a namespace at a time when it can be: below it, the first read costs
// more than the memory it saves.
const batchesPast = 8 << 20

// batchKinds are the kinds, by API group, whose objects a run linted a
// namespace at a time may hold: every rule reads them only for workloads
// of their own namespace. An object of any other kind (custom objects,
// autoscalers, serving runtimes, read across namespaces or composed with
// other objects) keeps the run whole.
var batchKinds = map[string]map[string]bool{
	"": {"Pod": true, "Service": true, "ConfigMap": true, "Secret": true, "PersistentVolumeClaim": true,
		"LimitRange": true, "ResourceQuota": true},
	"apps":   {"Deployment": true, "StatefulSet": true, "DaemonSet": true, "ReplicaSet": true},
	"batch":  {"Job": true, "CronJob": true},
	"policy": {"PodDisruptionBudget": true},
}

// namespaceBatch is the files of one namespace or more, and what the
// first read of each found.
type namespaceBatch struct {
	files   []pendingLoad
	indexes []fileIndex
	// bytes is the files' size.
	bytes int64
}

// namespaceBatches is the walk's pending manifest files cut into batches
// in walk order, when the run can be linted a batch at a time with the
// findings, notes and order it has whole; nil when it cannot. It can when
// it reads manifest files alone (no charts, overlays, model dirs, images,
// standard input, links to models or images given, CRDs or ignore
// entries, which the whole run shares), every object is of batchKinds
// with a namespace, outside a List, each file holds one namespace, each
// namespace's files follow one another in walk order, and no two files
// name the same workload. A batch takes namespaces up to an eighth of the
// size from which runs are batched: each batch has a set, composers and a
// suppressor of its own, and its last workloads leave a CPU idle. The
// values of the Secrets of every batch are known before the first is
// linted (namespaceBatch.indexes), as in a whole run.
func namespaceBatches(w *walker, options Options, config *lint.Config) []namespaceBatch {
	found := w.found
	if len(found.modelDirs) > 0 || len(found.renderDirs) > 0 || len(found.imageSources) > 0 ||
		len(options.CRDs) > 0 || len(config.Ignore) > 0 || options.Image.Registry ||
		len(imageMappings(config, options.Image.Sources)) > 0 || len(newLinker(config, options.Models).mappings) > 0 {
		return nil
	}
	past := options.BatchesPast
	if past <= 0 {
		past = batchesPast
	}
	var total int64
	for _, p := range w.pending {
		if p.file == "" {
			return nil // standard input
		}
		total += p.size
	}
	if total < past {
		return nil
	}
	// A file that keeps the run whole ends the first read: the files not
	// read yet are not.
	var whole atomic.Bool
	indexes := parallel.Map(w.pending, func(p pendingLoad) fileIndex {
		if whole.Load() {
			return fileIndex{}
		}
		index := indexFile(p)
		if !index.ok {
			whole.Store(true)
		}
		return index
	})
	var batches []namespaceBatch
	done := map[string]bool{}
	workloadFiles := map[string]int{}
	current := ""
	for i, index := range indexes {
		if !index.ok {
			return nil
		}
		for _, name := range index.workloads {
			if file, seen := workloadFiles[name]; seen && file != i {
				return nil
			}
			workloadFiles[name] = i
		}
		if index.namespace != "" && index.namespace != current {
			if done[index.namespace] {
				return nil
			}
			done[current], current = true, index.namespace
			if len(batches) == 0 || batches[len(batches)-1].bytes >= past/8 {
				batches = append(batches, namespaceBatch{})
			}
		}
		if len(batches) == 0 {
			batches = append(batches, namespaceBatch{}) // files of no object before the first namespace's
		}
		batch := &batches[len(batches)-1]
		batch.files = append(batch.files, w.pending[i])
		batch.indexes = append(batch.indexes, index)
		batch.bytes += w.pending[i].size
	}
	if len(batches) < 2 {
		return nil
	}
	return batches
}

// fileIndex is what namespaceBatches reads of a file.
type fileIndex struct {
	// ok says the file was read and parsed, and holds only objects a
	// batch may hold, all of one namespace.
	ok        bool
	namespace string
	// workloads are the names of its workloads.
	workloads []string
	// secrets are the values of its Secrets, in the order
	// addObjectSecrets adds them.
	secrets []secretValue
}

// secretValue is a value of a Secret: of its data, base64-encoded, or of
// its stringData.
type secretValue struct {
	text    string
	encoded bool
}

// indexFile reads a file for namespaceBatches: the headers of its
// documents, and its Secrets parsed; the whole file parsed when it is in a
// form ReadHeaders does not read. A file it cannot read or parse leaves
// the run whole, which reports why.
func indexFile(p pendingLoad) fileIndex {
	source, err := readManifest(p.file, p.size)
	if err != nil {
		return fileIndex{}
	}
	headers, read := manifest.ReadHeaders(source)
	if !read {
		file, err := manifest.Load(p.path, source)
		if err != nil {
			return fileIndex{}
		}
		return indexOf(file)
	}
	index := fileIndex{ok: true}
	for _, header := range headers {
		if !index.add(header.APIVersion, header.Kind, header.Name, header.Namespace, false) {
			return fileIndex{}
		}
		if header.Kind != "Secret" {
			continue
		}
		secret, err := manifest.Load(p.path, source[header.Start:header.End])
		if err != nil || len(secret.Objects) != 1 {
			return fileIndex{}
		}
		index.secrets = append(index.secrets, secretValues(secret.Objects[0])...)
	}
	return index
}

// indexOf is the index of a file parsed.
func indexOf(file *manifest.File) fileIndex {
	index := fileIndex{ok: true}
	for _, object := range file.Objects {
		if !index.add(object.APIVersion, object.Kind, object.Name, object.Namespace, object.Base != "") {
			return fileIndex{}
		}
		if object.Kind == "Secret" {
			index.secrets = append(index.secrets, secretValues(object)...)
		}
	}
	return index
}

// add indexes an object; false when a batch may not hold it.
func (index *fileIndex) add(apiVersion, kind, name, namespace string, inList bool) bool {
	group := manifest.APIGroup(apiVersion)
	if inList || namespace == "" || !batchKinds[group][kind] || (index.namespace != "" && namespace != index.namespace) {
		return false
	}
	index.namespace = strings.Clone(namespace)
	// A name two files give a workload splits the files into units
	// (splitUnits), which takes every file of the PATH to decide.
	if manifest.HasPodTemplate(group, kind) {
		index.workloads = append(index.workloads, strings.Clone(name))
	}
	return true
}

// sameIndex says the files loaded for a batch are what its first read
// found: ReadHeaders reads a form of YAML Load reads too, and the files
// may have changed since.
func sameIndex(batch namespaceBatch, loaded *inputs) bool {
	if len(loaded.errors) > 0 || len(loaded.notes) > 0 || len(loaded.manifests) != len(batch.indexes) {
		return false
	}
	// A Secret's values are read from a map, in no order.
	sorted := func(values []secretValue) []secretValue {
		return slices.SortedFunc(slices.Values(values), func(a, b secretValue) int {
			return strings.Compare(a.text, b.text)
		})
	}
	for i, file := range loaded.manifests {
		got, want := indexOf(file), batch.indexes[i]
		if !got.ok || got.namespace != want.namespace || !slices.Equal(got.workloads, want.workloads) ||
			!slices.Equal(sorted(got.secrets), sorted(want.secrets)) {
			return false
		}
	}
	return true
}

// finishParts writes the batches' parts into the run's result in order.
// With inParts, the findings and links are made by parts as the reports
// read them, each part's findings sorted (findingParts), when the parts'
// findings are in the run's order that way (partsInOrder); otherwise they
// are made whole, each part's held findings let go as made: a large run's
// are not held twice.
func finishParts(result *lint.Result, parts []*linted, inParts bool) {
	inParts = inParts && partsInOrder(parts)
	records := 0
	for _, part := range parts {
		records += len(part.result.Evaluations)
	}
	result.Evaluations = slices.Grow(result.Evaluations, records)
	for _, part := range parts {
		if !inParts {
			part.result.Links = part.appendLinks(part.result.Links, true)
		}
		addPart(result, part.result)
		part.result = nil
	}
	if inParts {
		result.SetParts(findingParts(parts), linkParts(parts))
		return
	}
	findings := 0
	for _, part := range parts {
		findings += part.findingCount()
	}
	result.Findings = slices.Grow(result.Findings, findings)
	for i, part := range parts {
		result.Findings = part.appendFindings(result.Findings, true)
		parts[i] = nil
	}
}

// findingParts makes the findings of each part, sorted, each time they
// are read.
func findingParts(parts []*linted) iter.Seq[[]lint.Finding] {
	return func(yield func([]lint.Finding) bool) {
		for _, part := range parts {
			findings := part.appendFindings(nil, false)
			sortFindings(findings)
			if len(findings) > 0 && !yield(findings) {
				return
			}
		}
	}
}

// linkParts makes the links of each part each time they are read
// (redactResult hides the run's secrets in them as they are made).
func linkParts(parts []*linted) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		for _, part := range parts {
			if links := part.appendLinks(nil, false); len(links) > 0 && !yield(links) {
				return
			}
		}
	}
}

// partsInOrder says that the findings of each part name files the reports
// list after every file the findings of the parts before name: then the
// parts, each sorted, are the run's findings sorted.
func partsInOrder(parts []*linted) bool {
	last, started := "", false
	for _, part := range parts {
		first, end, any := part.fileRange()
		if !any {
			continue
		}
		if started && first <= last {
			return false
		}
		last, started = end, true
	}
	return true
}

// fileRange is the first and last file the part's findings name, in the
// reports' order; any is false when it has none.
func (l *linted) fileRange() (first, last string, any bool) {
	see := func(file string) {
		if !any || file < first {
			first = file
		}
		if !any || file > last {
			last = file
		}
		any = true
	}
	for i := range l.targets {
		target := &l.targets[i]
		if slices.ContainsFunc(l.held[target.held.start:target.held.end], func(held heldFinding) bool { return held.rule != wholeFinding }) {
			see(l.files[target.file])
		}
		if own := l.own(target); own != nil {
			for _, whole := range own.whole {
				see(whole.Location.File)
			}
		}
	}
	for _, finding := range l.rejected {
		see(finding.Location.File)
	}
	for finding := range l.suppressor.ownFindings() {
		see(finding.Location.File)
	}
	return first, last, any
}

// addPart adds a batch's result to the run's.
func addPart(result, part *lint.Result) {
	result.Files = append(result.Files, part.Files...)
	result.Findings = append(result.Findings, part.Findings...)
	result.Evaluations = append(result.Evaluations, part.Evaluations...)
	result.UnlistedSkips += part.UnlistedSkips
	result.Notes = append(result.Notes, part.Notes...)
	result.Links = append(result.Links, part.Links...)
	result.InputErrors = append(result.InputErrors, part.InputErrors...)
	result.Unused = append(result.Unused, part.Unused...)
	result.Starts = append(result.Starts, part.Starts...)
}

// batchesRedone counts the batched runs linted whole after all.
var batchesRedone atomic.Int64

// BatchesRedone is how many batched runs were linted whole after all, a
// batch's files not being what the first read found: the tests check that
// none of theirs is.
func BatchesRedone() int64 { return batchesRedone.Load() }

// LintsInBatches says whether a run of options, which must not read
// standard input, is linted a namespace at a time.
func LintsInBatches(options Options) bool {
	config := options.Config
	if config == nil {
		config = &lint.Config{}
	}
	w := walk(options.Paths, nil, excludes(options, config), options.Outputs)
	return namespaceBatches(w, options, config) != nil
}
