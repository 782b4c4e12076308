package compose

import (
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/manifest"
)

// composedWith loads each source as a file of its name and composes them
// with build.
func composedWith(t *testing.T, build func(*manifest.Set) ([]string, error), sources map[string]string) (*manifest.Set, []string) {
	t.Helper()
	var files []*manifest.File
	for name, source := range sources {
		file, err := manifest.Load(name, []byte(source))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
	}
	set, err := manifest.NewSet(files, manifest.ReleaseTyped())
	if err != nil {
		t.Fatal(err)
	}
	notes, err := build(set)
	if err != nil {
		t.Fatal(err)
	}
	return set, notes
}

// workloadOf is the set's workload of the object of that kind and name, nil
// when it has none.
func workloadOf(t *testing.T, set *manifest.Set, kind, name string) *manifest.Workload {
	t.Helper()
	for _, w := range set.Workloads {
		if w.Object.Kind == kind && w.Object.Name == name {
			return w
		}
	}
	return nil
}

// wantLines checks where the fields of the workload's pod are placed.
func wantLines(t *testing.T, w *manifest.Workload, file string, lines map[string]int) {
	t.Helper()
	for path, line := range lines {
		if got, pos := w.Object.Where(path); got != file || pos.Line != line {
			t.Errorf("%s at %s:%d, want line %d", path, got, pos.Line, line)
		}
	}
}

const nimCache = `apiVersion: apps.nvidia.com/v1alpha1
kind: NIMCache
metadata: {name: llama-cache, namespace: nim}
spec:
  source:
    ngc: {modelPuller: nvcr.io/nim/meta/llama-3.2-1b-instruct:1.12.0, authSecret: ngc}
  storage:
    pvc: {name: llama-models, subPath: cache, create: true, size: 50Gi}
`

const nimServices = `apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata: {name: llama, namespace: nim}
spec:
  image:
    repository: nvcr.io/nim/meta/llama-3.2-1b-instruct
    tag: "1.12.0"
    pullSecrets: [ngc-pull]
  authSecret: ngc
  env:
    - {name: NIM_LOG_LEVEL, value: DEBUG}
  storage:
    nimCache: {name: llama-cache}
    sharedMemorySizeLimit: 8Gi
  resources:
    limits: {memory: 16Gi, nvidia.com/gpu: 1}
  expose:
    service: {port: 9000}
  readinessProbe: {enabled: false}
---
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata: {name: nowhere, namespace: nim}
spec:
  image: {repository: nvcr.io/nim/meta/llama-3.2-1b-instruct, tag: "1.12.0"}
---
apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata: {name: multi, namespace: nim}
spec:
  image: {repository: nvcr.io/nim/meta/llama-3.1-405b-instruct, tag: "1.12.0"}
  storage: {pvc: {create: true}}
  multiNode: {parallelism: {tensor: 8, pipeline: 2}}
`

