package manifest

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every document of the project's YAML files comes back from packing as
// it was converted.
func TestPackedEntriesUnpackAsTheyWere(t *testing.T) {
	documents, packedBytes, entries := 0, 0, 0
	err := filepath.WalkDir("../..", func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entry.IsDir() && entry.Name() == ".git" {
			return filepath.SkipDir
		}
		if entry.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return nil
		}
		source, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		parseDocuments(path, source, func(doc *Document) { //nolint:errcheck // only what converts is compared
			documents++
			packed := packEntries(doc.fields.entries)
			packedBytes, entries = packedBytes+len(packed), entries+len(doc.fields.entries)
			if got := unpackEntries(packed); !slices.Equal(got, doc.fields.entries) {
				t.Errorf("%s: document %d: unpacked %+v, want %+v", path, doc.Index+1, got, doc.fields.entries)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if documents < 500 {
		t.Fatalf("%d documents read, want the project's hundreds", documents)
	}
	t.Logf("%d documents, %d entries packed in %d bytes", documents, entries, packedBytes)
	// What packing is for: a third or less of the table.
	if packedBytes*3 > entries*28 {
		t.Errorf("%d entries packed in %d bytes, more than a third of %d", entries, packedBytes, entries*28)
	}
}

// Spans and positions far apart, going back, and at their limits.
func TestPackedEntriesAtTheirLimits(t *testing.T) {
	entries := []fieldEntry{
		{line: 1, column: 1, kind: kindMapping, data: span{1, 3}},
		{key: span{math.MaxUint32 - 4, math.MaxUint32}, data: span{math.MaxUint32, math.MaxUint32}, line: math.MaxInt32, column: math.MaxInt32, kind: kindString},
		{key: span{0, 0}, data: span{0, math.MaxUint32}, line: math.MinInt32, column: -1, kind: kindSequence},
		{kind: kindNull, line: 7},
	}
	if got := unpackEntries(packEntries(entries)); !slices.Equal(got, entries) {
		t.Errorf("unpacked %+v, want %+v", got, entries)
	}
	if got := unpackEntries(packEntries(nil)); len(got) != 0 {
		t.Errorf("unpacked %+v from none", got)
	}
}
