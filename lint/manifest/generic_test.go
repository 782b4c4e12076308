package manifest

import (
	"slices"
	"testing"
)

// TestGenericSingleContainer: a main container held as one map (Dynamo's
// mainContainer, OME's runner) is read as a one-container pod with the pod
// fields of the map that holds it, sidecars of a containers list after it.
func TestGenericSingleContainer(t *testing.T) {
	tests := []struct {
		name, source string
		spec         string   // the pod's spec path
		containers   []string // the containers' paths
		volumes      int
		injected     []string // InjectedEnv of the main container
		note         string
	}{
		{name: "Dynamo's mainContainer",
			source: "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: {name: d}\nspec:\n  services:\n" +
				"    worker:\n      replicas: 1\n      extraPodSpec:\n        volumes: [{name: dshm, emptyDir: {medium: Memory}}]\n" +
				"        containers: [{name: sidecar, image: busybox:1.36}]\n" +
				"        mainContainer: {name: main, image: lmsysorg/sglang:v0.4.9}\n",
			spec:       "spec.services.worker.extraPodSpec",
			containers: []string{"spec.services.worker.extraPodSpec.mainContainer", "spec.services.worker.extraPodSpec.containers[0]"},
			volumes:    1,
			note: "a kind modellint has no reader for, linted as a pod at spec.services.worker.extraPodSpec with its " +
				"container spec.services.worker.extraPodSpec.mainContainer (the fields a pod spec has; what its controller adds is not known)"},
		{name: "OME's runners",
			source: "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: r}\nspec:\n" +
				"  engineConfig:\n    volumes: [{name: dshm, emptyDir: {medium: Memory}}]\n" +
				"    runner: {name: ome-container, image: lmsysorg/sglang:v0.4.9}\n" +
				"  routerConfig:\n    runner: {name: router, image: lmsysorg/sgl-model-gateway:v0.2.3}\n",
			spec:       "spec.engineConfig",
			containers: []string{"spec.engineConfig.runner"},
			volumes:    1,
			injected:   []string{"MODEL_PATH"},
			note: "a kind modellint has no reader for, linted as a pod at spec.engineConfig with its container " +
				"spec.engineConfig.runner, spec.routerConfig with its container spec.routerConfig.runner (the fields a pod spec " +
				"has; what its controller adds is not known)"},
		{name: "a runner of another group gets no env",
			source: "apiVersion: example.com/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  runner: {name: r, image: python:3.12}\n",
			spec:   "spec", containers: []string{"spec.runner"}},
	}
	for _, test := range tests {
		t.Run(test.name, func(t *testing.T) {
			object, workloads := loadWorkloads(t, test.source)
			if len(workloads) == 0 {
				t.Fatal("no workload")
			}
			w := workloads[0]
			var paths []string
			for _, c := range w.Containers {
				paths = append(paths, c.Path)
			}
			if w.SpecPath != test.spec || !slices.Equal(paths, test.containers) || len(w.Spec.Volumes) != test.volumes || !w.Incomplete {
				t.Errorf("pod at %s, containers %q, %d volumes, incomplete %v; want %s, %q, %d, true",
					w.SpecPath, paths, len(w.Spec.Volumes), w.Incomplete, test.spec, test.containers, test.volumes)
			}
			if w.Containers[0].Name != w.Spec.Containers[0].Name || w.Containers[0].Container != &w.Spec.Containers[0] {
				t.Errorf("the main container is not the pod spec's first")
			}
			if !slices.Equal(w.Containers[0].InjectedEnv, test.injected) {
				t.Errorf("injected env %q, want %q", w.Containers[0].InjectedEnv, test.injected)
			}
			if test.note != "" && GenericNote(object) != test.note {
				t.Errorf("note\n  %s\nwant\n  %s", GenericNote(object), test.note)
			}
		})
	}
}
