package manifest

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Every Kubernetes object repeats the same keys (apiVersion, metadata,
// containers, resources) and many of the same values (v1, TCP,
// IfNotPresent): they were half of each document's text. A field table
// names those in one text the whole run shares, by a span whose bit
// sharedSpan is set, and writes only its other strings in its own text.

// sharedSpan marks a span of the shared text. A document's own text never
// reaches it: only the scalars and keys it writes (not what its aliases
// expand to) go there, within MaxFileSize.
const sharedSpan = 1 << 31

// sharedText is the shared text and where each of its strings is.
var sharedText = sync.OnceValues(func() (string, map[string]span) {
	names := map[string]bool{}
	seen := map[reflect.Type]bool{}
	for _, newType := range builtInTypes {
		addJSONNames(reflect.TypeOf(newType()), names, seen)
	}
	for key := range builtInTypes {
		group, kind, _ := strings.Cut(key, "/")
		names[kind] = true
		if group != "" {
			names[group+"/v1"] = true
		}
	}
	for _, value := range sharedValues {
		names[value] = true
	}
	sorted := make([]string, 0, len(names))
	for name := range names {
		if name != "" && len(name) <= 32 {
			sorted = append(sorted, name)
		}
	}
	slices.Sort(sorted)
	var text strings.Builder
	spans := make(map[string]span, len(sorted))
	for _, name := range sorted {
		spans[name] = span{start: uint32(text.Len()) | sharedSpan, end: uint32(text.Len()+len(name)) | sharedSpan}
		text.WriteString(name)
	}
	return text.String(), spans
})

// sharedValues are values most manifests write, beside the kinds and
// API versions of the built-in types.
var sharedValues = []string{"v1", "true", "false", "0", "1", "2", "3", "TCP", "UDP", "http", "IfNotPresent", "Always",
	"Never", "OnFailure", "RollingUpdate", "Recreate", "ClusterIP", "NodePort", "LoadBalancer", "Opaque", "ReadWriteOnce",
	"ReadOnlyMany", "ReadWriteMany", "Memory", "nvidia.com/gpu", "NoSchedule", "Exists", "Equal", "RuntimeDefault",
	"PodDisruptionBudget", "policy/v1", "HorizontalPodAutoscaler", "autoscaling/v2", "Ingress", "networking.k8s.io/v1",
	"ServiceAccount", "app", "name", "main", "server", "model", "models", "cpu", "memory"}

// addJSONNames adds the JSON field names of t and of every struct it holds.
func addJSONNames(t reflect.Type, names map[string]bool, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		field := t.Field(i)
		name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
		if name != "-" && name != "" {
			names[name] = true
		}
		addJSONNames(field.Type, names, seen)
	}
}

// str is the string a span names, in the table's text or the shared one.
func (t *fieldTable) str(s span) string {
	if s.start&sharedSpan != 0 {
		shared, _ := sharedText()
		return shared[s.start&^sharedSpan : s.end&^sharedSpan]
	}
	return t.text[s.start:s.end]
}
