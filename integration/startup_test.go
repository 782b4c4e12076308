package integration

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// ownInitBudget bounds what modellint's own packages allocate when they are
// initialised, which every start pays for: their tables, not compiled
// regular expressions or parsed schemas (~1 MB when they were), which wait
// for their first use.
const ownInitBudget = 128 << 10

// TestOwnInitIsLight: the built modellint, asked its version, initialises
// its own packages within ownInitBudget bytes, as the Go runtime counts
// them (GODEBUG=inittrace=1), and initialises no package it links only to
// measure text as a library once did (tablewriter's twwidth, whose init
// allocates a 650 KB cache).
func TestOwnInitIsLight(t *testing.T) {
	dir := modellintBinDir(t)
	got := runCommand(t, t.TempDir(), []string{"GODEBUG=inittrace=1"}, filepath.Join(dir, "modellint"), "version")
	if got.code != 0 {
		t.Fatalf("modellint version: exit %d\n%s", got.code, got.stderr)
	}
	own := map[string]int{}
	total, traced := 0, 0
	for _, line := range strings.Split(got.stderr, "\n") {
		// init PACKAGE @T ms, C ms clock, N bytes, A allocs
		fields := strings.Fields(line)
		if len(fields) < 9 || fields[0] != "init" || fields[8] != "bytes," {
			continue
		}
		traced++
		if strings.HasPrefix(fields[1], "github.com/olekukonko/tablewriter/") {
			t.Errorf("modellint initialises %s", fields[1])
		}
		bytes, err := strconv.Atoi(fields[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", line, err)
		}
		if strings.HasPrefix(fields[1], "github.com/modellint/modellint/") {
			own[fields[1]] += bytes
			total += bytes
		}
	}
	if traced == 0 {
		t.Fatalf("no inittrace lines in modellint's standard error:\n%s", got.stderr)
	}
	if total > ownInitBudget {
		packages := make([]string, 0, len(own))
		for name := range own {
			packages = append(packages, name)
		}
		sort.Slice(packages, func(i, j int) bool { return own[packages[i]] > own[packages[j]] })
		var largest []string
		for _, name := range packages[:min(5, len(packages))] {
			largest = append(largest, fmt.Sprintf("%s %d", name, own[name]))
		}
		t.Errorf("modellint's packages allocate %d bytes at init, over %d; the largest: %s", total, ownInitBudget, strings.Join(largest, ", "))
	}
}
