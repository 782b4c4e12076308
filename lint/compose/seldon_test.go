package compose

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint/manifest"
)

const serverConfigs = `apiVersion: mlops.seldon.io/v1alpha1
kind: ServerConfig
metadata:
  name: mlserver
  namespace: seldon-mesh
spec:
  podSpec:
    terminationGracePeriodSeconds: 120
    serviceAccountName: seldon-server
    tolerations: [{key: a, operator: Exists}]
    containers:
      - name: agent
        image: agent-image
      - name: mlserver
        image: mlserver-image
        args: [--config]
        env: [{name: A, value: config}, {name: B, value: config}]
        resources: {requests: {cpu: "1", memory: 1Gi}}
        volumeMounts: [{name: mlserver-models, mountPath: /mnt/agent}]
    volumes: [{name: config-volume, configMap: {name: seldon-agent}}]
  volumeClaimTemplates:
    - name: mlserver-models
      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: other.example.com/v1
kind: ServerConfig
metadata:
  name: triton
spec:
  podSpec:
    containers: [{name: triton, image: not-seldon}]
`

// seldonComposed loads the ServerConfigs and the Servers, each a file, and
// composes them.
func seldonComposed(t *testing.T, configs, servers string) (*manifest.Set, []string) {
	t.Helper()
	var files []*manifest.File
	for name, source := range map[string]string{"serverconfig.yaml": configs, "server.yaml": servers} {
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
	notes, err := SeldonServers(set)
	if err != nil {
		t.Fatal(err)
	}
	return set, notes
}

// seldonWorkload is the set's workload of the named object.
func seldonWorkload(t *testing.T, set *manifest.Set, kind, name string) *manifest.Workload {
	t.Helper()
	for _, w := range set.Workloads {
		if w.Object.Kind == kind && w.Object.Name == name {
			if err := w.Hold(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(w.Release)
			return w
		}
	}
	return nil
}

func TestSeldonServer(t *testing.T) {
	const server = `apiVersion: mlops.seldon.io/v1alpha1
kind: Server
metadata:
  name: custom
  namespace: models
spec:
  serverConfig: mlserver
  podSpec:
    serviceAccountName: custom
    tolerations: [{key: b, operator: Exists}]
    containers:
      - name: sidecar
        image: sidecar-image
      - name: mlserver
        args: [--extra]
        env: [{name: B, value: server}]
        resources: {limits: {cpu: "2"}}
`
	set, notes := seldonComposed(t, serverConfigs, server)
	if len(notes) > 0 {
		t.Fatalf("notes: %v", notes)
	}
	if seldonWorkload(t, set, "ServerConfig", "mlserver") != nil {
		t.Errorf("the ServerConfig composed with is still a workload")
	}
	w := seldonWorkload(t, set, "Server", "custom")
	if w == nil || w.Incomplete {
		t.Fatalf("the Server's pod is not composed: %+v", w)
	}
	var names []string
	for _, c := range w.Containers {
		names = append(names, c.Name)
	}
	// MergeContainers: the Server's containers in its order, then the
	// ServerConfig's it does not name.
	if got := fmt.Sprint(names); got != "[sidecar mlserver agent]" {
		t.Fatalf("containers %s", got)
	}
	mlserver := w.Containers[1]
	var env []string
	for _, e := range mlserver.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	// WithAppendSlice: the Server's env and args come after the
	// ServerConfig's, a name written twice included.
	if got := fmt.Sprint(env); got != "[A=config B=config B=server]" {
		t.Errorf("env %s", got)
	}
	if got := fmt.Sprint(mlserver.Args); got != "[--config --extra]" {
		t.Errorf("args %s", got)
	}
	if mlserver.Image != "mlserver-image" || mlserver.ComposedFrom == nil || w.Containers[0].ComposedFrom != nil {
		t.Errorf("image %q, composed from %v", mlserver.Image, mlserver.ComposedFrom)
	}
	if mlserver.Resources.Limits.Cpu().String() != "2" || mlserver.Resources.Requests.Memory().String() != "1Gi" {
		t.Errorf("resources %v", mlserver.Resources)
	}
	spec := w.Spec
	if spec.ServiceAccountName != "custom" || spec.TerminationGracePeriodSeconds == nil || *spec.TerminationGracePeriodSeconds != 120 {
		t.Errorf("serviceAccountName %q, terminationGracePeriodSeconds %v", spec.ServiceAccountName, spec.TerminationGracePeriodSeconds)
	}
	if len(spec.Tolerations) != 2 || spec.Tolerations[0].Key != "a" || spec.Tolerations[1].Key != "b" {
		t.Errorf("tolerations %v", spec.Tolerations)
	}
	if got := fmt.Sprint(w.ClaimTemplates); got != "[mlserver-models]" {
		t.Errorf("claim templates %s", got)
	}

	for _, tc := range []struct {
		path string
		file string
		line int
	}{
		{"spec.podSpec.containers[0].image", "server.yaml", 13},
		{"spec.podSpec.containers[1].image", "serverconfig.yaml", 15},
		{"spec.podSpec.containers[1].args[0]", "serverconfig.yaml", 16},
		{"spec.podSpec.containers[1].args[1]", "server.yaml", 15},
		{"spec.podSpec.containers[1].env[1].value", "serverconfig.yaml", 17},
		{"spec.podSpec.containers[1].env[2].value", "server.yaml", 16},
		// Neither wrote it: where more of its path is, the Server's resources.
		{"spec.podSpec.containers[1].resources.limits.memory", "server.yaml", 17},
		{"spec.podSpec.containers[1].resources.requests.memory", "serverconfig.yaml", 18},
		{"spec.podSpec.containers[1].volumeMounts[0]", "serverconfig.yaml", 19},
		{"spec.podSpec.containers[2].image", "serverconfig.yaml", 13},
		{"spec.podSpec.tolerations[1]", "server.yaml", 10},
		{"spec.podSpec.volumes[0]", "serverconfig.yaml", 20},
		{"spec.podSpec.serviceAccountName", "server.yaml", 9},
		{"spec.podSpec.terminationGracePeriodSeconds", "serverconfig.yaml", 8},
	} {
		file, pos := w.Object.Where(tc.path)
		if file != tc.file || pos.Line != tc.line {
			t.Errorf("%s at %s:%d, want %s:%d", tc.path, file, pos.Line, tc.file, tc.line)
		}
	}
	if source, ok := w.Object.WrittenBy("spec.podSpec.containers[1].image"); !ok || source.Object.Kind != "ServerConfig" {
		t.Errorf("the image is not written by the ServerConfig: %+v", source)
	}
}

// TestSeldonServerWithoutPodSpec: most Servers only name their
// ServerConfig, whose pod they run.
func TestSeldonServerWithoutPodSpec(t *testing.T) {
	const servers = `apiVersion: mlops.seldon.io/v1alpha1
kind: Server
metadata: {name: mlserver, namespace: models}
spec: {serverConfig: mlserver, replicas: 2}
---
apiVersion: mlops.seldon.io/v1alpha1
kind: Server
metadata: {name: triton}
spec: {serverConfig: triton}
`
	set, notes := seldonComposed(t, serverConfigs, servers)
	// The other group's ServerConfig named triton is not Seldon's: the
	// Server runs the one Seldon installs.
	if len(notes) != 1 || !strings.Contains(notes[0], `Server/triton: ServerConfig "triton" is not in the linted files, `+
		`so its pod is built from the triton ServerConfig that Seldon Core 2.10.2's Helm chart installs`) {
		t.Errorf("notes %q", notes)
	}
	w := seldonWorkload(t, set, "Server", "mlserver")
	if w == nil || w.Incomplete || w.Platform != "seldon" || len(w.Containers) != 2 {
		t.Fatalf("the Server has not the ServerConfig's pod: %+v", w)
	}
	if w.Name() != "Server/models/mlserver" || w.Containers[1].Image != "mlserver-image" || w.Containers[1].ComposedFrom == nil {
		t.Errorf("%s: container %+v", w.Name(), w.Containers[1])
	}
	file, pos := w.Object.Where("spec.podSpec.containers[1].resources.limits.memory")
	if file != "serverconfig.yaml" || pos.Line != 18 {
		t.Errorf("a missing limit at %s:%d, want the ServerConfig's resources", file, pos.Line)
	}
	triton := seldonWorkload(t, set, "Server", "triton")
	if triton == nil || len(triton.Containers) != 3 || triton.Containers[2].Image != "nvcr.io/nvidia/tritonserver:23.03-py3" {
		t.Fatalf("the Server has not the pod of Seldon's triton ServerConfig: %+v", triton)
	}
	if file, pos := triton.Object.Where("spec.podSpec.volumes[0].emptyDir.sizeLimit"); file != "server.yaml" || pos.Line != 9 {
		t.Errorf("the default's /dev/shm at %s:%d, want the Server's spec.serverConfig", file, pos.Line)
	}
}

// TestSeldonDefaultServerConfig: Seldon installs the ServerConfigs
// mlserver and triton itself; a Server naming one that the files do not
// hold is merged over Seldon's.
func TestSeldonDefaultServerConfig(t *testing.T) {
	const server = `apiVersion: mlops.seldon.io/v1alpha1
kind: Server
metadata: {name: big, namespace: models}
spec:
  serverConfig: mlserver
  podSpec:
    containers:
      - name: mlserver
        env: [{name: MLSERVER_PARALLEL_WORKERS, value: "4"}]
        resources: {limits: {memory: 8Gi}}
`
	set, notes := seldonComposed(t, "", server)
	if len(notes) != 1 || !strings.Contains(notes[0], `Server/models/big: ServerConfig "mlserver" is not in the linted files, `+
		`so its pod is built from the mlserver ServerConfig that Seldon Core 2.10.2's Helm chart installs`) {
		t.Errorf("notes %q", notes)
	}
	w := seldonWorkload(t, set, "Server", "big")
	if w == nil || len(w.Containers) != 3 {
		t.Fatalf("the Server is not composed with Seldon's mlserver ServerConfig: %+v", w)
	}
	if !w.Incomplete {
		t.Error("a pod composed with the chart's default ServerConfig is complete, so its errors stay errors; the installed one may differ")
	}
	if err := w.Hold(); err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	mlserver := w.Containers[0]
	if mlserver.Name != "mlserver" || mlserver.Image != "docker.io/seldonio/mlserver:1.7.1" || mlserver.ComposedFrom == nil ||
		mlserver.Resources.Limits.Memory().String() != "8Gi" || mlserver.StartupProbe == nil {
		t.Errorf("container %s %s, limits %v, startup probe %v", mlserver.Name, mlserver.Image, mlserver.Resources.Limits,
			mlserver.StartupProbe)
	}
	if env := mlserver.Env; env[len(env)-1].Value != "4" {
		t.Errorf("the Server's env does not come after the default's: %v", env)
	}
	if len(w.ClaimTemplates) != 1 || w.ClaimTemplates[0] != "mlserver-models" {
		t.Errorf("claim templates %q", w.ClaimTemplates)
	}
	// What the Server writes is placed where it writes it, what Seldon's
	// ServerConfig gives on the spec.serverConfig that chose it.
	for path, line := range map[string]int{
		"spec.podSpec.containers[0].resources.limits.memory": 10,
		"spec.podSpec.containers[0].env[7].value":            9,
		"spec.podSpec.containers[0].image":                   5,
		"spec.podSpec.containers[0].env[0].value":            5,
		"spec.podSpec.containers[2].image":                   5,
		"spec.podSpec.securityContext.runAsUser":             5,
	} {
		if file, pos := w.Object.Where(path); file != "server.yaml" || pos.Line != line {
			t.Errorf("%s at %s:%d, want line %d", path, file, pos.Line, line)
		}
	}
}

// TestSeldonServerConfigMissing: a Server's podSpec stays an override when
// its ServerConfig is not in the files.
func TestSeldonServerConfigMissing(t *testing.T) {
	const server = `apiVersion: mlops.seldon.io/v1alpha1
kind: Server
metadata: {name: custom}
spec:
  serverConfig: huggingface
  podSpec:
    containers: [{name: mlserver, image: mlserver-image}]
`
	set, notes := seldonComposed(t, serverConfigs, server)
	if len(notes) != 1 || !strings.Contains(notes[0], `ServerConfig "huggingface" is not in the linted files, so its podSpec is linted alone`) {
		t.Errorf("notes %q", notes)
	}
	if w := seldonWorkload(t, set, "Server", "custom"); w == nil || !w.Incomplete || len(w.Containers) != 1 {
		t.Errorf("the Server's podSpec is not linted as an override: %+v", w)
	}
	if seldonWorkload(t, set, "ServerConfig", "mlserver") == nil {
		t.Errorf("a ServerConfig no Server uses is no workload")
	}
}

func TestFirstStep(t *testing.T) {
	for rest, want := range map[string]string{
		".env[2].value":             ".env",
		".image":                    ".image",
		`["nvidia.com/gpu"].x`:      `["nvidia.com/gpu"]`,
		`.limits["nvidia.com/gpu"]`: ".limits",
		"[":                         "[",
		`["unterminated`:            `["unterminated`,
		`["a"]`:                     `["a"]`,
	} {
		if got := firstStep(rest); got != want {
			t.Errorf("firstStep(%q) = %q, want %q", rest, got, want)
		}
	}
}

// TestSeldonCapabilities: a Server's extraCapabilities extend its agent's
// SELDON_SERVER_CAPABILITIES and its capabilities replace them, placed on
// the Server's field; a Model gets the Servers of its namespace, with what
// they offer: the capabilities, and the mlserver container's memory
// request plus the agent's overcommit.
func TestSeldonCapabilities(t *testing.T) {
	const servers = `apiVersion: mlops.seldon.io/v1alpha1
kind: Server
metadata: {name: extra, namespace: models}
spec:
  serverConfig: mlserver
  extraCapabilities: [lightgbm-custom]
---
apiVersion: mlops.seldon.io/v1alpha1
kind: Server
metadata: {name: only, namespace: models}
spec:
  serverConfig: mlserver
  capabilities: [" custom "]
---
apiVersion: mlops.seldon.io/v1alpha1
kind: Model
metadata: {name: m, namespace: models}
spec:
  storageUri: gs://models/m
  requirements: [sklearn]
  modelType: custom
  memory: 1Gi
  server: only
  secretName: rclone
`
	set, _ := seldonComposed(t, "", servers)
	agentEnv := func(name string) (string, int) {
		w := seldonWorkload(t, set, "Server", name)
		for _, c := range w.Containers {
			for i, e := range c.Env {
				if e.Name == "SELDON_SERVER_CAPABILITIES" {
					_, pos := w.Object.Where(fmt.Sprintf("%s.env[%d].value", c.Path, i))
					return e.Value, pos.Line
				}
			}
		}
		return "", 0
	}
	if value, line := agentEnv("extra"); value != "mlserver,alibi-detect,alibi-explain,huggingface,lightgbm,mlflow,"+
		"python,sklearn,spark-mlib,xgboost,lightgbm-custom" || line != 6 {
		t.Errorf("extraCapabilities: %q at line %d", value, line)
	}
	if value, line := agentEnv("only"); value != "custom" || line != 13 {
		t.Errorf("capabilities: %q at line %d", value, line)
	}
	model := seldonWorkload(t, set, "Model", "m")
	if model == nil || model.SeldonModel == nil || len(model.Containers) != 0 {
		t.Fatalf("no Model workload: %+v", model)
	}
	facts := model.SeldonModel
	if got := fmt.Sprint(facts.Requirements); got != "[{sklearn spec.requirements[0]} {custom spec.modelType}]" ||
		facts.Server != "only" || facts.MemoryBytes != 1<<30 || facts.SecretName != "rclone" {
		t.Errorf("model facts %+v", facts)
	}
	if len(facts.Servers) != 2 {
		t.Fatalf("servers %+v", facts.Servers)
	}
	only := facts.Servers[1]
	// The chart's mlserver container requests 1Gi of memory, and its
	// agent overcommits 10%.
	if fmt.Sprint(only.Capabilities) != "[custom]" || only.CapabilitiesPath != "spec.capabilities" || !only.Assumed ||
		only.MemoryRequestBytes != 1<<30 || only.OverCommitPercent != 10 || only.MemoryBytes != 1<<30+(1<<30)/10 ||
		only.ServerContainer != "mlserver" || only.MemoryPath != "spec.podSpec.containers[2].resources" {
		t.Errorf("server facts %+v", only)
	}
}
