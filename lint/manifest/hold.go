package manifest

import (
	"fmt"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
)

// Typed objects are most of what a run holds, more than the objects' field
// tables and sources together. A workload's typed fields (its pod spec, its
// containers, its controller's spec) are read only while the engine works
// on that workload, so a set made with ReleaseTyped drops them once the
// workloads are extracted, and decodes them again, from the field table,
// while the engine holds the workload. The field tables, names, paths and
// everything the engine sets on a workload or container stay.

// typedHolds counts who holds the typed fields of one object's workloads.
type typedHolds struct {
	mu    sync.Mutex
	count int
	// workloads are the object's workloads, given their typed fields back
	// when the first holder comes.
	workloads []*Workload
	// done counts the workloads the caller is done with (see Done).
	done int
}

// readAcrossWorkloads are the kinds whose typed pod specs or documents
// the rules of other workloads read (an InferenceService mounts the
// volumes of the ServingRuntimes; a Seldon Server's findings are placed on
// its ServerConfig's lines), so they are never released: rules run on
// every CPU, and one workload's rules must not find another's fields gone.
var readAcrossWorkloads = map[string]bool{"ServingRuntime": true, "ClusterServingRuntime": true, "ServerConfig": true}

// releaseTyped drops the typed fields of the object's workloads until a
// Hold. A workload that creates objects (a RayCluster's auth Secret) is
// read by the rules of the workloads that reference them, so it is kept.
func (o *Object) releaseTyped(workloads []*Workload) {
	if len(workloads) == 0 || readAcrossWorkloads[o.Kind] || createsObjects(o) {
		return
	}
	o.holds = &typedHolds{workloads: workloads}
	o.dropTyped()
}

// Hold makes the typed fields of the workload (Spec, its Containers'
// corev1.Container, Deployment, StatefulSet, Job) readable until the
// matching Release; the object's other workloads get theirs back too. In
// a set made without ReleaseTyped they are always there, and Hold does
// nothing. It is safe to call from several goroutines.
func (w *Workload) Hold() error {
	holds := w.Object.holds
	if holds == nil {
		return nil
	}
	if err := w.Object.File.awake(); err != nil {
		return err
	}
	holds.mu.Lock()
	defer holds.mu.Unlock()
	if holds.count == 0 {
		if err := w.Object.restoreTyped(holds.workloads); err != nil {
			return err
		}
	}
	holds.count++
	return nil
}

// Release ends a Hold: when no one holds the workload any more, its typed
// fields are dropped again.
func (w *Workload) Release() {
	holds := w.Object.holds
	if holds == nil {
		return
	}
	holds.mu.Lock()
	defer holds.mu.Unlock()
	if holds.count--; holds.count == 0 {
		w.Object.dropTyped()
	}
}

// Done says the caller is done with the workload for good, its typed
// fields released. In a set made with ReleaseTyped, the workload's
// containers go; once every workload of an object is done, the object's
// document (its field table and text) goes, if the object is a whole
// document; and once every workload of a file is done, the file's source
// goes (see File.MarkedLines). So a run does not hold to its end what it has
// already linted. A workload's name and its object's kind, name, namespace
// and file stay. Nothing may read what went (RetiredReads). The workloads
// other workloads' rules read (readAcrossWorkloads) keep their containers
// and documents.
func (w *Workload) Done() {
	object := w.Object
	if holds := object.holds; holds != nil {
		// Under the lock a Hold of another workload of the object
		// restores them all under.
		holds.mu.Lock()
		w.Containers, w.done = nil, true
		if holds.done++; holds.done == len(holds.workloads) && object.Base == "" {
			object.Doc.retire()
		}
		holds.mu.Unlock()
	}
	if file := object.File; file.droppable && file.pending.Add(-1) == 0 {
		file.dropSource()
	}
}

// retiredReads counts reads of dropped documents.
var retiredReads atomic.Int64

// RetiredReads is how many times a dropped document was read (see Done):
// such a read finds nothing, so the tests check that none happens.
func RetiredReads() int64 { return retiredReads.Load() }

// restoreTyped decodes the object again and gives its workloads the typed
// fields of the new decode. The extraction is the one that made them, on
// the same field table, so it gives the same workloads and containers in
// the same order.
func (o *Object) restoreTyped(workloads []*Workload) error {
	o.retype()
	if o.retakeTyped(workloads) {
		return nil
	}
	fresh, err := extractWorkloads(o)
	if err == nil && len(fresh) != len(workloads) {
		err = fmt.Errorf("%d workloads, not %d", len(fresh), len(workloads))
	}
	for i := 0; err == nil && i < len(workloads); i++ {
		err = workloads[i].takeTyped(fresh[i])
	}
	if err != nil {
		return fmt.Errorf("%s: %s read again: %w", o.File.Path, o.ID(), err)
	}
	return nil
}

// retakeTyped gives the workload of a plain pod template (a Deployment, a
// Job) the typed fields of the new decode in place, without extracting it
// again (recognising its servers, reading its annotations); false, having
// changed nothing, when the object is not one or its containers differ.
func (o *Object) retakeTyped(workloads []*Workload) bool {
	key := o.Group() + "/" + o.Kind
	template, plain := podTemplates[key]
	if _, multiple := multiTemplateKinds[key]; multiple || !plain || key == "kaito.sh/Workspace" || len(workloads) != 1 {
		return false
	}
	w := workloads[0]
	spec := typedFieldOf[corev1.PodSpec](o, splitPath(template.spec))
	if spec == nil || w.SpecPath != template.spec || len(spec.InitContainers)+len(spec.Containers) != len(w.Containers) {
		return false
	}
	for i, container := range w.Containers {
		if container.Init != (i < len(spec.InitContainers)) {
			return false
		}
	}
	if w.done {
		return true // its containers are gone, and nothing reads its typed fields
	}
	restored := *w
	restored.Spec, restored.Deployment, restored.StatefulSet, restored.Job = spec, nil, nil, nil
	if restored.decodeController(key) != nil {
		return false
	}
	w.Spec, w.Deployment, w.StatefulSet, w.Job = restored.Spec, restored.Deployment, restored.StatefulSet, restored.Job
	for i, container := range w.Containers {
		if container.Init {
			container.Container = &spec.InitContainers[i]
		} else {
			container.Container = &spec.Containers[i-len(spec.InitContainers)]
		}
	}
	return true
}

// takeTyped takes the typed fields of fresh, the same workload extracted
// again.
func (w *Workload) takeTyped(fresh *Workload) error {
	if w.done {
		return nil // its containers are gone, and nothing reads its typed fields
	}
	if len(fresh.Containers) != len(w.Containers) {
		return fmt.Errorf("%d containers, not %d", len(fresh.Containers), len(w.Containers))
	}
	w.Spec, w.Deployment, w.StatefulSet, w.Job = fresh.Spec, fresh.Deployment, fresh.StatefulSet, fresh.Job
	for i, container := range w.Containers {
		container.Container = fresh.Containers[i].Container
	}
	return nil
}

// dropTyped drops the typed fields of the object's workloads and its typed
// object.
func (o *Object) dropTyped() {
	for _, w := range o.holds.workloads {
		w.Spec, w.Deployment, w.StatefulSet, w.Job = nil, nil, nil, nil
		for _, container := range w.Containers {
			container.Container = nil
		}
	}
	if o.strict != nil && o.strict.typed != nil {
		o.strict.typed = nil
	}
}
