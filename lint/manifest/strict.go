package manifest

import (
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// builtInTypes are the Kubernetes types whose unknown fields are checked, by
// "group/Kind": the workloads and the objects they refer to.
var builtInTypes = map[string]func() any{
	"/Pod":                   func() any { return &corev1.Pod{} },
	"/PodTemplate":           func() any { return &corev1.PodTemplate{} },
	"/ReplicationController": func() any { return &corev1.ReplicationController{} },
	"/Service":               func() any { return &corev1.Service{} },
	"/ConfigMap":             func() any { return &corev1.ConfigMap{} },
	"/Secret":                func() any { return &corev1.Secret{} },
	"/PersistentVolumeClaim": func() any { return &corev1.PersistentVolumeClaim{} },
	"apps/Deployment":        func() any { return &appsv1.Deployment{} },
	"apps/StatefulSet":       func() any { return &appsv1.StatefulSet{} },
	"apps/DaemonSet":         func() any { return &appsv1.DaemonSet{} },
	"apps/ReplicaSet":        func() any { return &appsv1.ReplicaSet{} },
	"batch/Job":              func() any { return &batchv1.Job{} },
	"batch/CronJob":          func() any { return &batchv1.CronJob{} },
}

// podSecurityFields exist only in the pod's securityContext; written in a
// container's, they are the most common unknown field.
var podSecurityFields = map[string]bool{"fsGroup": true, "fsGroupChangePolicy": true, "supplementalGroups": true,
	"supplementalGroupsPolicy": true, "sysctls": true}

// UnknownFields decodes a built-in object strictly, as the API server does
// under strict field validation (the default of kubectl apply and of
// server-side apply): a field the type does not have — fsGroup in a
// container's securityContext, a misspelt key — rejects the whole object.
// Objects of other kinds (CRDs, whose schemas modellint does not hold) have
// none. The object is still linted as it would be read leniently.
func UnknownFields(o *Object) []*InvalidError {
	newType, ok := builtInTypes[o.Group()+"/"+o.Kind]
	if !ok || o.Group() != "" && !strings.HasSuffix(o.APIVersion, "/v1") {
		return nil // an older API version of the group has other fields
	}
	value := any(o.Value)
	if suspicious := suspiciousQuantities(value, ""); len(suspicious) > 0 {
		// Keys are what is checked here: a value that would hang
		// ParseQuantity is swapped for "0" (Decode reports it).
		value = replaceStrings(value, suspicious, "\x00")
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return nil
	}
	strict, err := kjson.UnmarshalStrict(raw, newType(), kjson.DisallowUnknownFields)
	if err != nil {
		return nil // a type error: Decode reports it
	}
	var problems []*InvalidError
	for _, problem := range strict {
		field, found := strings.CutPrefix(problem.Error(), "unknown field ")
		if !found {
			continue
		}
		field = strings.Trim(field, `"`)
		message := fmt.Sprintf("unknown field %s: %s has no such field, so strict field validation (the default of kubectl apply) rejects the object", field, o.Kind)
		if name := field[strings.LastIndexByte(field, '.')+1:]; podSecurityFields[name] && strings.Contains(field, "].securityContext.") {
			message += "; " + name + " belongs in the pod's securityContext, not a container's"
		}
		problems = append(problems, &InvalidError{Object: o, Path: o.knownPrefix(field), Message: message})
	}
	return problems
}

// knownPrefix is the longest prefix of a field path that was written, so
// the finding lands on the field itself, or its nearest parent.
func (o *Object) knownPrefix(path string) string {
	for p := path; p != ""; {
		if o.Has(p) {
			return p
		}
		cut := strings.LastIndexAny(p, ".[")
		if cut <= 0 {
			break
		}
		p = p[:cut]
	}
	return ""
}
