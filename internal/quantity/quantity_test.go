package quantity

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		value string
		ok    bool
	}{
		{"1e-999999999", false},
		{"1E999999999", false},
		{"1e99999999999999999999", false},
		{"5e+65", false},
		{strings.Repeat("9", 65), false},
		{"1e64", true}, {"1e-9", true}, {"500m", true}, {"16Gi", true}, {"1Ei", true}, {"2E", true},
		{"abc", true}, {"", true}, {"1e", true}, {"e-999999999", true},
	} {
		if err := Check(c.value); (err == nil) != c.ok {
			t.Errorf("Check(%q) = %v, want ok %v", c.value, err, c.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{"1e-999999999", "500m", "16Gi", "1.5e3", "+1E-64", "0.000000001"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		Parse(value) // must return quickly, whatever the value
	})
}
