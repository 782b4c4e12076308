package image

import (
	"os"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

func TestRecordImages(t *testing.T) {
	cache := &Cache{Dir: filepath.Join(t.TempDir(), "modellint")}
	read := func() string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(cache.Dir, ImagesFile))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	amd64 := v1.Platform{OS: "linux", Architecture: "amd64"}
	cache.RecordImages([]*Image{
		{Reference: "registry.example/serving:2", Platform: amd64, Resolved: "sha256:bb", Digest: "sha256:cc"},
		{Reference: "build/my image.tar", Layers: []Layer{{DiffID: "sha256:01"}}},
		{Reference: "registry.example/serving:1", Platform: amd64, Digest: "sha256:aa"},
		{Reference: "registry.example/serving:1", Platform: amd64, Digest: "sha256:aa"},
		{Reference: "{{ .Values.image }}", Unresolvable: "not a valid image reference"},
	})
	want := "layers:sha256:b8b5d233288ebdc3df162b65ef210a8ad2ee2761394c91630016657f57afa192 build/my%20image.tar -\n" +
		"sha256:aa registry.example/serving:1 linux/amd64\n" +
		"sha256:bb registry.example/serving:2 linux/amd64\n"
	if got := read(); got != want {
		t.Errorf("%s:\n%s\nwant:\n%s", ImagesFile, got, want)
	}
	// A run that read no image keeps the list the cache was saved under.
	cache.RecordImages(nil)
	if got := read(); got != want {
		t.Errorf("after a run without images:\n%s", got)
	}
	var none *Cache
	none.RecordImages([]*Image{{Reference: "x", Digest: "sha256:aa"}}) // --no-cache: nothing written, no panic
}
