package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"
	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"

	"github.com/modellint/modellint/internal/lazyregexp"
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

// referencedKinds are the built-in kinds of builtInTypes that are not
// workloads: no workload is read off them, so their typed objects are not
// kept once their fields are checked (10,000 Services and claims hold 16
// MB). The rules that read one decode it, once per namespace or per
// workload that names it. A workload's typed object is read again for its
// pod spec, controller and template metadata.
var referencedKinds = map[string]bool{"Service": true, "ConfigMap": true, "Secret": true, "PersistentVolumeClaim": true}

// crdTypes are the serving CRDs checked the same way, with the project's
// own API types, by "group/Kind"; only their version v1 (an older version
// has other fields). KubeRay generates its CRDs' schemas from these types
// and keeps no unknown fields anywhere in them, so the API server rejects
// exactly what a strict decode does. Other serving CRDs are not here: their
// API modules are not served, or (Argo Rollouts) the CRD's schema is not the
// types' (it lets unknown fields through under resources, and rewrites the
// template metadata's).
var crdTypes = map[string]crdType{
	"ray.io/RayCluster": {"rayclusters.ray.io", func() any { return &rayv1.RayCluster{} }},
	"ray.io/RayJob":     {"rayjobs.ray.io", func() any { return &rayv1.RayJob{} }},
	"ray.io/RayService": {"rayservices.ray.io", func() any { return &rayv1.RayService{} }},
}

// crdType is the type a serving CRD's objects are decoded into, and the
// CRD's name (what kubectl get crd NAME takes).
type crdType struct {
	name    string
	newType func() any
}

// strictType returns the type an object is strictly decoded into, if any,
// and whether it is a CRD's.
func strictType(o *Object) (newType func() any, crd bool) {
	key := o.Group() + "/" + o.Kind
	if o.Group() != "" && !strings.HasSuffix(o.APIVersion, "/v1") {
		return nil, false // an older API version of the group has other fields
	}
	if newType, ok := builtInTypes[key]; ok {
		return newType, false
	}
	if t, ok := crdTypes[key]; ok {
		return t.newType, true
	}
	return nil, false
}

// podSecurityFields exist only in the pod's securityContext; written in a
// container's, they are the most common unknown field.
var podSecurityFields = map[string]bool{"fsGroup": true, "fsGroupChangePolicy": true, "supplementalGroups": true,
	"supplementalGroupsPolicy": true, "sysctls": true}

// UnknownFields decodes a built-in object strictly, as the API server does
// under strict field validation (the default of kubectl apply and of
// server-side apply): a field the type does not have — fsGroup in a
// container's securityContext, a misspelt key — rejects the whole object.
// The serving CRDs of crdTypes are decoded with their projects' types; other
// CRDs, whose schemas modellint does not hold, have none. The object is
// still linted as it would be read leniently.
func UnknownFields(o *Object) []*InvalidError {
	return o.decodeStrict().unknown
}

// strictDecoding is the one strict decode of a built-in object: its unknown
// fields and, when it decoded with neither a type error nor an unknown
// field, the typed object.
type strictDecoding struct {
	unknown []*InvalidError
	// typed is what json.Unmarshal would give too: without unknown fields
	// no key differs from its field but in case (a strict decode is case
	// sensitive, a lenient one is not) and no key is dropped, so Decode
	// reads the typed object instead of converting the value again. It is
	// nil otherwise, and Decode converts as before.
	typed any
	// invalid is, for a CRD, the field of the wrong type that the strict
	// decode stopped at: nothing else decodes a CRD's every field, so it is
	// reported from here (a built-in object's is reported by Decode).
	invalid *InvalidError
	// newType and crd say how typed was decoded, so that it can be decoded
	// again once released (see hold.go); newType is nil when none was kept.
	newType func() any
	crd     bool
}

// decodeStrict decodes the object strictly once and keeps the outcome.
// Most objects decode cleanly and keep nothing of it (a Service, a
// ConfigMap): they share one empty outcome.
func (o *Object) decodeStrict() *strictDecoding {
	if o.strict != nil {
		return o.strict
	}
	if s := o.decodeStrictOutcome(); s.unknown == nil && s.typed == nil && s.invalid == nil && s.newType == nil {
		o.strict = &nothingKept
	}
	return o.strict
}

