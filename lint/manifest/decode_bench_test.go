package manifest

import (
	"encoding/json"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"
)

// The ways to turn an object into k8s.io/api types, on one Deployment of
// the scale benchmark: encoding/json there and back from the plain value
// (what Object.Decode once did per field it was asked for), the strict
// decode of sigs.k8s.io/json from the same JSON, apimachinery's
// unstructured converter, lenient and with unknown fields reported, and
// what the strict check does now: JSON written off the field table, decoded
// by go-json-experiment/json, else by sigs.k8s.io/json. The converter
// matches keys case-sensitively, where encoding/json does not, so it would
// read some manifests differently.
// go test -run '^$' -bench Compare ./lint/manifest

const compareDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: m
  namespace: n
  labels: {app: m}
spec:
  replicas: 2
  selector:
    matchLabels: {app: m}
  template:
    metadata:
      labels: {app: m}
    spec:
      containers:
        - name: server
          image: vllm/vllm-openai:v0.6.1
          args: [--model, /models/m, --port, "8000", --served-model-name, m]
          env:
            - name: LOG_LEVEL
              valueFrom: {configMapKeyRef: {name: settings-1, key: log-level}}
            - name: HF_TOKEN
              valueFrom: {secretKeyRef: {name: token-1, key: token}}
          ports: [{containerPort: 8000, name: http}]
          readinessProbe:
            httpGet: {path: /health, port: http}
          livenessProbe:
            httpGet: {path: /health, port: 8001}
            periodSeconds: 10
          resources:
            requests: {cpu: "4", memory: 8Gi, nvidia.com/gpu: 1}
            limits: {memory: 16Gi, nvidia.com/gpu: 1}
          volumeMounts: [{name: models, mountPath: /models}]
      volumes:
        - name: models
          persistentVolumeClaim: {claimName: models-1}
`

func compareObject(b *testing.B) *Object {
	file, err := Load("d.yaml", []byte(compareDeployment))
	if err != nil {
		b.Fatal(err)
	}
	return file.Objects[0]
}

func compareValue(b *testing.B) map[string]any { return compareObject(b).Plain() }

func BenchmarkCompareJSONRoundTrip(b *testing.B) {
	value := compareValue(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		raw, _ := json.Marshal(value)
		var d appsv1.Deployment
		if err := json.Unmarshal(raw, &d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompareKJSONStrict(b *testing.B) {
	value := compareValue(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		raw, _ := json.Marshal(value)
		var d appsv1.Deployment
		if _, err := kjson.UnmarshalStrict(raw, &d, kjson.DisallowUnknownFields); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompareFromUnstructured(b *testing.B) {
	value := compareValue(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var d appsv1.Deployment
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(value, &d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompareFromUnstructuredStrict(b *testing.B) {
	value := compareValue(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var d appsv1.Deployment
		if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(value, &d, true); err != nil {
			b.Fatal(err)
		}
	}
}

// The decode the strict check does now: JSON written off the field table,
// decoded strictly by sigs.k8s.io/json.
func BenchmarkCompareTableKJSONStrict(b *testing.B) {
	object := compareObject(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		raw, _ := object.jsonAt(nil)
		var d appsv1.Deployment
		if _, err := kjson.UnmarshalStrict(raw, &d, kjson.DisallowUnknownFields); err != nil {
			b.Fatal(err)
		}
	}
}

// The same JSON decoded by go-json-experiment/json, case-sensitive and
// rejecting unknown members (it stops at the first).
func BenchmarkCompareTableJSONv2Strict(b *testing.B) {
	object := compareObject(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		raw, _ := object.jsonAt(nil)
		var d appsv1.Deployment
		if err := jsonv2.Unmarshal(raw, &d, jsonv1.DefaultOptionsV1(), jsonv2.MatchCaseInsensitiveNames(false), jsonv2.RejectUnknownMembers(true)); err != nil {
			b.Fatal(err)
		}
	}
}
