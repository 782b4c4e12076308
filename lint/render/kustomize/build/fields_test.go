package build

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
)

// TestFieldsClassified walks kustomize's own types: every string field of
// a kustomization and of each builtin plugin's config must be classified,
// so a field kustomize adds that may name a file fails here until it is,
// and every entry of the tables must still name a field.
func TestFieldsClassified(t *testing.T) {
	check := func(name string, config any, table fields) {
		var leaves []string
		leafPaths(reflect.TypeOf(config), "", map[reflect.Type]bool{}, &leaves)
		for _, leaf := range leaves {
			if table.classify(leaf) == 0 {
				t.Errorf("%s: field %s is not classified: say whether it names a file", name, leaf)
			}
		}
		for entry := range table {
			if !slices.ContainsFunc(leaves, func(leaf string) bool {
				return leaf == entry || strings.HasPrefix(leaf, entry+".") || strings.HasPrefix(leaf, entry+"[") || entry == ""
			}) {
				t.Errorf("%s: %s classifies no field", name, entry)
			}
		}
	}
	check("Kustomization", types.Kustomization{}, kustomizationFields)
	for kind, plugin := range pluginKinds {
		check(kind, plugin.config, plugin.fields)
	}
	for _, name := range krusty.GetBuiltinPluginNames() {
		if _, ok := pluginKinds[name]; !ok {
			t.Errorf("builtin plugin %s is not in pluginKinds", name)
		}
	}
}

// leafPaths lists the paths of the string (and untyped) fields a value of
// type t decodes, as the tables name them.
func leafPaths(t reflect.Type, prefix string, seen map[reflect.Type]bool, out *[]string) {
	switch t.Kind() {
	case reflect.Pointer:
		leafPaths(t.Elem(), prefix, seen, out)
	case reflect.String, reflect.Interface:
		*out = append(*out, prefix)
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			*out = append(*out, prefix)
			return
		}
		leafPaths(t.Elem(), prefix+"[]", seen, out)
	case reflect.Map:
		leafPaths(t.Elem(), prefix+".*", seen, out)
	case reflect.Struct:
		if seen[t] {
			*out = append(*out, prefix) // a recursive type: its fields are classified here
			return
		}
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			name, skip := jsonName(t.Field(i))
			if !skip {
				leafPaths(t.Field(i).Type, join(prefix, name), seen, out)
			}
		}
	}
}
