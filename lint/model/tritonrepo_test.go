package model

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestJoinTritonRepositories(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		file := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("repo/ens/config.pbtxt", `platform: "ensemble" ensemble_scheduling { step { model_name: "pre" } }`)
	write("repo/ens/1/.keep", "")
	write("repo/pre/config.pbtxt", `backend: "python"`)
	write("repo/pre/1/model.py", "def auto_complete_config(config):\n    return config\n")
	write("repo/unread/README", "")
	write("other/solo/config.pbtxt", `backend: "python"`)
	write("other/solo/1/model.py", "class TritonPythonModel: pass\n")
	var models []*Model
	for _, dir := range []string{"repo/ens", "repo/pre", "other/solo"} {
		m, err := Load(filepath.Join(root, filepath.FromSlash(dir)), filepath.ToSlash(filepath.Join(root, dir)))
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	repo := filepath.ToSlash(filepath.Join(root, "repo"))
	JoinTritonRepositories(models, func(dir string) bool { return dir == repo })
	ens, pre, solo := models[0].Triton, models[1].Triton, models[2].Triton
	if ens.Repository == nil || ens.Repository != pre.Repository || solo.Repository != nil {
		t.Fatalf("repositories: ens %v, pre %v, solo %v", ens.Repository, pre.Repository, solo.Repository)
	}
	if want := []string{"ens", "pre", "unread"}; !reflect.DeepEqual(ens.Repository.Entries, want) {
		t.Errorf("entries = %v, want %v", ens.Repository.Entries, want)
	}
	if !ens.Repository.Has("unread") || ens.Repository.Has("solo") || ens.Repository.Models["pre"] != models[1] || ens.Repository.Models["unread"] != nil {
		t.Errorf("repository = %+v", ens.Repository)
	}
	if pre.PythonBackend(models[1]) != "python" || ens.PythonBackend(models[0]) != "" {
		t.Errorf("PythonBackend: pre %q, ens %q", pre.PythonBackend(models[1]), ens.PythonBackend(models[0]))
	}
	if !pre.PythonAutoComplete || solo.PythonAutoComplete {
		t.Errorf("PythonAutoComplete: pre %v, solo %v", pre.PythonAutoComplete, solo.PythonAutoComplete)
	}
}
