package rules

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/engine"
	"github.com/modellint/modellint/lint/image/imagetest"
)

// TestMajorMinor reads the framework versions MDL308 compares with torch
// 2.13, local build tags and a suffix on the minor version included.
func TestMajorMinor(t *testing.T) {
	tests := []struct {
		version      string
		major, minor int
		ok           bool
	}{
		{"2.9.0+cu128", 2, 9, true},
		{"2.13.0", 2, 13, true},
		{"2.13+cpu", 2, 13, true},
		{"2.5", 2, 5, true},
		{"2", 0, 0, false},
		{"", 0, 0, false},
		{"v2.9.0", 0, 0, false},
		{"2.x", 0, 0, false},
	}
	for _, test := range tests {
		major, minor, ok := majorMinor(test.version)
		if ok != test.ok || ok && (major != test.major || minor != test.minor) {
			t.Errorf("majorMinor(%q) = %d, %d, %v, want %d, %d, %v", test.version, major, minor, ok, test.major, test.minor, test.ok)
		}
	}
}

// TestImageUnresolvableOnItsOwn: an image linted without a manifest (an
// OCI layout given as a path) whose index has no image for the platform
// read is reported on the image; one that has it passes.
func TestImageUnresolvableOnItsOwn(t *testing.T) {
	dir := t.TempDir()
	for name, platform := range map[string]string{"s390x-only": "linux/s390x", "amd64": "linux/amd64"} {
		spec := &imagetest.ImageSpec{Ref: "registry.example.com/serving/predictor:" + name, Platforms: []string{platform},
			Config: imagetest.ConfigSpec{Entrypoint: []string{"/serve"}},
			Layers: []imagetest.LayerSpec{{Files: []imagetest.FileSpec{{Path: "/serve", Content: "#!/bin/sh\n"}}}}}
		built, err := imagetest.Build(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := imagetest.WriteLayout(filepath.Join(dir, name), built); err != nil {
			t.Fatal(err)
		}
	}
	result, err := engine.Run(engine.Options{Paths: []string{filepath.Join(dir, "s390x-only"), filepath.Join(dir, "amd64")},
		Rules: []*lint.Rule{imageUnresolvable}})
	if err != nil {
		t.Fatal(err)
	}
	var messages []string
	for _, finding := range result.Findings {
		messages = append(messages, finding.Message)
	}
	if len(messages) != 1 || !strings.Contains(messages[0], "the index has no image for linux/amd64") ||
		!strings.HasSuffix(messages[0], "; the pull fails with ErrImagePull / ImagePullBackOff") {
		t.Errorf("findings = %q, want one for the s390x-only index", messages)
	}
}
