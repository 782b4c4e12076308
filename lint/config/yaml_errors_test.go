package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestYAMLErrorsHaveLines: the YAML parser's own errors (a key written
// twice, a syntax error) are one line each at file:line, as the config's
// other errors are, and At names where a key is written.
func TestYAMLErrorsHaveLines(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		config string
		want   []string
	}{
		{"failOn: warning\nfailOn: error\nrules:\n  MDL205: {}\n  MDL205: {}\n", []string{
			`:2: "failOn" is written twice in one mapping; keep one`, `:5: "MDL205" is written twice in one mapping; keep one`}},
		{"failOn: [\n", []string{`:1: did not find expected node content`}},
	}
	for i, c := range cases {
		path := filepath.Join(dir, string(rune('a'+i))+".yaml")
		if err := os.WriteFile(path, []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		var want []string
		for _, line := range c.want {
			want = append(want, path+line)
		}
		if err == nil || err.Error() != strings.Join(want, "\n") {
			t.Errorf("%q: error\n%v\nwant\n%s", c.config, err, strings.Join(want, "\n"))
		}
	}
	path := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(path, []byte("disable:\n  - MDL205\n  - MDL208\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := config.At("disable[1]"); got != path+":3:5" {
		t.Errorf("At(disable[1]) = %q", got)
	}
	if got := config.At("rules.MDL205"); got != path {
		t.Errorf("At of a key not written = %q, want the file", got)
	}
	if got := (&Config{}).At("disable"); got != "" {
		t.Errorf("At of the defaults = %q", got)
	}
}