// nothingKept is the outcome of the strict decodes that keep nothing;
// never written.
var nothingKept strictDecoding

// decodeStrictOutcome is decodeStrict's decode.
func (o *Object) decodeStrictOutcome() *strictDecoding {
	o.strict = &strictDecoding{}
	newType, crd := strictType(o)
	if newType == nil {
		if template, ok := podTemplateCRDs[o.Group()+"/"+o.Kind]; ok && o.APIVersion == template.apiVersion {
			o.strict.unknown = o.templateUnknownFields(template)
		}
		return o.strict
	}
	suspicious := o.hasSuspicious(nil)
	var typed any
	if !crd && !suspicious {
		typed = o.filledType(newType)
	}
	var strict []error
	var err error
	if typed == nil {
		var raw []byte
		if suspicious {
			// Keys are what is checked here: a value that would hang
			// ParseQuantity is swapped for "0"; Decode reports it, so the
			// typed object, which holds the swap, is not kept.
			value, _ := o.Lookup()
			if raw, err = json.Marshal(replaceStrings(value, suspiciousQuantities(value, ""), "\x00")); err != nil {
				return o.strict
			}
		} else {
			buffer := jsonBuffers.Get().(*[]byte)
			defer returnJSONBuffer(buffer, &raw)
			if raw, _ = o.appendJSONAt((*buffer)[:0], nil); raw == nil {
				return o.strict
			}
		}
		// The serving CRDs' types are kjson's alone: only the built-in
		// types are checked to decode alike both ways.
		typed, strict, err = decodeTyped(raw, newType, crd)
	}
	if err != nil {
		if crd && !suspicious {
			// Decode again, leniently, for the error that names the field.
			var invalid *InvalidError
			if errors.As(o.Decode(newType()), &invalid) {
				o.narrowToMapEntry(invalid, reflect.TypeOf(typed))
				o.strict.invalid = invalid
			}
		}
		return o.strict // a built-in's type error: Decode reports it
	}
	if len(strict) == 0 {
		if !referencedKinds[o.Kind] && !suspicious {
			o.strict.typed, o.strict.newType, o.strict.crd = typed, newType, crd
		}
		return o.strict
	}
	o.strict.unknown = o.unknownFields(strict, reflect.TypeOf(typed), "")
	if crd {
		// A field the types lack may be one of a newer release of the
		// operator (KubeRay v1.6's authOptions): the cluster's CRD decides.
		for _, unknown := range o.strict.unknown {
			unknown.Unsure, unknown.CRD = true, crdTypes[o.Group()+"/"+o.Kind].name
			unknown.Message = strings.Replace(unknown.Message, "has no such field, so strict field validation "+
				"(the default of kubectl apply) rejects the object", "has no such field in "+crdTypesVersion+
				"'s API, so strict field validation (the default of kubectl apply) rejects the object unless the "+
				"cluster runs a newer release whose CRD has it", 1)
		}
	}
	return o.strict
}

// crdTypesVersion is the release of the CRD types in crdTypes.
const crdTypesVersion = "KubeRay v1.5.0"

// decodeTyped decodes raw into a new value of newType, strictly: the
// serving CRDs' types by kjson alone, the built-in ones by decodesCleanly
// first.
func decodeTyped(raw []byte, newType func() any, crd bool) (typed any, strict []error, err error) {
	typed = newType()
	if crd || !decodesCleanly(raw, typed) {
		typed = newType() // not what a failed decode left behind
		strict, err = kjson.UnmarshalStrict(raw, typed, kjson.DisallowUnknownFields)
	}
	return typed, strict, err
}

