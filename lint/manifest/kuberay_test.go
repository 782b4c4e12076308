package manifest

import (
	"slices"
	"testing"
)

// TestKubeRayStart checks the command KubeRay puts in the Ray container
// (BuildPod in ray-operator/controllers/ray/common/pod.go).
func TestKubeRayStart(t *testing.T) {
	const ulimit = "ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; "
	cases := []struct {
		name, annotations, templateAnnotations, head, worker string
		wantHead, wantWorker                                 string // "" keeps the manifest's command
	}{
		{
			name:     "image only",
			head:     "image: rayproject/ray:2.40.0\n          resources: {limits: {cpu: 2, memory: 4Gi, nvidia.com/gpu: 1}}",
			worker:   "image: rayproject/ray:2.40.0",
			wantHead: ulimit + "ray start --head --block --dashboard-agent-listen-port=52365 --dashboard-host=0.0.0.0 --memory=4294967296 --metrics-export-port=8080 --num-cpus=0 --num-gpus=1",
			wantWorker: ulimit + "ray start --address=$FQ_RAY_IP:6379 --block --dashboard-agent-listen-port=52365 " +
				"--log-color=false --metrics-export-port=8080 --object-store-memory=1000000",
		},
		{
			name:       "a command runs before ray start",
			head:       "image: rayproject/ray:2.40.0\n          command: [python, warmup.py]",
			worker:     "image: rayproject/ray:2.40.0\n          args: [\"ray start --address=$RAY_ADDRESS --block\"]",
			wantHead:   " python  warmup.py  && " + ulimit + "ray start --head --block --dashboard-agent-listen-port=52365 --dashboard-host=0.0.0.0 --metrics-export-port=8080 --num-cpus=0",
			wantWorker: "",
		},
		{
			name:        "overwrite annotation on the object",
			annotations: "ray.io/overwrite-container-cmd: \"true\"",
			head:        "image: rayproject/ray:2.40.0",
			worker:      "image: rayproject/ray:2.40.0",
		},
		{
			name:                "overwrite annotation on the pod template",
			templateAnnotations: "ray.io/overwrite-container-cmd: \"TRUE\"",
			head:                "image: rayproject/ray:2.40.0",
			worker:              "image: rayproject/ray:2.40.0",
			wantWorker: ulimit + "ray start --address=$FQ_RAY_IP:6379 --block --dashboard-agent-listen-port=52365 " +
				"--log-color=false --metrics-export-port=8080 --object-store-memory=1000000",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			source := "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: c\n  annotations: {" + tc.annotations + "}\nspec:\n" +
				"  headGroupSpec:\n    rayStartParams: {num-cpus: \"0\"}\n    template:\n      metadata:\n        annotations: {" + tc.templateAnnotations + "}\n" +
				"      spec:\n        containers:\n        - name: head\n          " + tc.head + "\n" +
				"  workerGroupSpecs:\n  - groupName: w\n    rayStartParams: {object-store-memory: \"1000000\", log-color: \"false\", disable-usage-stats: \"false\"}\n" +
				"    template:\n      spec:\n        initContainers:\n        - name: wait\n          image: busybox\n        containers:\n        - name: worker\n          " + tc.worker + "\n        - name: sidecar\n          image: busybox\n"
			_, workloads := loadWorkloads(t, source)
			for i, want := range []string{tc.wantHead, tc.wantWorker} {
				w := workloads[i]
				ray := w.rayContainer()
				if want == "" {
					if ray.PlatformCommand != nil || ray.Started() != ray.Container {
						t.Errorf("%s: KubeRay runs %q %q, want the manifest's command", w.Name(), ray.PlatformCommand, ray.PlatformArgs)
					}
					continue
				}
				started := ray.Started()
				if !slices.Equal(started.Command, []string{"/bin/bash", "-c", "--"}) || len(started.Args) != 1 || started.Args[0] != want || ray.StartedBy != "KubeRay" {
					t.Errorf("%s: started with %q %q, want /bin/bash -c -- %q", w.Name(), started.Command, started.Args, want)
				}
				if sidecar := w.Containers[len(w.Containers)-1]; i == 1 && sidecar.PlatformCommand != nil {
					t.Errorf("%s: the sidecar got KubeRay's command %q", w.Name(), sidecar.PlatformArgs)
				}
			}
		})
	}
}
