package manifest

import "testing"

// TestReleaseNamespace: the namespace's derived values go, and the
// documents of its Services, ConfigMaps and other objects only its own
// workloads read; objects of other namespaces or of none, of a List, of
// other kinds, and the set's own derived values stay.
func TestReleaseNamespace(t *testing.T) {
	source := "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: a}\nspec: {selector: {app: a}}\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: a}\ndata: {k: v}\n---\n" +
		"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p, namespace: a}\nspec: {minAvailable: 1}\n---\n" +
		"apiVersion: serving.kserve.io/v1alpha1\nkind: ServingRuntime\nmetadata: {name: r, namespace: a}\nspec: {containers: []}\n---\n" +
		"apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: b}\nspec: {selector: {app: a}}\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: g}\ndata: {k: v}\n---\n" +
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: l, namespace: a}, data: {k: v}}\n"
	file, err := Load("release.yaml", []byte(source))
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet([]*File{file}, ReleaseTyped())
	if err != nil {
		t.Fatal(err)
	}
	computed := map[string]int{}
	derive := func(namespace string) {
		set.DerivedIn(namespace, "k", func() any { computed[namespace]++; return nil })
	}
	derive("a")
	derive("b")
	derive("")
	set.Derived("k", func() any { computed["set"]++; return nil })

	set.ReleaseNamespace("a")
	reads := RetiredReads()
	for _, kind := range []string{"Service", "ConfigMap", "PodDisruptionBudget"} {
		if object := set.Find(kind, "a", objectName(kind)); object.Has("metadata") {
			t.Errorf("%s of a kept", kind)
		}
	}
	if RetiredReads() != reads+3 {
		t.Errorf("%d retired reads, want 3", RetiredReads()-reads)
	}
	for _, kept := range []*Object{set.Find("ServingRuntime", "a", "r"), set.Find("Service", "b", "s"), set.Find("ConfigMap", "", "g"),
		set.Find("ConfigMap", "a", "l")} {
		if !kept.Has("metadata") {
			t.Errorf("%s released", kept.ID())
		}
	}
	derive("a")
	derive("b")
	derive("")
	set.Derived("k", func() any { computed["set"]++; return nil })
	if computed["a"] != 2 || computed["b"] != 1 || computed[""] != 1 || computed["set"] != 1 {
		t.Errorf("computed %v: want a's value derived again, the others kept", computed)
	}
	set.ReleaseNamespace("")
	derive("")
	if computed[""] != 2 || !set.Find("ConfigMap", "", "g").Has("metadata") {
		t.Errorf("released no namespace: computed %v; want its values derived again and its objects kept", computed)
	}
}

func objectName(kind string) string {
	return map[string]string{"Service": "s", "ConfigMap": "c", "PodDisruptionBudget": "p"}[kind]
}
