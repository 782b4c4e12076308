package manifest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// holdSource has a workload of each shape the typed fields come from: a
// clean built-in object (read off its typed object), one with an unknown
// field (decoded on its own), controllers with specs, objects with several
// workloads (an InferenceService's components, a LeaderWorkerSet's leader
// and workers), a model shorthand container, and a ServingRuntime, which is
// never released.
const holdSource = `apiVersion: apps/v1
kind: Deployment
metadata: {name: clean}
spec:
  replicas: 2
  template:
    spec:
      initContainers: [{name: fetch, image: busybox}]
      containers: [{name: server, image: vllm/vllm-openai, args: [--model, /models/m]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: unknown-field}
spec:
  template:
    spec:
      containers: [{name: server, image: tensorflow/serving, securityContext: {fsGroup: 1}}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: sts}
spec:
  template:
    spec:
      containers: [{name: server, image: nvcr.io/nvidia/tritonserver}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 0 * * *"
  jobTemplate:
    spec:
      completionMode: Indexed
      template:
        spec:
          containers: [{name: job, image: python}]
---
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: isvc}
spec:
  predictor:
    model: {modelFormat: {name: sklearn}, storageUri: "gs://bucket/model"}
  transformer:
    containers: [{name: transformer, image: example.com/transformer}]
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws}
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers: [{name: leader, image: vllm/vllm-openai}]
    workerTemplate:
      spec:
        containers: [{name: worker, image: vllm/vllm-openai}]
---
apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata: {name: runtime}
spec:
  containers: [{name: kserve-container, image: kserve/sklearnserver}]
  volumes: [{name: cache, emptyDir: {}}]
`

// typedFields are the fields a release drops, as one comparable value.
type typedFields struct {
	Spec, Deployment, StatefulSet, Job any
	Containers                         []any
}

func typedOf(w *Workload) typedFields {
	fields := typedFields{Spec: w.Spec, Deployment: w.Deployment, StatefulSet: w.StatefulSet, Job: w.Job}
	for _, container := range w.Containers {
		fields.Containers = append(fields.Containers, container.Container)
	}
	return fields
}

func holdSets(t *testing.T) (kept, released *Set) {
	t.Helper()
	for _, options := range [][]SetOption{nil, {ReleaseTyped()}} {
		file, err := Load("hold.yaml", []byte(holdSource))
		if err != nil {
			t.Fatal(err)
		}
		set, err := NewSet([]*File{file}, options...)
		if err != nil {
			t.Fatal(err)
		}
		if options == nil {
			kept = set
		} else {
			released = set
		}
	}
	if len(kept.Workloads) != 9 || len(released.Workloads) != len(kept.Workloads) {
		t.Fatalf("%d and %d workloads, want 9", len(kept.Workloads), len(released.Workloads))
	}
	return kept, released
}

func TestHoldGivesTheTypedFieldsBack(t *testing.T) {
	kept, released := holdSets(t)
	for i, w := range released.Workloads {
		want := typedOf(kept.Workloads[i])
		neverReleased := w.Object.Kind == "ServingRuntime"
		if got := typedOf(w); !neverReleased && (w.Spec != nil || w.Containers[0].Container != nil) {
			t.Errorf("%s: typed fields %+v before a hold", w.Name(), got)
		}
		if w.Containers[0].Image != kept.Workloads[i].Containers[0].Image {
			t.Errorf("%s: image %q unreadable without a hold", w.Name(), w.Containers[0].Image)
		}
		for holds := 0; holds < 2; holds++ {
			if err := w.Hold(); err != nil {
				t.Fatal(err)
			}
		}
		if got := typedOf(w); !reflect.DeepEqual(got, want) {
			t.Errorf("%s held: %+v, want %+v", w.Name(), got, want)
		}
		w.Release()
		if got := typedOf(w); !reflect.DeepEqual(got, want) {
			t.Errorf("%s still held once: %+v, want %+v", w.Name(), got, want)
		}
		w.Release()
		if !neverReleased && w.Spec != nil {
			t.Errorf("%s: typed fields kept after the last release", w.Name())
		}
		if neverReleased && !reflect.DeepEqual(typedOf(w), want) {
			t.Errorf("%s: released, but other workloads' rules read it", w.Name())
		}
	}
}

// TestRetakeTyped checks which workloads a hold gives their typed fields
// in place (retakeTyped) rather than by extracting them again: those of
// the plain pod templates read off a typed object.
func TestRetakeTyped(t *testing.T) {
	_, released := holdSets(t)
	retaken := map[string]bool{}
	for _, w := range released.Workloads {
		if w.Object.holds == nil {
			continue
		}
		w.Object.retype()
		retaken[w.Name()] = w.Object.retakeTyped(w.Object.holds.workloads)
	}
	want := map[string]bool{"Deployment/clean": true, "Deployment/unknown-field": false, "StatefulSet/sts": true,
		"CronJob/nightly": true}
	for name, retake := range want {
		if retaken[name] != retake {
			t.Errorf("%s retaken %v, want %v (all: %v)", name, retaken[name], retake, retaken)
		}
	}
}

