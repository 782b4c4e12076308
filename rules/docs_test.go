package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/rules"
)

// docBase is a clean model-server deployment that the Bad and Good examples
// of the manifest rules are merged into.
const docBase = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: resnet
spec:
  replicas: 2
  strategy:
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  selector:
    matchLabels:
      app: resnet
  template:
    metadata:
      labels:
        app: resnet
    spec:
      containers:
        - name: tf-serving
          image: tensorflow/serving:2.19.0@sha256:9d018285a4b38eaa419bb261e0a3f2d0f330d8ba874053354ccdf55c075c5837
          args: ["--model_name=resnet", "--model_base_path=/models/resnet"]
          ports:
            - containerPort: 8500
            - containerPort: 8501
          readinessProbe:
            httpGet: {path: /v1/models/resnet, port: 8501}
          resources:
            requests: {cpu: "2", memory: 6Gi}
            limits: {memory: 6Gi}
          volumeMounts:
            - name: models
              mountPath: /models/resnet
      volumes:
        - name: models
          persistentVolumeClaim: {claimName: resnet-models}
`

// docClaim is the claim the base and the examples mount.
const docClaim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: resnet-models
spec:
  accessModes: [ReadOnlyMany]
  resources:
    requests: {storage: 10Gi}
`

// docNodes is the cluster the examples are linted against, for the rules
// that read its nodes: the GKE cluster of the fixtures, one e2-standard-4
// CPU node and two tainted L4 nodes.
const docNodes = "testdata/MDL216/nodes.yaml"

// podKeys are pod spec fields; an example's other top-level keys are
// container fields.
var podKeys = map[string]bool{"containers": true, "initContainers": true, "volumes": true, "tolerations": true,
	"nodeSelector": true, "affinity": true, "hostIPC": true, "restartPolicy": true}

func TestDocs(t *testing.T) {
	for _, rule := range rules.All() {
		t.Run(rule.ID, func(t *testing.T) {
			doc := rule.Doc
			if doc.Summary == "" || strings.Contains(doc.Summary, "\n") || doc.Why == "" || doc.Bad == "" || doc.Good == "" || doc.Fix == "" {
				t.Errorf("incomplete doc: summary (one line), why, bad, good and fix are all required")
			}
			switch rule.Artifact {
			case lint.ArtifactManifest:
			case lint.ArtifactModel, lint.ArtifactImage, lint.ArtifactCross:
				checkOtherExamples(t, rule)
				return
			default:
				return
			}
			if len(doc.References) == 0 {
				t.Errorf("no references")
			}
			for _, reference := range doc.References {
				if !strings.HasPrefix(reference, "https://") {
					t.Errorf("reference %q is not an https URL", reference)
				}
			}
			if rule.Check == nil {
				t.Fatalf("no Check")
			}
			if doc.Unlintable != "" {
				t.Errorf("Doc.Unlintable is set, but the examples of a manifest rule are always linted")
			}
			if n, _ := exampleFindings(t, rule.ID, doc.Bad, nil); n == 0 {
				t.Errorf("the Bad example does not trigger %s:\n%s", rule.ID, doc.Bad)
			}
			switch n, passed := exampleFindings(t, rule.ID, doc.Good, nil); {
			case n != 0:
				t.Errorf("the Good example triggers %s %d time(s):\n%s", rule.ID, n, doc.Good)
			case !passed:
				t.Errorf("%s does not check the Good example (skipped or not a workload):\n%s", rule.ID, doc.Good)
			}
		})
	}
}

// exampleFindings merges an example into docBase, lints it with the files
// of model (relative path → content) beside it, and counts the findings of
// one rule; passed says the rule checked a target and passed it.
func exampleFindings(t *testing.T, ruleID, example string, model map[string]string) (n int, passed bool) {
	t.Helper()
	var base map[string]any
	if err := yaml.Unmarshal([]byte(docBase), &base); err != nil {
		t.Fatal(err)
	}
	documents := strings.Split(example, "\n---\n")
	var snippet map[string]any
	if err := yaml.Unmarshal([]byte(documents[0]), &snippet); err != nil {
		t.Fatalf("example is not YAML: %v\n%s", err, example)
	}
	podSpec := lookupMap(base, "spec", "template", "spec")
	container := podSpec["containers"].([]any)[0].(map[string]any)
	_, root := snippet["kind"]
	if _, ok := snippet["spec"]; ok {
		root = true
	}
	for key, value := range snippet {
		switch {
		case root:
			merge(base, map[string]any{key: value})
		case podKeys[key]:
			podSpec[key] = value
		default:
			merge(container, map[string]any{key: value})
		}
	}
	merged, err := yaml.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	files := []string{string(merged), docClaim}
	files = append(files, documents[1:]...)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "example.yaml"), []byte(strings.Join(files, "\n---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	writeExampleFiles(t, dir, model)
	return lintExample(t, ruleID, dir)
}

// lintExample lints dir against the docs' cluster and counts the findings
// of one rule; passed says the rule checked a target and passed it.
func lintExample(t *testing.T, ruleID, dir string) (n int, passed bool) {
	t.Helper()
	config := &lint.Config{Cluster: lint.ClusterConfig{GPUNodesTainted: true}}
	nodes, err := cluster.Read(docNodes)
	if err != nil {
		t.Fatal(err)
	}
	result, err := engine.Run(engine.Options{Paths: []string{dir}, Rules: rules.All(), Config: config, Cluster: nodes})
	if err != nil {
		t.Fatal(err)
	}
	for _, finding := range result.Findings {
		if finding.RuleID == ruleID {
			n++
		}
	}
	for _, evaluation := range result.Evaluations {
		if evaluation.RuleID == ruleID && evaluation.Status == lint.StatusPass {
			passed = true
		}
	}
	return n, passed
}

func lookupMap(m map[string]any, keys ...string) map[string]any {
	for _, key := range keys {
		m = m[key].(map[string]any)
	}
	return m
}

// merge copies src into dst, merging nested maps and replacing everything else.
func merge(dst, src map[string]any) {
	for key, value := range src {
		if srcMap, ok := value.(map[string]any); ok {
			if dstMap, ok := dst[key].(map[string]any); ok {
				merge(dstMap, srcMap)
				continue
			}
		}
		dst[key] = value
	}
}