// retype decodes again the typed object that a release dropped (see
// hold.go); it decoded cleanly before, from the same field table.
func (o *Object) retype() {
	s := o.strict
	if s == nil || s.newType == nil || s.typed != nil {
		return
	}
	if !s.crd {
		if s.typed = o.filledType(s.newType); s.typed != nil {
			return
		}
	}
	buffer := jsonBuffers.Get().(*[]byte)
	raw, _ := o.appendJSONAt((*buffer)[:0], nil)
	defer returnJSONBuffer(buffer, &raw)
	if raw == nil {
		return
	}
	if typed, strict, err := decodeTyped(raw, s.newType, s.crd); err == nil && len(strict) == 0 {
		s.typed = typed
	}
}

// filledType is a new value of newType filled from the field table
// (fillFromTable), or nil. Only the built-in types are filled: the
// decodes of the serving CRDs' types are kjson's alone.
func (o *Object) filledType(newType func() any) any {
	if typed := newType(); o.fillFromTable(nil, typed) {
		return typed
	}
	return nil
}

// jsonBuffers lend the buffers an object's JSON is written into for a
// typed decode: the decoders copy what they keep, so a buffer serves the
// next object, and a run does not allocate one per object.
var jsonBuffers = sync.Pool{New: func() any { return new([]byte) }}

// returnJSONBuffer gives back a buffer of jsonBuffers, grown to *raw, but
// not one grown past 1 MiB for one large object.
func returnJSONBuffer(buffer *[]byte, raw *[]byte) {
	if cap(*raw) > cap(*buffer) {
		*buffer = *raw
	}
	if cap(*buffer) <= 1<<20 {
		jsonBuffers.Put(buffer)
	}
}

// decodesCleanly decodes raw into typed, case-sensitive and rejecting an
// unknown field at the first, with encoding/json's semantics otherwise: for
// the built-in types, what kjson.UnmarshalStrict gives when it finds
// nothing to report (TestCleanDecodeMatchesStrict), in half the time. Any
// failure is decoded again by kjson, which names every problem.
func decodesCleanly(raw []byte, typed any) bool {
	return jsonv2.Unmarshal(raw, typed, jsonv1.DefaultOptionsV1(), jsonv2.MatchCaseInsensitiveNames(false),
		jsonv2.RejectUnknownMembers(true)) == nil
}

// unknownFields turns the strict decode's complaints into findings at the
// fields; prefix is the path of the decoded value inside the object.
func (o *Object) unknownFields(strict []error, typed reflect.Type, prefix string) []*InvalidError {
	var unknown []*InvalidError
	for _, problem := range strict {
		field, found := strings.CutPrefix(problem.Error(), "unknown field ")
		if !found {
			continue
		}
		relative := strings.Trim(field, `"`)
		field = ConcatPath(prefix, relative)
		message := fmt.Sprintf("unknown field %s: %s has no such field, so strict field validation (the default of kubectl apply) rejects the object", field, o.Kind)
		if name := field[strings.LastIndexByte(field, '.')+1:]; podSecurityFields[name] && strings.Contains(field, "].securityContext.") {
			message += "; " + name + " belongs in the pod's securityContext, not a container's"
		} else if suggestion := nearestField(typed, relative); suggestion != "" {
			message += fmt.Sprintf(" (did you mean %s?)", suggestion)
		}
		unknown = append(unknown, &InvalidError{Object: o, Path: o.knownPrefix(field), Message: message})
	}
	return unknown
}

// podTemplateCRD is a CRD whose schema holds a pod template as the core
// types define it, checked with those types; schemaless are the template's
// fields the CRD lets through unchecked (x-kubernetes-preserve-unknown-fields).
type podTemplateCRD struct {
	apiVersion string
	path       string
	schemaless []string
}

// podTemplateCRDs are checked for their pod template only, by "group/Kind".
// Linking Argo Rollouts' API module would make the binary much larger, and
// its CRD's schema is not its types' anyway; the CRD it publishes (in that module) checks the
// template as the core PodTemplateSpec but for volumes (and resources,
// whose maps take any key anyway).
var podTemplateCRDs = map[string]podTemplateCRD{
	"argoproj.io/Rollout": {apiVersion: "argoproj.io/v1alpha1", path: "spec.template", schemaless: []string{"spec.volumes"}},
}

