package build

import (
	"reflect"
	"strings"

	//lint:ignore SA1019 the builtin plugins' config types are what kustomize v5 reads; the fields they hold must be classified until v1 drops them.
	"sigs.k8s.io/kustomize/api/builtins"
	"sigs.k8s.io/kustomize/api/types"
)

// kind says what a string field of a kustomization or builtin plugin config
// holds, so that every field that names a file is checked before kustomize
// would read, fetch or clone it.
type kind int

const (
	// value is not a file: a name, label, selector, literal, inline patch.
	value kind = iota + 1
	// file is a file relative to the kustomization.
	file
	// fileSource is a generator's files entry: a file, or key=file.
	fileSource
	// target is a resources, bases or components entry: a file, or a
	// directory holding a kustomization.
	target
	// pluginConfig is a generators, transformers or validators entry: a
	// plugin config written inline, or a target holding plugin configs.
	pluginConfig
	// patch is a patchesStrategicMerge entry: a file, or the patch itself.
	patch
	// openAPI is the openapi map, whose path names a file.
	openAPI
	// helm runs the helm binary, which modellint does not: refused whole.
	helm
)

// fields classifies the fields of a type by JSON path ("[]" for a list's
// items, ".*" for a map's values). A path is classified by its own entry or
// else by that of the nearest field above it, so a selector is one entry;
// fields that may name files are listed one by one. TestFieldsClassified
// fails when kustomize adds a field none classifies.
type fields map[string]kind

// kustomizationFields classifies types.Kustomization.
var kustomizationFields = fields{
	"apiVersion": value, "kind": value, "metadata": value,
	"openapi.*":  openAPI,
	"namePrefix": value, "nameSuffix": value, "namespace": value,
	"commonLabels": value, "commonAnnotations": value, "labels": value,
	"patchesStrategicMerge[]": patch,
	"patchesJson6902[].path":  file, "patchesJson6902[].patch": value, "patchesJson6902[].target": value,
	"patches[].path": file, "patches[].patch": value, "patches[].target": value,
	"images": value, "imageTags": value,
	"replacements[].path":   file,
	"replacements[].source": value, "replacements[].targets": value, "replacements[].sourceValue": value,
	"replicas": value, "vars": value, "sortOptions": value,
	"resources[]": target, "bases[]": target, "components[]": target,
	"crds[]":                       file,
	"configMapGenerator[].files[]": fileSource, "configMapGenerator[].envs[]": file, "configMapGenerator[].env": file,
	"configMapGenerator[].namespace": value, "configMapGenerator[].name": value, "configMapGenerator[].behavior": value,
	"configMapGenerator[].literals": value, "configMapGenerator[].options": value,
	"secretGenerator[].files[]": fileSource, "secretGenerator[].envs[]": file, "secretGenerator[].env": file,
	"secretGenerator[].namespace": value, "secretGenerator[].name": value, "secretGenerator[].behavior": value,
	"secretGenerator[].literals": value, "secretGenerator[].options": value, "secretGenerator[].type": value,
	"helmGlobals": helm, "helmCharts": helm, "helmChartInflationGenerator": helm,
	"generatorOptions": value,
	"configurations[]": file,
	"generators[]":     pluginConfig, "transformers[]": pluginConfig, "validators[]": pluginConfig,
	"buildMetadata": value,
}

// generatorFields classifies ConfigMapGenerator's config; SecretGenerator's
// adds type.
var generatorFields = fields{
	"metadata": value, "namespace": value, "name": value, "behavior": value, "literals": value, "options": value,
	"files[]": fileSource, "envs[]": file, "env": file,
}

func secretGeneratorFields() fields {
	secret := fields{"type": value}
	for path, kind := range generatorFields {
		secret[path] = kind
	}
	return secret
}

// sortOrderConfig and prefixSuffixConfig are the configs of
// SortOrderTransformer and PrefixSuffixTransformer, which package builtins
// does not export.
type sortOrderConfig struct {
	SortOptions *types.SortOptions `json:"sortOptions,omitempty"`
}

type prefixSuffixConfig struct {
	Prefix     string        `json:"prefix,omitempty"`
	Suffix     string        `json:"suffix,omitempty"`
	FieldSpecs types.FsSlice `json:"fieldSpecs,omitempty"`
}

