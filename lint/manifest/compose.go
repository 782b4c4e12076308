package manifest

import corev1 "k8s.io/api/core/v1"

// Some pods no object holds whole: a controller composes them from
// several objects (lint/compose builds them). These give such a pod to its
// workload, or a new workload to the set.

// ComposeSpec makes spec, a pod spec composed from several objects (a
// Seldon Server's podSpec merged over its ServerConfig's), the workload's
// pod spec: its containers are read from it as Workloads reads them, at
// their paths under SpecPath. The caller holds the workload for the rest
// of the run (Hold), or the next Hold would put the object's own pod spec
// back.
func (w *Workload) ComposeSpec(spec *corev1.PodSpec) {
	w.Spec, w.Containers = spec, nil
	for i := range spec.InitContainers {
		w.addContainer(&spec.InitContainers[i], IndexPath(JoinPath(w.SpecPath, "initContainers"), i), true)
	}
	for i := range spec.Containers {
		w.addContainer(&spec.Containers[i], IndexPath(JoinPath(w.SpecPath, "containers"), i), false)
	}
}

// AddWorkload adds a workload composed after the set was read (a Seldon
// Server with no podSpec of its own, whose pod is its ServerConfig's),
// counted with its file's workloads as NewSet counts them, so that its
// Done is not taken for another workload's.
func (s *Set) AddWorkload(w *Workload) {
	w.name = w.describe()
	if file := w.Object.File; file.droppable {
		file.pending.Add(1)
	}
	s.Workloads = append(s.Workloads, w)
}
