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
	images := &docImages{parent: t}
	for _, rule := range rules.All() {
		t.Run(rule.ID, func(t *testing.T) {
			doc := rule.Doc
			if doc.Summary == "" || strings.Contains(doc.Summary, "\n") || doc.Why == "" || doc.Bad == "" || doc.Good == "" || doc.Fix == "" {
				t.Errorf("incomplete doc: summary (one line), why, bad, good and fix are all required")
			}
			if rule.Artifact == lint.ArtifactManifest {
				if len(doc.References) == 0 {
					t.Errorf("no references")
				}
				if rule.Check == nil {
					t.Fatalf("no Check")
				}
			}
			for _, reference := range doc.References {
				if !strings.HasPrefix(reference, "https://") {
					t.Errorf("reference %q is not an https URL", reference)
				}
			}
			checkExamples(t, rule, images)
		})
	}
}

// checkExamples lints a rule's Bad example, which must trigger the rule,
// and its Good example, which the rule must check and pass (a rule the
// engine reports itself, without a Check, only must not fire), each in its
// own subtest.
func checkExamples(t *testing.T, rule *lint.Rule, images *docImages) {
	t.Helper()
	doc := rule.Doc
	t.Run("bad", func(t *testing.T) {
		if n, _ := lintDocExample(t, rule, "bad", doc.Bad, images); n == 0 {
			t.Errorf("the Bad example does not trigger %s:\n%s", rule.ID, doc.Bad)
		}
	})
	t.Run("good", func(t *testing.T) {
		switch n, passed := lintDocExample(t, rule, "good", doc.Good, images); {
		case n != 0:
			t.Errorf("the Good example triggers %s %d time(s):\n%s", rule.ID, n, doc.Good)
		case !passed && rule.Check != nil:
			t.Errorf("%s does not check the Good example (skipped or not a target):\n%s", rule.ID, doc.Good)
		}
	})
}

// lintDocExample builds one example of a rule in a temp dir and lints it:
// a model rule's example is a model dir tree; any other is a manifest
// snippet merged into docBase, with the images, config and cluster its
// other sections give, and for a cross rule the model dirs it gives or
// else the files of docModel beside it. It counts the findings of the
// rule; passed says the rule checked a target and passed it.
func lintDocExample(t *testing.T, rule *lint.Rule, name, text string, images *docImages) (n int, passed bool) {
	t.Helper()
	example, err := parseExample(text)
	if err != nil {
		t.Fatalf("the example does not read: %v\n%s", err, text)
	}
	dir := t.TempDir()
	options := engine.Options{Paths: []string{dir}, Rules: rules.All(), Now: scenarioToday}
	if example.model != "" && rule.Artifact != lint.ArtifactCross {
		t.Fatalf("only a cross rule's example gives model dirs (%s, %sDIR:MOUNTPATH)", modelDirHeader, mappingHeader)
	}
	if rule.Artifact == lint.ArtifactModel {
		files, err := parseTree(example.manifest)
		if err != nil {
			t.Fatalf("the example is not a model dir tree (%v): write it as one (see parseTree):\n%s", err, text)
		}
		writeExampleFiles(t, dir, files)
	} else {
		var model map[string]string
		switch {
		case example.model != "":
			if model, err = parseTree(example.model); err != nil {
				t.Fatalf("the example's model dir is not a tree (%v):\n%s", err, example.model)
			}
			if example.mapping != "" {
				mapping, err := engine.ParseModelMapping(example.mapping)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := model[mapping.Path+"/"]; !ok {
					t.Fatalf("the example's tree has no dir %s for --model %s", mapping.Path, example.mapping)
				}
				mapping.Path = filepath.Join(dir, filepath.FromSlash(mapping.Path))
				options.Models = append(options.Models, mapping)
			}
		case rule.Artifact == lint.ArtifactCross:
			model = readTree(t, docModel, "resnet")
		}
		writeManifest(t, dir, example.manifest, model)
		options.Image.Sources = images.push(t, rule.ID+"/"+name, example)
	}
	config := &lint.Config{}
	if example.config != "" {
		file := filepath.Join(t.TempDir(), ".modellint.yaml")
		if err := os.WriteFile(file, []byte(example.config), 0o644); err != nil {
			t.Fatal(err)
		}
		if config, err = engine.LoadConfig(file); err != nil {
			t.Fatalf("the example's .modellint.yaml: %v", err)
		}
	}
	config.Cluster.GPUNodesTainted = true
	options.Config = config
	nodesFile := docNodes
	if example.nodes != "" {
		nodesFile = filepath.Join(t.TempDir(), "nodes.yaml")
		if err := os.WriteFile(nodesFile, []byte(example.nodes), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if options.Cluster, err = cluster.Read(nodesFile); err != nil {
		t.Fatal(err)
	}
	result, err := engine.Run(options)
	if err != nil {
		t.Fatal(err)
	}
	for _, inputError := range result.InputErrors {
		t.Errorf("the example does not read: %s", inputError)
	}
	for _, finding := range result.Findings {
		if finding.RuleID == rule.ID {
			t.Logf("%s %s: %s", finding.RuleID, finding.Severity, finding.Message)
			n++
		}
	}
	for _, evaluation := range result.Evaluations {
		if evaluation.RuleID != rule.ID {
			continue
		}
		if evaluation.Status == lint.StatusPass {
			passed = true
		} else if evaluation.Reason != "" {
			t.Logf("%s %s %s: %s", rule.ID, evaluation.Status, evaluation.Target, evaluation.Reason)
		}
	}
	return n, passed
}

// writeManifest merges an example's manifest snippet into docBase and
// writes it to dir with the files of model (relative path → content).
func writeManifest(t *testing.T, dir, manifest string, model map[string]string) {
	t.Helper()
	var base map[string]any
	if err := yaml.Unmarshal([]byte(docBase), &base); err != nil {
		t.Fatal(err)
	}
	documents := strings.Split(manifest, "\n---\n")
	var snippet map[string]any
	if err := yaml.Unmarshal([]byte(documents[0]), &snippet); err != nil {
		t.Fatalf("example is not YAML: %v\n%s", err, manifest)
	}
	podSpec := lookupMap(base, "spec", "template", "spec")
	container := podSpec["containers"].([]any)[0].(map[string]any)
	_, root := snippet["kind"]
	for _, key := range []string{"spec", "metadata"} {
		if _, ok := snippet[key]; ok {
			root = true
		}
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
	if err := os.WriteFile(filepath.Join(dir, "example.yaml"), []byte(strings.Join(files, "\n---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	writeExampleFiles(t, dir, model)
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