// TestHoldsOfOneObjectOnEveryCPU holds the workloads of one object from
// several goroutines at once, as the engine's workers do (run with -race).
func TestHoldsOfOneObjectOnEveryCPU(t *testing.T) {
	kept, released := holdSets(t)
	var wg sync.WaitGroup
	for worker := 0; worker < 4; worker++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 50; round++ {
				for i, w := range released.Workloads {
					if err := w.Hold(); err != nil {
						t.Error(err)
						return
					}
					if w.Spec == nil || !reflect.DeepEqual(*w.Spec, *kept.Workloads[i].Spec) {
						t.Errorf("%s: pod spec %v while held", w.Name(), w.Spec)
					}
					w.Release()
				}
			}
		}()
	}
	wg.Wait()
}

func TestSubsetKeepsTheWorkloads(t *testing.T) {
	var files []*File
	for _, name := range []string{"a.yaml", "b.yaml"} {
		file, err := Load(name, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: "+name[:1]+"}\nspec: {containers: [{name: c, image: i}]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
	}
	set, err := NewSet(files, ReleaseTyped())
	if err != nil {
		t.Fatal(err)
	}
	subset := set.Subset(files[1:])
	if len(subset.Workloads) != 1 || subset.Workloads[0] != set.Workloads[1] {
		t.Fatalf("subset workloads %v, want the second of %v", subset.Workloads, set.Workloads)
	}
	if subset.Find("Pod", "", "b") == nil || subset.Find("Pod", "", "a") != nil {
		t.Error("the subset finds objects of other files, or not its own")
	}
}

func TestDoneDropsDocumentsAndSource(t *testing.T) {
	source := "# modellint:ignore MDL205 batch\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, image: i}]}\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {app: a}}\n" +
		"---\napiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: lws}\nspec:\n  leaderWorkerTemplate:\n    size: 2\n" +
		"    leaderTemplate: {spec: {containers: [{name: leader, image: i}]}}\n    workerTemplate: {spec: {containers: [{name: worker, image: i}]}}\n"
	file, err := Load("done.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet([]*File{file}, ReleaseTyped())
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Workloads) != 3 {
		t.Fatalf("%d workloads, want 3", len(set.Workloads))
	}
	pod, leader, worker := set.Workloads[0], set.Workloads[1], set.Workloads[2]
	service := set.Find("Service", "", "s")
	reads := RetiredReads()
	pod.Done()
	if pod.Object.Has("spec") || RetiredReads() != reads+1 {
		t.Error("the pod's document is read after Done, and the read is not counted")
	}
	leader.Done()
	if !worker.Object.Has("spec") || len(file.Source) == 0 {
		t.Error("the LeaderWorkerSet's document or the file's source went while its workers are not done")
	}
	if err := worker.Hold(); err != nil || worker.Containers[0].Container == nil || worker.Containers[0].Name != "worker" {
		t.Fatalf("the worker held after the leader is done: %v", err)
	}
	worker.Release()
	worker.Done()
	if worker.Object.Has("spec") || file.Source != nil {
		t.Error("the LeaderWorkerSet's document or the file's source stays once every workload is done")
	}
	if !service.Has("spec.selector") {
		t.Error("a Service's document went with the workloads'")
	}
	if got := file.MarkedLines()[1]; got != "# modellint:ignore MDL205 batch" || file.MarkedLines()[2] != "" {
		t.Errorf("marked line 1 %q, line 2 %q after the source went", got, file.MarkedLines()[2])
	}
	if pod.Name() != "Pod/a" || pod.Object.Kind != "Pod" {
		t.Errorf("name %q, kind %q after Done", pod.Name(), pod.Object.Kind)
	}
}

// TestDoneBesideHolds: one workload of an object is done while another is
// held on another goroutine, as the engine's workers do (run with -race).
func TestDoneBesideHolds(t *testing.T) {
	source := "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: lws}\nspec:\n  leaderWorkerTemplate:\n    size: 2\n" +
		"    leaderTemplate: {spec: {containers: [{name: leader, image: i}]}}\n    workerTemplate: {spec: {containers: [{name: worker, image: i}]}}\n"
	for round := 0; round < 50; round++ {
		file, err := Load("lws.yaml", []byte(source))
		if err != nil {
			t.Fatal(err)
		}
		set, err := NewSet([]*File{file}, ReleaseTyped())
		if err != nil || len(set.Workloads) != 2 {
			t.Fatalf("%d workloads, %v", len(set.Workloads), err)
		}
		leader, worker := set.Workloads[0], set.Workloads[1]
		held := make(chan error, 1)
		go func() {
			err := worker.Hold()
			if err == nil && (worker.Spec == nil || worker.Containers[0].Container == nil) {
				err = fmt.Errorf("the worker's typed fields are not there while held")
			}
			worker.Release()
			held <- err
		}()
		leader.Done()
		if err := <-held; err != nil {
			t.Fatal(err)
		}
		worker.Done()
	}
}
