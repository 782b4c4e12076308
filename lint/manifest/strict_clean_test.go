package manifest

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// TestCleanDecodeMatchesStrict decodes every built-in object of the test
// data both ways: where the fast decode succeeds, kjson finds nothing to
// report either and decodes the same value; where kjson reports nothing,
// the fast decode succeeds too.
//
// It checks the fill from the field table too (checkFill), and that it
// fills most objects.
func TestCleanDecodeMatchesStrict(t *testing.T) {
	checked, filled := 0, 0
	// Values at the edges of JSON's types, where decoders may disagree.
	edges, err := Load("edges.yaml", []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: a, labels: {on: true, n: 1}}
spec: {replicas: 1.0, template: {spec: {containers: [{name: c, ports: [{containerPort: 8080.5}]}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: b}
spec: {replicas: 1e3, revisionHistoryLimit: 9999999999, template: {spec: {containers: [{name: c, ports: [{containerPort: "80"}]}]}}}
---
apiVersion: v1
kind: Service
metadata: {name: s, annotations: {a: null}}
spec: {ports: [{port: 80, targetPort: 8080}, {port: 81, targetPort: http}, {port: 82, targetPort: 1.5}], selector: {app: null}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, Name: q}
spec: {containers: [{name: c, resources: {limits: {memory: 1Gi, cpu: 0.5}}, Image: x}], nodeSelector: {a: 1}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: null, volumes: [{name: v, emptyDir: {}}, {name: w, emptyDir: null}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: c, creationTimestamp: null, labels: {}, annotations: {a: "", b: null}}
spec:
  replicas: -0
  selector: {matchLabels: {app: "ü"}}
  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 25%}}
  template:
    metadata: {creationTimestamp: "2024-01-02T03:04:05Z"}
    spec:
      containers:
      - {name: c, args: [], env: [{name: A, value: "1"}, {name: B}], ports: [{containerPort: 8080, protocol: null}], livenessProbe: {httpGet: {path: /, port: null}}, readinessProbe: {tcpSocket: {port: -0}}}
      - {name: d, resources: {limits: {memory: 1Gi, cpu: 500m, nvidia.com/gpu: 1}, requests: null}}
      - null
      terminationGracePeriodSeconds: 9223372036854775807
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec: {replicas: true, template: {spec: {hostNetwork: "true"}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: e}
spec: {replicas: 3, progressDeadlineSeconds: 2147483648, template: {spec: {activeDeadlineSeconds: 9223372036854775808}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: f}
spec: {strategy: {rollingUpdate: {maxSurge: 2147483648}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: g}
spec: {strategy: {rollingUpdate: {maxSurge: true}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, object := range edges.Objects {
		if checkCleanDecode(t, object) {
			checked++
		}
		if object.Name == "c" && !checkFill(t, object) {
			t.Errorf("%s: not filled from its table", object.ID())
		}
	}
	for path, source := range projectYAML(t) {
		file, err := Load(path, source)
		if err != nil {
			continue
		}
		for _, object := range file.Objects {
			if checkCleanDecode(t, object) {
				checked++
			}
			if checkFill(t, object) {
				filled++
			}
		}
	}
	if checked < 100 || filled < checked*9/10 {
		t.Fatalf("%d objects checked, %d filled from their tables", checked, filled)
	}
	t.Logf("%d objects, %d filled from their tables", checked, filled)
}

// checkCleanDecode compares the two decodes of a built-in object, and says
// whether it was one.
func checkCleanDecode(t *testing.T, object *Object) bool {
	t.Helper()
	newType, crd := strictType(object)
	if newType == nil || crd || object.hasSuspicious(nil) {
		return false
	}
	raw, _ := object.jsonAt(nil)
	fast, strictTyped := newType(), newType()
	clean := decodesCleanly(raw, fast)
	strict, err := kjson.UnmarshalStrict(raw, strictTyped, kjson.DisallowUnknownFields)
	strictClean := err == nil && len(strict) == 0
	if clean != strictClean {
		t.Errorf("%s: %s: fast decode clean %v, kjson clean %v (%v %v)", object.File.Path, object.ID(), clean, strictClean, err, strict)
	} else if clean && !reflect.DeepEqual(fast, strictTyped) {
		t.Errorf("%s: %s: the fast decode differs:\n%#v\nkjson:\n%#v", object.File.Path, object.ID(), fast, strictTyped)
	}
	return true
}

// checkFill fills a built-in object from its field table and, where it
// fills, compares it with what encoding/json and the fast strict decode give
// from the object's JSON; it says whether it filled. The object's pod spec
// is filled and compared on its own too, as Decode reads it.
func checkFill(t *testing.T, object *Object) bool {
	t.Helper()
	newType, crd := strictType(object)
	if newType == nil || crd || object.hasSuspicious(nil) {
		return false
	}
	filled := checkFillAt(t, object, nil, newType)
	if template, ok := podTemplatePaths[object.Kind]; ok && !object.hasSuspicious(splitPath(template)) {
		checkFillAt(t, object, splitPath(template), func() any { return new(corev1.PodTemplateSpec) })
	}
	return filled
}

// podTemplatePaths are where some kinds keep their pod templates.
var podTemplatePaths = map[string]string{"Deployment": "spec.template", "StatefulSet": "spec.template", "Job": "spec.template"}

func checkFillAt(t *testing.T, object *Object, keys []string, newType func() any) bool {
	t.Helper()
	filled := newType()
	ok := object.fillFromTable(keys, filled)
	if !ok {
		if !reflect.DeepEqual(filled, newType()) {
			t.Errorf("%s: %s %v: a fill that failed left %#v", object.File.Path, object.ID(), keys, filled)
		}
		return false
	}
	raw, _ := object.jsonAt(keys)
	clean, decoded := newType(), newType()
	if !decodesCleanly(raw, clean) || !reflect.DeepEqual(filled, clean) {
		t.Errorf("%s: %s %v: filled %#v\nthe strict decode of %s gives %#v", object.File.Path, object.ID(), keys, filled, raw, clean)
	}
	if err := json.Unmarshal(raw, decoded); err != nil || !reflect.DeepEqual(filled, decoded) {
		t.Errorf("%s: %s %v: filled %#v\nencoding/json gives %#v (%v)", object.File.Path, object.ID(), keys, filled, decoded, err)
	}
	return true
}

// TestFillConcurrently fills objects of several kinds on several goroutines
// at once, the first fill of each kind making its plans, as the objects of
// a run are decoded on every CPU (run with -race).
func TestFillConcurrently(t *testing.T) {
	file, err := Load("kinds.yaml", []byte(`apiVersion: batch/v1
kind: CronJob
metadata: {name: a}
spec: {schedule: "* * * * *", jobTemplate: {spec: {template: {spec: {containers: [{name: c, image: x}]}}}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: b}
spec: {template: {spec: {containers: [{name: c, image: x, ports: [{containerPort: 80}]}]}}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: c}
spec: {template: {spec: {containers: [{name: c, image: x, resources: {limits: {memory: 1Gi}}}]}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	var group sync.WaitGroup
	filled := make([]bool, 4*len(file.Objects))
	for i := range filled {
		group.Go(func() {
			object := file.Objects[i%len(file.Objects)]
			newType, _ := strictType(object)
			filled[i] = object.fillFromTable(nil, newType())
		})
	}
	group.Wait()
	for i, ok := range filled {
		if !ok {
			t.Errorf("%s not filled", file.Objects[i%len(file.Objects)].ID())
		}
	}
}
