package engine

import (
	"slices"
	"strings"

	"github.com/modellint/modellint/internal/parallel"
	"github.com/modellint/modellint/internal/redact"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// A run holds every object of its PATHs until its rules have run, because
// any workload's rules may read any of them. In a tree of plain manifests
// where each namespace has its own files, the rules of a workload read the
// objects of its own namespace only (references, Services, disruption
// budgets, limits: see Set.ReleaseNamespace), so such a run is linted one
// namespace at a time, each namespace's files read as its turn comes, and
// holds one namespace's objects at a time: its findings are the same, for
// a first, shorter read of every file that finds the namespaces.

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

// batchWorkloadKinds are the kinds of batchKinds that are workloads: a
// name two files give a workload splits the files into units (splitUnits),
// which takes every file of the PATH to decide.
var batchWorkloadKinds = map[string]bool{"Pod": true, "Deployment": true, "StatefulSet": true, "DaemonSet": true,
	"ReplicaSet": true, "Job": true, "CronJob": true}

// namespaceBatches is the walk's pending manifest files cut into batches,
// one per namespace in walk order, when the run can be linted a batch at a
// time with the findings, notes and order it has whole; nil when it cannot.
// It can when it reads manifest files alone (no charts, overlays, model
// dirs, images, standard input, links to models or images given, CRDs or
// ignore entries, which the whole run shares), every object is of
// batchKinds with a namespace, outside a List, each file holds one
// namespace, each namespace's files follow one another in walk order, and
// no two files name the same workload. The values of the Secrets of every
// batch are added to secrets before the first is linted, as a whole run
// adds them.
func namespaceBatches(w *walker, options Options, config *lint.Config, secrets *redact.Set) [][]pendingLoad {
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
		total += p.info.Size()
	}
	if total < past {
		return nil
	}
	indexes := parallel.Map(w.pending, indexFile)
	var batches [][]pendingLoad
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
			batches = append(batches, nil)
		}
		if len(batches) == 0 {
			batches = append(batches, nil) // files of no object before the first namespace's
		}
		batches[len(batches)-1] = append(batches[len(batches)-1], w.pending[i])
	}
	if len(batches) < 2 {
		return nil
	}
	for _, index := range indexes {
		addValues(secrets, index.secrets)
	}
	return batches
}

// fileIndex is what namespaceBatches reads of a file.
type fileIndex struct {
	// ok says the file was read and parsed, and holds only objects a batch
	// may hold, all of one namespace.
	ok        bool
	namespace string
	// workloads are the names of its workloads.
	workloads []string
	// secrets are the values of its Secrets, in the order
	// addSecretValues adds them.
	secrets []secretValue
}

// secretValue is a value of a Secret: of its data, base64-encoded, or of
// its stringData.
type secretValue struct {
	text    string
	encoded bool
}

// indexFile reads and parses a file for namespaceBatches. A file it cannot
// read or parse leaves the run whole, which reports why.
func indexFile(p pendingLoad) fileIndex {
	source, err := readManifest(p.file, p.info)
	if err != nil {
		return fileIndex{}
	}
	file, err := manifest.Load(p.path, source)
	if err != nil {
		return fileIndex{}
	}
	index := fileIndex{ok: true}
	for _, object := range file.Objects {
		if object.Base != "" || object.Namespace == "" || !batchKinds[object.Group()][object.Kind] ||
			(index.namespace != "" && object.Namespace != index.namespace) {
			return fileIndex{}
		}
		index.namespace = strings.Clone(object.Namespace)
		if batchWorkloadKinds[object.Kind] {
			index.workloads = append(index.workloads, strings.Clone(object.Name))
		}
		if object.Kind == "Secret" {
			index.secrets = append(index.secrets, secretValues(object)...)
		}
	}
	return index
}

// addParts adds the batches' results to the run's, each list made once in
// its size.
func addParts(result *lint.Result, parts []*lint.Result) {
	result.Files = joined(result.Files, parts, func(r *lint.Result) *[]string { return &r.Files })
	result.Findings = joined(result.Findings, parts, func(r *lint.Result) *[]lint.Finding { return &r.Findings })
	result.Evaluations = joined(result.Evaluations, parts, func(r *lint.Result) *[]lint.Evaluation { return &r.Evaluations })
	result.Notes = joined(result.Notes, parts, func(r *lint.Result) *[]string { return &r.Notes })
	result.Links = joined(result.Links, parts, func(r *lint.Result) *[]string { return &r.Links })
	result.InputErrors = joined(result.InputErrors, parts, func(r *lint.Result) *[]lint.InputError { return &r.InputErrors })
	result.Unused = joined(result.Unused, parts, func(r *lint.Result) *[]string { return &r.Unused })
	result.Starts = joined(result.Starts, parts, func(r *lint.Result) *[]lint.StartEstimate { return &r.Starts })
	for _, part := range parts {
		result.UnlistedSkips += part.UnlistedSkips
	}
}

// joined is list followed by each part's list, which goes once copied: a
// large run's findings are not held twice.
func joined[T any](list []T, parts []*lint.Result, of func(*lint.Result) *[]T) []T {
	n := len(list)
	for _, part := range parts {
		n += len(*of(part))
	}
	out := slices.Grow(list, n-len(list))
	for _, part := range parts {
		out = append(out, *of(part)...)
		*of(part) = nil
	}
	return out
}

// LintsInBatches says whether a run of options, which must not read
// standard input, is linted a namespace at a time.
func LintsInBatches(options Options) bool {
	config := options.Config
	if config == nil {
		config = &lint.Config{}
	}
	w := walk(options.Paths, nil, excludes(options, config), options.Outputs)
	return namespaceBatches(w, options, config, &redact.Set{}) != nil
}
