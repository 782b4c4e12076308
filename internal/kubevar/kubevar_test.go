package kubevar

import "testing"

func TestExpand(t *testing.T) {
	lookup := Map(map[string]string{"A": "x", "B": "$(A)", "a.b-c": "y"})
	cases := map[string]string{
		"$(A)/$(B)":       "x/$(A)", // values are not expanded again
		"$$(A)":           "$(A)",
		"$(MISSING) $(A)": "$(MISSING) x",
		"$(a.b-c)":        "y",
		"$(A":             "$(A",
		"a$":              "a$",
		"$x":              "$x",
		"plain":           "plain",
	}
	for in, want := range cases {
		if got := Expand(in, lookup); got != want {
			t.Errorf("Expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzExpand(f *testing.F) {
	f.Add("--model=$(MODEL_NAME) $$(X) $(MISSING) $(")
	f.Fuzz(func(t *testing.T, value string) {
		Expand(value, Map(map[string]string{"MODEL_NAME": "resnet"}))
	})
}