var podTemplateSpecType = reflect.TypeOf(corev1.PodTemplateSpec{})

// templateUnknownFields decodes the pod template of a podTemplateCRDs kind
// strictly and returns its unknown fields. A field of the wrong type is for
// Decode to report, when the pod spec is read.
func (o *Object) templateUnknownFields(template podTemplateCRD) []*InvalidError {
	value, ok := o.Lookup(splitPath(template.path)...)
	if !ok {
		return nil
	}
	fields, ok := value.(map[string]any)
	if !ok {
		return nil
	}
	checked := without(fields, template.schemaless)
	if len(suspiciousQuantities(checked, "")) > 0 {
		return nil // Decode reports a value that would hang ParseQuantity
	}
	raw, err := json.Marshal(checked)
	if err != nil {
		return nil
	}
	strict, err := kjson.UnmarshalStrict(raw, &corev1.PodTemplateSpec{}, kjson.DisallowUnknownFields)
	if err != nil {
		return nil
	}
	return o.unknownFields(strict, podTemplateSpecType, template.path)
}

// without copies fields, leaving out the field paths given (as deep as
// needed), and shares everything else.
func without(fields map[string]any, paths []string) map[string]any {
	copied := make(map[string]any, len(fields))
	for key, value := range fields {
		copied[key] = value
	}
	for _, path := range paths {
		head, rest, nested := strings.Cut(path, ".")
		if !nested {
			delete(copied, head)
			continue
		}
		if inner, ok := copied[head].(map[string]any); ok {
			copied[head] = without(inner, []string{rest})
		}
	}
	return copied
}

// narrowToMapEntry narrows a type error in a map, which encoding/json names
// by the map's field, to the first entry (in the file) whose value does not
// decode, so the finding names the key and lands on its line: `num-gpus: 1`
// in rayStartParams, whose values KubeRay's schema wants as strings.
func (o *Object) narrowToMapEntry(invalid *InvalidError, root reflect.Type) {
	value, ok := o.Lookup(splitPath(invalid.Path)...)
	entries, isMap := value.(map[string]any)
	if !ok || !isMap {
		return
	}
	mapType := root
	for _, key := range strings.Split(indexPattern.ReplaceAllString(invalid.Path, ""), ".") {
		if mapType, ok = jsonFieldType(structElem(mapType), key); !ok {
			return
		}
	}
	for mapType.Kind() == reflect.Pointer {
		mapType = mapType.Elem()
	}
	if mapType.Kind() != reflect.Map {
		return
	}
	keys := make([]string, 0, len(entries))
	for key := range entries {
		keys = append(keys, key)
	}
	line := func(key string) int { return o.Doc.Locate(o.FullPath(JoinPath(invalid.Path, key))).Line }
	sort.Slice(keys, func(i, j int) bool {
		if line(keys[i]) != line(keys[j]) {
			return line(keys[i]) < line(keys[j])
		}
		return keys[i] < keys[j]
	})
	for _, key := range keys {
		raw, err := json.Marshal(entries[key])
		if err != nil {
			return
		}
		var typeErr *json.UnmarshalTypeError
		if errors.As(json.Unmarshal(raw, reflect.New(mapType.Elem()).Interface()), &typeErr) {
			invalid.Path = JoinPath(invalid.Path, key)
			invalid.Message = fmt.Sprintf("%s: a %s where the API expects %s", invalid.Path, typeErr.Value, typeErr.Type)
			return
		}
	}
}

// InvalidCRD is, for a serving CRD decoded with its project's types, the
// field of the wrong type that makes the API server reject it; nil when
// there is none or the kind is not one of them.
func InvalidCRD(o *Object) *InvalidError { return o.decodeStrict().invalid }

