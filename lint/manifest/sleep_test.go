package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sleepSource = "# modellint:ignore MDL205 batch\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\n" +
	"spec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image: i\n" +
	"---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {app: a}}\n"

// settled loads path as the engine does: parsed, settled with a reread of
// the file, and made a set.
func settled(t *testing.T, path string, deep bool) (*File, *Set) {
	t.Helper()
	source, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	file, err := Load(path, source)
	if err != nil {
		t.Fatal(err)
	}
	file.Settle(func() ([]byte, error) { return os.ReadFile(path) }, deep)
	set, err := NewSet([]*File{file}, ReleaseTyped())
	if err != nil {
		t.Fatal(err)
	}
	return file, set
}

func TestSleepingFileWakesAsItWas(t *testing.T) {
	for _, deep := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "app.yaml")
		if err := os.WriteFile(path, []byte(sleepSource), 0o644); err != nil {
			t.Fatal(err)
		}
		file, set := settled(t, path, deep)
		deployment := set.Workloads[0]
		doc := deployment.Object.Doc
		if file.Source != nil || !doc.sleeping.Load() || len(doc.fields.entries) != 0 || (len(doc.packed) == 0) != deep {
			t.Fatalf("deep %v: source %d bytes, document sleeping %v with %d entries and %d bytes packed after Settle",
				deep, len(file.Source), doc.sleeping.Load(), len(doc.fields.entries), len(doc.packed))
		}
		// The suppression markers are read while the file sleeps.
		if line := file.MarkedLines()[1]; !strings.Contains(line, "MDL205") || file.Source != nil {
			t.Errorf("deep %v: marked line %q, or the file woke for it", deep, line)
		}
		// The Service does not sleep: other workloads' rules read it. Its
		// entries are packed for good, and each read unpacks them.
		service := set.Find("Service", "", "s")
		if service.Doc.sleeping.Load() || service.Doc.packed == nil || len(service.Doc.fields.entries) != 0 {
			t.Errorf("deep %v: the Service's document sleeps, or its %d entries are not packed", deep, len(service.Doc.fields.entries))
		}
		if got, pos := service.stringAt("spec", "selector", "app"), service.Locate("spec.selector.app"); got != "a" || pos != (Position{Line: 15, Column: 19}) {
			t.Errorf("deep %v: the Service's selector %q at %+v, want \"a\" at 15:19", deep, got, pos)
		}
		if err := deployment.Hold(); err != nil {
			t.Fatal(err)
		}
		if got := deployment.Object.Locate("spec.template.spec.containers[0].image"); got != (Position{Line: 10, Column: 9}) {
			t.Errorf("deep %v: image at %+v after the wake, want 10:9", deep, got)
		}
		if deployment.Containers[0].Image != "i" || file.Line(3) != "kind: Deployment" {
			t.Errorf("deep %v: image %q, line 3 %q after the wake", deep, deployment.Containers[0].Image, file.Line(3))
		}
		deployment.Release()
		if err := file.WakeError(); err != nil {
			t.Error(err)
		}
	}
}

func TestChangedFileDoesNotWake(t *testing.T) {
	for _, change := range []string{"image: i", "image: j"} {
		path := filepath.Join(t.TempDir(), "app.yaml")
		if err := os.WriteFile(path, []byte(sleepSource), 0o644); err != nil {
			t.Fatal(err)
		}
		file, set := settled(t, path, true)
		changed := strings.Replace(sleepSource, "image: i", change, 1) + "# edited\n"
		if change == "image: j" {
			changed = strings.Replace(sleepSource, "image: i", change, 1) // same size
		}
		if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		err := set.Workloads[0].Hold()
		if err == nil || !strings.Contains(err.Error(), path+": read again: "+path+": changed while it was linted") {
			t.Fatalf("%s: Hold of a changed file: %v", change, err)
		}
		if file.WakeError() == nil || set.Workloads[0].Object.Has("spec") {
			t.Errorf("%s: no wake error, or the document reads as before", change)
		}
	}
}

// A file whose workloads are all done goes back to sleep: another
// workload's rules may still read its lines (a ConfigMap's), and get them.
func TestDoneFileSleepsAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.yaml")
	if err := os.WriteFile(path, []byte(sleepSource), 0o644); err != nil {
		t.Fatal(err)
	}
	file, set := settled(t, path, true)
	deployment := set.Workloads[0]
	if err := deployment.Hold(); err != nil {
		t.Fatal(err)
	}
	deployment.Release()
	deployment.Done()
	if file.Source != nil || !file.sleep.asleep.Load() {
		t.Fatal("the file's source stays after its last workload is done")
	}
	reads := RetiredReads()
	if line := file.Line(12); line != "apiVersion: v1" || RetiredReads() != reads {
		t.Errorf("line 12 %q after Done, %d retired reads", line, RetiredReads()-reads)
	}
	if line := file.MarkedLines()[1]; !strings.Contains(line, "MDL205") {
		t.Errorf("marked line %q after Done", line)
	}
}
