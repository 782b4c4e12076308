package main

import "testing"

// TestManifestGCPercent: the run paces the collector unless the user set
// GOGC or GOMEMLIMIT, which then apply as they are.
func TestManifestGCPercent(t *testing.T) {
	for _, tc := range []struct {
		gogc, memLimit string
		want           int
	}{
		{"", "", 50},
		{"200", "", 0},
		{"", "1GiB", 0},
		{"off", "512MiB", 0},
	} {
		t.Setenv("GOGC", tc.gogc)
		t.Setenv("GOMEMLIMIT", tc.memLimit)
		if got := manifestGCPercent(); got != tc.want {
			t.Errorf("GOGC=%q GOMEMLIMIT=%q: %d, want %d", tc.gogc, tc.memLimit, got, tc.want)
		}
	}
}