// nearestField is the field of the struct holding an unknown field (path as
// the strict decode names it, "spec.headGroupSpec.rayStartParam") whose
// JSON name is close to the unknown one: a different case, or at most a
// third of its letters changed. "" when none is.
func nearestField(root reflect.Type, path string) string {
	keys := strings.Split(indexPattern.ReplaceAllString(path, ""), ".")
	structType := root
	for _, key := range keys[:len(keys)-1] {
		field, ok := jsonFieldType(structElem(structType), key)
		if !ok {
			return ""
		}
		structType = field
	}
	structType = structElem(structType)
	if structType.Kind() != reflect.Struct {
		return ""
	}
	unknown := keys[len(keys)-1]
	if len(unknown) > 128 {
		return "" // no field is that long; the distance would cost its length times theirs
	}
	best, bestDistance := "", len(unknown)/3+1
	for _, name := range jsonNames(structType) {
		if strings.EqualFold(name, unknown) {
			return name
		}
		if d := levenshtein.ComputeDistance(unknown, name); d < bestDistance {
			best, bestDistance = name, d
		}
	}
	return best
}

// indexPattern matches the sequence indexes of a field path.
var indexPattern = lazyregexp.New(`\[\d+\]`)

// structElem looks through pointers, slices and maps to the type they hold.
func structElem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t
}

// jsonFieldType is the type of the struct field encoding/json decodes key
// into, looking through embedded structs without a JSON name.
func jsonFieldType(structType reflect.Type, key string) (reflect.Type, bool) {
	if structType.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range structType.NumField() {
		field := structType.Field(i)
		name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
		switch {
		case name == "-" || !field.IsExported():
		case name == key:
			return field.Type, true
		case name == "" && field.Anonymous:
			if inner, ok := jsonFieldType(structElem(field.Type), key); ok {
				return inner, true
			}
		}
	}
	return nil, false
}

// jsonNames are the JSON names of a struct's fields, embedded ones included.
func jsonNames(structType reflect.Type) []string {
	var names []string
	for i := range structType.NumField() {
		field := structType.Field(i)
		name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
		switch {
		case name == "-" || !field.IsExported():
		case name == "" && field.Anonymous && structElem(field.Type).Kind() == reflect.Struct:
			names = append(names, jsonNames(structElem(field.Type))...)
		case name != "":
			names = append(names, name)
		}
	}
	return names
}

// typedObject returns the strictly decoded object when it is a T, for a
// workload to read its controller in place (read-only) rather than a copy,
// which a large run would hold once per workload.
func typedObject[T any](o *Object) *T {
	if o.strict == nil {
		return nil
	}
	typed, _ := o.strict.typed.(*T)
	return typed
}

// typedFieldOf returns the field of the strictly decoded object at keys
// when it is a T, in place; nil otherwise.
func typedFieldOf[T any](o *Object, keys []string) *T {
	value, ok := o.typedField(keys)
	if !ok || !value.CanAddr() {
		return nil
	}
	field, _ := value.Addr().Interface().(*T)
	return field
}

// typedField returns the field of the strictly decoded object at keys
// (JSON field names), if the object has one and every key names a struct
// field on the way.
func (o *Object) typedField(keys []string) (reflect.Value, bool) {
	if o.strict == nil || o.strict.typed == nil {
		return reflect.Value{}, false
	}
	value := reflect.ValueOf(o.strict.typed)
	for _, key := range keys {
		for value.Kind() == reflect.Pointer {
			if value.IsNil() {
				return reflect.Value{}, false
			}
			value = value.Elem()
		}
		if value.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		var ok bool
		if value, ok = jsonField(value, key); !ok {
			return reflect.Value{}, false
		}
	}
	return value, true
}

// jsonField is the field encoding/json decodes key into, looking through
// embedded structs without a JSON name (TypeMeta, VolumeSource).
func jsonField(value reflect.Value, key string) (reflect.Value, bool) {
	structType := value.Type()
	for i := range structType.NumField() {
		field := structType.Field(i)
		name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
		if name == "-" || !field.IsExported() {
			continue
		}
		if name == key {
			return value.Field(i), true
		}
		if name == "" && field.Anonymous && field.Type.Kind() == reflect.Struct {
			if inner, ok := jsonField(value.Field(i), key); ok {
				return inner, true
			}
		}
	}
	return reflect.Value{}, false
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
