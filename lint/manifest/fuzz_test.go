package manifest

import "testing"

// FuzzLoad checks that no input makes the loader, the position index or the
// workload extraction panic, that the values read off the field table are
// the converter's, and that the fast strict decode agrees with kjson's. Seeds live in testdata/fuzz/FuzzLoad.
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
	})
}
