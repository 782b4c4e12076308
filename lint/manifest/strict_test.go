package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/internal/testenv"
)

// rayClusterHead is a RayCluster whose head group holds the lines a case
// changes.
func rayClusterHead(apiVersion, headGroup string) string {
	return "apiVersion: " + apiVersion + `
kind: RayCluster
metadata:
  name: llm
spec:
  headGroupSpec:
` + headGroup + `
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.49.0
`
}

// TestStrictServingCRDs: the KubeRay kinds are decoded with KubeRay's own
// types, so a field the CRD does not have is MDL002 at its line, with the
// field it was meant to be, and a value of the wrong type rejects the
// object; other versions and other CRDs are not judged.
func TestStrictServingCRDs(t *testing.T) {
	cases := []struct {
		name, source string
		unknown      string // the message of the one unknown field, "" for none
		line         int
		invalid      string // the message of the type error, "" for none
	}{
		{name: "valid", source: rayClusterHead("ray.io/v1", "    rayStartParams: {dashboard-host: 0.0.0.0}")},
		{
			name:    "misspelt field",
			source:  rayClusterHead("ray.io/v1", "    rayStartParam: {dashboard-host: 0.0.0.0}"),
			unknown: "unknown field spec.headGroupSpec.rayStartParam: RayCluster has no such field in KubeRay v1.5.0's API, so strict field validation (the default of kubectl apply) rejects the object unless the cluster runs a newer release whose CRD has it (did you mean rayStartParams?)",
			line:    7,
		},
		{
			name:    "field of another object",
			source:  rayClusterHead("ray.io/v1", "    replicas: 1"),
			unknown: "unknown field spec.headGroupSpec.replicas: RayCluster has no such field in KubeRay v1.5.0's API, so strict field validation (the default of kubectl apply) rejects the object unless the cluster runs a newer release whose CRD has it",
			line:    7,
		},
		{
			name: "pod field in a container's securityContext",
			source: strings.Replace(rayClusterHead("ray.io/v1", "    rayStartParams: {}"), "image: rayproject/ray:2.49.0",
				"image: rayproject/ray:2.49.0\n            securityContext: {fsGroup: 1000}", 1),
			unknown: "unknown field spec.headGroupSpec.template.spec.containers[0].securityContext.fsGroup: RayCluster has no such field in KubeRay v1.5.0's API, so strict field validation (the default of kubectl apply) rejects the object unless the cluster runs a newer release whose CRD has it; fsGroup belongs in the pod's securityContext, not a container's",
			line:    13,
		},
		{
			name:    "number where the API wants a string",
			source:  rayClusterHead("ray.io/v1", "    rayStartParams: {num-cpus: 1}"),
			invalid: "spec.headGroupSpec.rayStartParams.num-cpus: a number where the API expects string",
			line:    7,
		},
		{name: "older version", source: rayClusterHead("ray.io/v1alpha1", "    rayStartParam: {}")},
		{name: "other CRD", source: "apiVersion: example.com/v1\nkind: RayCluster\nmetadata: {name: x}\nspec: {headGroupSpc: {}}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file, err := Load("ray.yaml", []byte(c.source))
			if err != nil {
				t.Fatal(err)
			}
			object := file.Objects[0]
			unknown := UnknownFields(object)
			switch {
			case c.unknown == "" && len(unknown) > 0:
				t.Errorf("unknown fields %v, want none", unknown)
			case c.unknown != "" && len(unknown) != 1:
				t.Errorf("unknown fields %v, want one: %s", unknown, c.unknown)
			case c.unknown != "":
				if unknown[0].Message != c.unknown {
					t.Errorf("message\n %s\nwant\n %s", unknown[0].Message, c.unknown)
				}
				if _, pos := object.Where(unknown[0].Path); pos.Line != c.line {
					t.Errorf("at line %d, want %d", pos.Line, c.line)
				}
			}
			_, err = Workloads(object)
			var invalid *InvalidError
			switch {
			case c.invalid == "" && err != nil:
				t.Errorf("Workloads: %v, want no error", err)
			case c.invalid != "" && !errors.As(err, &invalid):
				t.Errorf("Workloads: %v, want the object rejected: %s", err, c.invalid)
			case c.invalid != "" && invalid.Message != c.invalid:
				t.Errorf("rejected with\n %s\nwant\n %s", invalid.Message, c.invalid)
			case c.invalid != "":
				if _, pos := object.Where(invalid.Path); pos.Line != c.line {
					t.Errorf("rejected at line %d, want %d", pos.Line, c.line)
				}
			}
		})
	}
}

