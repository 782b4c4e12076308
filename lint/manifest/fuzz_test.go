package manifest

import (
	"reflect"
	"testing"
)

// FuzzLoad checks that no input makes the loader, the position index or the
// workload extraction panic, that the values read off the field table are
// the converter's, that the fast strict decode agrees with kjson's, and
// that a released workload's typed fields come back the same when held.
// Seeds live in testdata/fuzz/FuzzLoad.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(deployment))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, spec: {containers: [{name: a}]}}\n"))
	f.Add([]byte("a: &a [1]\nb: [*a, *a]\n<<: *a\n"))
	f.Add([]byte(rayClusterHead("ray.io/v1", "    rayStartParam: {num-cpus: 1}")))
	f.Add([]byte(rollout))
	f.Fuzz(func(t *testing.T, source []byte) {
		checkPlainValues(t, "fuzz.yaml", source)
		file, err := Load("fuzz.yaml", source)
		if err != nil {
			return
		}
		for _, object := range file.Objects {
			checkCleanDecode(t, object)
			checkFill(t, object)
		}
		set, err := NewSet([]*File{file})
		if err != nil {
			return
		}
		for _, workload := range set.Workloads {
			for _, container := range workload.Containers {
				workload.Object.Locate(container.Path + ".resources.limits.memory")
			}
		}
		for line := 0; line < 5; line++ {
			file.Line(line)
		}
		checkHoldRestores(t, source, set)
	})
}

// checkHoldRestores loads source again into a set that releases typed
// fields, and checks each workload held has those of kept, the same source
// read into a set that keeps them; then that every workload can be done.
func checkHoldRestores(t *testing.T, source []byte, kept *Set) {
	file, err := Load("fuzz.yaml", source)
	if err != nil {
		t.Fatalf("loaded once, not twice: %v", err)
	}
	released, err := NewSet([]*File{file}, ReleaseTyped())
	if err != nil || len(released.Workloads) != len(kept.Workloads) {
		t.Fatalf("%d workloads released (%v), %d kept", len(released.Workloads), err, len(kept.Workloads))
	}
	for i, w := range released.Workloads {
		if err := w.Hold(); err != nil {
			t.Fatalf("%s: %v", w.Name(), err)
		}
		if got, want := typedOf(w), typedOf(kept.Workloads[i]); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s held: %+v, want %+v", w.Name(), got, want)
		}
		w.Release()
	}
	for _, w := range released.Workloads {
		w.Done()
	}
}