// pluginKinds are kustomize's builtin plugins by kind: the type their config
// decodes into and its fields. A plugin that is not builtin is refused, as
// kustomize refuses it when plugins are not enabled.
var pluginKinds = map[string]struct {
	config any
	fields fields
}{
	"AnnotationsTransformer":         {builtins.AnnotationsTransformerPlugin{}, fields{"annotations": value, "fieldSpecs": value}},
	"ConfigMapGenerator":             {builtins.ConfigMapGeneratorPlugin{}, generatorFields},
	"HashTransformer":                {builtins.HashTransformerPlugin{}, fields{}},
	"HelmChartInflationGenerator":    {builtins.HelmChartInflationGeneratorPlugin{}, fields{"": helm}},
	"IAMPolicyGenerator":             {builtins.IAMPolicyGeneratorPlugin{}, fields{"cloud": value, "kubernetesService": value, "serviceAccount": value}},
	"ImageTagTransformer":            {builtins.ImageTagTransformerPlugin{}, fields{"imageTag": value, "fieldSpecs": value}},
	"LabelTransformer":               {builtins.LabelTransformerPlugin{}, fields{"labels": value, "fieldSpecs": value}},
	"NamespaceTransformer":           {builtins.NamespaceTransformerPlugin{}, fields{"metadata": value, "fieldSpecs": value, "setRoleBindingSubjects": value}},
	"PatchJson6902Transformer":       {builtins.PatchJson6902TransformerPlugin{}, fields{"path": file, "target": value, "jsonOp": value}},
	"PatchStrategicMergeTransformer": {builtins.PatchStrategicMergeTransformerPlugin{}, fields{"paths[]": file, "patches": value}},
	"PatchTransformer":               {builtins.PatchTransformerPlugin{}, fields{"path": file, "patch": value, "target": value}},
	"PrefixTransformer":              {builtins.PrefixTransformerPlugin{}, fields{"prefix": value, "fieldSpecs": value}},
	"SuffixTransformer":              {builtins.SuffixTransformerPlugin{}, fields{"suffix": value, "fieldSpecs": value}},
	"ReplacementTransformer": {builtins.ReplacementTransformerPlugin{}, fields{"replacements[].path": file,
		"replacements[].source": value, "replacements[].targets": value, "replacements[].sourceValue": value}},
	"ReplicaCountTransformer": {builtins.ReplicaCountTransformerPlugin{}, fields{"replica": value, "fieldSpecs": value}},
	"SecretGenerator":         {builtins.SecretGeneratorPlugin{}, secretGeneratorFields()},
	"PrefixSuffixTransformer": {prefixSuffixConfig{}, fields{"prefix": value, "suffix": value, "fieldSpecs": value}},
	"SortOrderTransformer":    {sortOrderConfig{}, fields{"sortOptions": value}},
	"ValueAddTransformer":     {builtins.ValueAddTransformerPlugin{}, fields{"targetFilePath": file, "value": value, "targets": value}},
}

// classify returns the kind of the field at path: its own entry's, or that
// of the nearest field above it; 0 when none classifies it.
func (f fields) classify(path string) kind {
	for {
		if k, ok := f[path]; ok {
			return k
		}
		if path == "" {
			return 0
		}
		cut := max(strings.LastIndexAny(path, ".["), 0)
		if strings.HasSuffix(path, ".*") {
			cut = len(path) - 2
		}
		path = path[:cut]
	}
}

// jsonName is the key a struct field decodes from, "" for a field inlined
// into its parent; skip is true for one that does not decode.
func jsonName(field reflect.StructField) (name string, skip bool) {
	if !field.IsExported() {
		return "", true
	}
	tag, _, _ := strings.Cut(field.Tag.Get("json"), ",")
	switch {
	case tag == "-":
		return "", true
	case tag == "" && field.Anonymous:
		return "", false
	case tag == "":
		return field.Name, false
	}
	return tag, false
}

// join appends a key to a field path.
func join(prefix, key string) string {
	switch {
	case key == "":
		return prefix
	case prefix == "":
		return key
	}
	return prefix + "." + key
}
