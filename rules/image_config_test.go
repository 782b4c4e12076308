package rules

import "testing"

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