// TestNIMServices: a NIMService's pod is built as the NIM operator's
// GetDeploymentParams and standalone reconciler build it, each field on
// the line that made the operator write it.
func TestNIMServices(t *testing.T) {
	set, notes := composedWith(t, NIMServices, map[string]string{"cache.yaml": nimCache, "service.yaml": nimServices})
	if len(notes) != 2 || !strings.Contains(notes[0], "NIMService/nim/nowhere: no spec.storage names") ||
		!strings.Contains(notes[1], "NIMService/nim/multi: spec.multiNode") {
		t.Errorf("notes %q", notes)
	}
	if w := workloadOf(t, set, "NIMService", "nowhere"); w != nil {
		t.Errorf("a NIMService the operator refuses has a pod")
	}
	w := workloadOf(t, set, "NIMService", "llama")
	if w == nil || len(w.Containers) != 1 || w.Incomplete {
		t.Fatalf("the NIMService has no pod of one container: %+v", w)
	}
	c := w.Containers[0]
	if c.Name != "llama-ctr" || c.Image != "nvcr.io/nim/meta/llama-3.2-1b-instruct:1.12.0" || c.Runtime == nil ||
		c.Runtime.Name != "nim" || c.ComposedFrom != w.Object {
		t.Errorf("container %s, image %s, runtime %v", c.Name, c.Image, c.Runtime)
	}
	var names []string
	for _, env := range c.Env {
		names = append(names, env.Name)
	}
	if got := strings.Join(names, " "); got != "NIM_LOG_LEVEL NIM_CACHE_PATH OUTLINES_CACHE_DIR NIM_SERVER_PORT "+
		"NIM_HTTP_API_PORT NIM_JSONL_LOGGING NGC_API_KEY" {
		t.Errorf("env %s", got)
	}
	if key := c.Env[6].ValueFrom.SecretKeyRef; key.Name != "ngc" || key.Key != "NGC_API_KEY" || c.Env[3].Value != "9000" {
		t.Errorf("NGC_API_KEY from %v, NIM_SERVER_PORT %q", key, c.Env[3].Value)
	}
	if c.ReadinessProbe != nil || c.StartupProbe == nil || c.StartupProbe.HTTPGet.Path != "/v1/health/ready" ||
		c.StartupProbe.FailureThreshold != 120 || c.LivenessProbe.HTTPGet.Port.StrVal != "api" || c.Ports[0].ContainerPort != 9000 {
		t.Errorf("probes %v %v %v, ports %v", c.LivenessProbe, c.ReadinessProbe, c.StartupProbe, c.Ports)
	}
	volumes := w.Spec.Volumes
	if len(volumes) != 2 || volumes[0].EmptyDir.Medium != "Memory" || volumes[0].EmptyDir.SizeLimit.String() != "8Gi" ||
		volumes[1].PersistentVolumeClaim.ClaimName != "llama-models" || c.VolumeMounts[0].SubPath != "cache" ||
		c.VolumeMounts[0].MountPath != "/model-store" || c.VolumeMounts[1].MountPath != "/dev/shm" {
		t.Errorf("volumes %+v, mounts %+v", volumes, c.VolumeMounts)
	}
	if *w.Spec.SecurityContext.RunAsUser != 1000 || *w.Spec.SecurityContext.FSGroup != 2000 ||
		w.Spec.ImagePullSecrets[0].Name != "ngc-pull" {
		t.Errorf("security context %+v, pull secrets %v", w.Spec.SecurityContext, w.Spec.ImagePullSecrets)
	}
	wantLines(t, w, "service.yaml", map[string]int{
		"deployment.spec.template.spec.containers[0].image":                              6,
		"deployment.spec.template.spec.containers[0].env[0].value":                       11,
		"deployment.spec.template.spec.containers[0].env[6].valueFrom.secretKeyRef.name": 9,
		"deployment.spec.template.spec.containers[0].env[3].value":                       18,
		"deployment.spec.template.spec.containers[0].resources.limits.memory":            16,
		"deployment.spec.template.spec.containers[0].resources.requests.memory":          15,
		"deployment.spec.template.spec.containers[0].livenessProbe.httpGet.path":         4,
		"deployment.spec.template.spec.volumes[1].persistentVolumeClaim.claimName":       13,
		"deployment.spec.template.spec.volumes[0].emptyDir.sizeLimit":                    14,
		"deployment.spec.template.spec.imagePullSecrets[0].name":                         8,
	})
}

// TestNIMServiceCacheNotInFiles: the claim of a NIMCache that is not in
// the files is the one the cache would make, and a note says so; a
// profile of an optimized NIM without GPUs leaves the pod incomplete.
func TestNIMServiceCacheNotInFiles(t *testing.T) {
	const service = `apiVersion: apps.nvidia.com/v1alpha1
kind: NIMService
metadata: {name: llama, namespace: nim}
spec:
  image: {repository: nvcr.io/nim/meta/llama-3.2-1b-instruct, tag: "1.12.0"}
  storage:
    nimCache: {name: elsewhere, profile: tensorrt_llm-h100-bf16-tp2}
`
	set, notes := composedWith(t, NIMServices, map[string]string{"service.yaml": service})
	if len(notes) != 2 || !strings.Contains(notes[0], `NIMCache "elsewhere" is not in the linted files`) ||
		!strings.Contains(notes[1], `profile "tensorrt_llm-h100-bf16-tp2"`) {
		t.Errorf("notes %q", notes)
	}
	w := workloadOf(t, set, "NIMService", "llama")
	if w == nil || !w.Incomplete || w.Spec.Volumes[1].PersistentVolumeClaim.ClaimName != "elsewhere-pvc" {
		t.Fatalf("pod %+v", w)
	}
	env := w.Containers[0].Env
	if last := env[len(env)-1]; last.Name != "NIM_MODEL_PROFILE" || last.Value != "tensorrt_llm-h100-bf16-tp2" {
		t.Errorf("env %v", env)
	}
	wantLines(t, w, "service.yaml", map[string]int{
		"deployment.spec.template.spec.containers[0].env[6].value": 7,
	})
}
