package manifest

import (
	"reflect"
	"testing"

	kjson "sigs.k8s.io/json"
)

// TestCleanDecodeMatchesStrict decodes every built-in object of the test
// data both ways: where the fast decode succeeds, kjson finds nothing to
// report either and decodes the same value; where kjson reports nothing,
// the fast decode succeeds too.
func TestCleanDecodeMatchesStrict(t *testing.T) {
	checked := 0
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
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, object := range edges.Objects {
		if checkCleanDecode(t, object) {
			checked++
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
		}
	}
	if checked < 100 {
		t.Fatalf("only %d objects checked", checked)
	}
	t.Logf("%d objects", checked)
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
