package python

import (
	"fmt"
	"slices"
	"testing"
)

func TestParseServeConfig(t *testing.T) {
	apps, err := ParseServeConfig(`
applications:
  - name: llms
    import_path: ray.serve.llm:build_openai_app
  - name: fruit
    import_path: fruit.deployment_graph
    runtime_env:
      working_dir: "https://github.com/ray-project/test_dag/archive/main.zip"
  - name: empty
`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, app := range apps {
		target, ok := serveTarget(app)
		got = append(got, fmt.Sprintf("%s %s:%s remote=%v %v", app.Name, target.Name, target.Attr, app.Remote != "", ok))
	}
	want := []string{"llms ray.serve.llm:build_openai_app remote=false true", "fruit fruit:deployment_graph remote=true true"}
	if !slices.Equal(got, want) {
		t.Errorf("apps:\n got %q\nwant %q", got, want)
	}
	if _, err := ParseServeConfig("applications: {name: x}"); err == nil {
		t.Error("a serveConfigV2 whose applications is not a list parsed")
	}
}

func FuzzParseServeConfig(f *testing.F) {
	for _, seed := range []string{"applications:\n  - name: a\n    import_path: m:app\n", "applications: []\n", "{", "applications:\n  - import_path: .x\n    runtime_env: {pip: [torch]}\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		apps, err := ParseServeConfig(text)
		if err != nil {
			return
		}
		for _, app := range apps {
			if app.ImportPath == "" {
				t.Fatalf("%q: an application without import_path", text)
			}
			if target, ok := serveTarget(app); ok && target.Name == "" {
				t.Fatalf("%q: import_path %q gives an empty module", text, app.ImportPath)
			}
		}
	})
}