// TestNearestField: a misspelt built-in field names the one meant, through
// embedded structs and sequences; a field far from every name names none.
func TestNearestField(t *testing.T) {
	deployment := builtInTypes["apps/Deployment"]()
	cases := map[string]string{
		"spec.replica":    "replicas",
		"metadata.Labels": "labels",
		"spec.template.spec.containers[0].imagePullPolicyy":        "imagePullPolicy",
		"spec.template.spec.containers[0].securityContext.fsGroup": "",
		"spec.nothingLikeIt":   "",
		"spec.replicas.deeper": "",
	}
	for path, want := range cases {
		if got := nearestField(reflect.TypeOf(deployment), path); got != want {
			t.Errorf("nearestField(%s) = %q, want %q", path, got, want)
		}
	}
}

// TestKubeRaySamplesDecodeStrictly lints the samples KubeRay ships in its
// API module, real objects of every Ray kind: none has an unknown field or
// a value of the wrong type, as the API server that installed KubeRay's
// CRDs accepts them all.
func TestKubeRaySamplesDecodeStrictly(t *testing.T) {
	output, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/ray-project/kuberay/ray-operator").Output()
	if err != nil {
		t.Fatalf("find the KubeRay module: %v", err)
	}
	samples, err := filepath.Glob(filepath.Join(strings.TrimSpace(string(output)), "config", "samples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rayObjects := 0
	for _, sample := range samples {
		data, err := os.ReadFile(sample)
		if err != nil {
			t.Fatal(err)
		}
		file, err := Load(filepath.Base(sample), data)
		if err != nil {
			t.Errorf("%s: %v", sample, err)
			continue
		}
		for _, object := range file.Objects {
			if _, crd := strictType(object); !crd {
				continue
			}
			rayObjects++
			for _, unknown := range UnknownFields(object) {
				t.Errorf("%s: %v", filepath.Base(sample), unknown)
			}
			if _, err := Workloads(object); err != nil {
				t.Errorf("%s: %v", filepath.Base(sample), err)
			}
		}
	}
	if rayObjects < 50 {
		t.Errorf("only %d KubeRay objects in %d samples", rayObjects, len(samples))
	}
}

const rollout = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: sentiment
spec:
  strategy:
    canary: {stepz: []}
  template:
    spec:
      containers:
        - name: server
          image: tensorflow/serving:2.14.1
          imagePullPolicyy: IfNotPresent
          securityContext: {fsGroup: 1000}
      volumes:
        - name: models
          anyField: true
`

// TestRolloutPodTemplate: an Argo Rollout's pod template is checked with
// the core types, as its CRD checks it: a misspelt or misplaced container
// field is MDL002 with the field meant; volumes, which the CRD lets
// through, and the Rollout's own fields are not judged.
func TestRolloutPodTemplate(t *testing.T) {
	file, err := Load("rollout.yaml", []byte(rollout))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, unknown := range UnknownFields(file.Objects[0]) {
		_, pos := file.Objects[0].Where(unknown.Path)
		got = append(got, fmt.Sprintf("%d %s", pos.Line, unknown.Message))
	}
	want := []string{
		"13 unknown field spec.template.spec.containers[0].imagePullPolicyy: Rollout has no such field, so strict field validation (the default of kubectl apply) rejects the object (did you mean imagePullPolicy?)",
		"14 unknown field spec.template.spec.containers[0].securityContext.fsGroup: Rollout has no such field, so strict field validation (the default of kubectl apply) rejects the object; fsGroup belongs in the pod's securityContext, not a container's",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("unknown fields:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	older, err := Load("rollout.yaml", []byte(strings.Replace(rollout, "v1alpha1", "v1alpha0", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if unknown := UnknownFields(older.Objects[0]); len(unknown) > 0 {
		t.Errorf("another version judged: %v", unknown)
	}
}

// argoRolloutsModule is the release of Argo Rollouts whose published CRD
// podTemplateCRDs was checked against.
const argoRolloutsModule = "github.com/argoproj/argo-rollouts@v1.10.1"

// offline is what the go command says when it cannot reach the module
// proxy (or is told not to).
var offline = regexp.MustCompile(`dial tcp|no such host|connection refused|i/o timeout|network is unreachable|` +
	`TLS handshake timeout|proxyconnect|GOPROXY=off|module lookup disabled`)

// TestRolloutCRDSchema reads the Rollout CRD that Argo Rollouts publishes
// in its Go module and checks podTemplateCRDs against it: every field its
// schema has under spec.template is a field of the core PodTemplateSpec (so
// none is reported unknown wrongly), and what it lets through unchecked is
// the template's schemaless fields, or resource maps, which take any key.
func TestRolloutCRDSchema(t *testing.T) {
	scratch := t.TempDir()
	goCommand := func(args ...string) []byte {
		command := exec.Command("go", args...)
		command.Dir = scratch
		command.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		var stderr strings.Builder
		command.Stderr = &stderr
		output, err := command.Output()
		// go mod download -json reports its error in the JSON.
		said := strings.TrimSpace(stderr.String() + "\n" + string(output))
		switch {
		case err == nil:
			return output
		case offline.MatchString(said):
			// The one reason to skip: the module is not in the cache and
			// the proxy cannot be reached.
			testenv.Unavailable(t, fmt.Sprintf("go %s: the module proxy is needed to read the published CRD: %s",
				strings.Join(args, " "), said))
		}
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, said)
		return nil
	}
	goCommand("mod", "init", "crdcheck")
	var module struct{ Dir string }
	if err := json.Unmarshal(goCommand("mod", "download", "-json", argoRolloutsModule), &module); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(module.Dir, "manifests", "crds", "rollout-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				}
			}
		}
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	template := podTemplateCRDs["argoproj.io/Rollout"]
	var schema map[string]any
	for _, version := range crd.Spec.Versions {
		if "argoproj.io/"+version.Name == template.apiVersion {
			schema = version.Schema.OpenAPIV3Schema
		}
	}
	for _, key := range splitPath(template.path) {
		properties, _ := schema["properties"].(map[string]any)
		schema, _ = properties[key].(map[string]any)
	}
	if schema == nil {
		t.Fatalf("no schema for %s %s in the CRD", template.apiVersion, template.path)
	}
	var unchecked []string
	var walk func(schema map[string]any, goType reflect.Type, path string)
	walk = func(schema map[string]any, goType reflect.Type, path string) {
		for goType.Kind() == reflect.Pointer {
			goType = goType.Elem()
		}
		if schema["x-kubernetes-preserve-unknown-fields"] == true {
			unchecked = append(unchecked, path)
			return
		}
		if schema["x-kubernetes-int-or-string"] == true {
			return
		}
		properties, _ := schema["properties"].(map[string]any)
		for key, property := range properties {
			field, ok := jsonFieldType(goType, key)
			if !ok {
				t.Errorf("%s.%s: in the CRD's schema, not in %s", path, key, goType)
				continue
			}
			sub, _ := property.(map[string]any)
			walk(sub, field, strings.TrimPrefix(path+"."+key, "."))
		}
		if items, ok := schema["items"].(map[string]any); ok && goType.Kind() == reflect.Slice {
			walk(items, goType.Elem(), path+"[]")
		}
		if values, ok := schema["additionalProperties"].(map[string]any); ok && goType.Kind() == reflect.Map {
			walk(values, goType.Elem(), path+"{}")
		}
	}
	walk(schema, podTemplateSpecType, "")
	for _, path := range unchecked {
		resourceMap := strings.HasSuffix(path, ".resources.limits") || strings.HasSuffix(path, ".resources.requests")
		if !resourceMap && !slices.Contains(template.schemaless, path) {
			t.Errorf("%s: the CRD lets it through unchecked, but it is not in schemaless", path)
		}
	}
	if len(unchecked) == 0 {
		t.Error("no unchecked field found: the walk did not reach the template")
	}
}

// The version unknown CRD fields are judged against is the module's.
func TestCRDTypesVersion(t *testing.T) {
	goMod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(goMod), "\n") {
		if version, ok := strings.CutPrefix(strings.TrimSpace(line), "github.com/ray-project/kuberay/ray-operator "); ok {
			if want := "KubeRay " + version; crdTypesVersion != want {
				t.Errorf("crdTypesVersion = %q, want %q", crdTypesVersion, want)
			}
			return
		}
	}
	t.Fatal("go.mod does not require the KubeRay module")
}

func TestCRDUnknownFieldUnsure(t *testing.T) {
	source := "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: r}\nspec:\n  authOptions: {mode: token}\n" +
		"  headGroupSpec:\n    template:\n      spec: {containers: [{name: head, image: rayproject/ray:2.9.0}]}\n"
	file, err := Load("r.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	unknown := file.Objects[0].decodeStrict().unknown
	if len(unknown) != 1 || !unknown[0].Unsure || !strings.Contains(unknown[0].Message, "KubeRay v1.5.0's API") ||
		unknown[0].CRD != "rayclusters.ray.io" {
		t.Fatalf("unknown fields %v", unknown)
	}
}
