package manifest

import (
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/modellint/modellint/internal/parallel"
)

// A run holds every file of its PATHs from the moment they are read until
// its rules have run, and a workload's field table and its file's source
// are most of that. So a file read from disk is decoded as soon as it is
// parsed (Settle), and then sleeps: its source is dropped and read again
// when something reads its lines (a fix). The field tables of its
// workloads' documents are packed (packEntries) until something reads them
// (the engine's hold on a workload), a third of their size. In a deep sleep
// they go, and the file is parsed again then: that halves what a large run
// holds, for a second parse of most of its YAML. The objects other
// workloads read (Services, ConfigMaps, the serving runtimes) stay awake.

// sleep is what a sleeping file keeps to wake.
type sleep struct {
	mu     sync.Mutex
	asleep atomic.Bool
	// reread reads the file again; size and digest are what it must give.
	reread func() ([]byte, error)
	size   int
	digest uint64
	// sleepers are the documents whose field tables were dropped, or
	// their entries packed when the sleep is not deep.
	sleepers []*Document
	deep     bool
	// err is why the file could not wake: it changed, or cannot be read.
	err error
}

// manyObjects is how many objects a file holds before Settle decodes
// them on every CPU.
const manyObjects = 100

// digestSeed keys the digests of one process: a woken file is compared
// with what the same process read.
var digestSeed = maphash.MakeSeed()

// Settle decodes the file's objects now, as NewSet would, and when reread
// gives the file's source again, puts the file to sleep, deeply when deep
// is set (its workloads' field tables dropped rather than packed). It must
// be called before the file is shared.
func (f *File) Settle(reread func() ([]byte, error), deep bool) {
	// Files are settled on every CPU, but one stream (`helm template |
	// modellint -`) may hold all the objects.
	decode := func(object *Object) struct{} {
		decoded := decodeObject(object, true)
		object.decoded = &decoded
		return struct{}{}
	}
	if len(f.Objects) > manyObjects {
		parallel.Map(f.Objects, decode)
	} else {
		for _, object := range f.Objects {
			decode(object)
		}
	}
	if reread == nil || f.Rendered {
		return
	}
	var sleepers []*Document
	for _, object := range f.Objects {
		doc := object.Doc
		// A List's items share their document; aliases keep a plain value.
		if object.Base != "" || object.holds == nil || doc.keepsPlainOrPlaces() {
			continue
		}
		sleepers = append(sleepers, doc)
	}
	f.sleep = &sleep{reread: reread, size: len(f.Source), digest: maphash.Bytes(digestSeed, f.Source), sleepers: sleepers, deep: deep}
	f.markLines()
	for _, doc := range sleepers {
		doc.owner = f
		if deep {
			doc.fields = fieldTable{}
		} else {
			doc.packed = packEntries(doc.fields.entries)
			doc.fields.entries = nil
		}
		doc.plain.Store(nil)
		doc.sleeping.Store(true)
	}
	for _, object := range f.Objects {
		if object.Base == "" && object.holds == nil && !object.Doc.keepsPlainOrPlaces() {
			object.Doc.packForReads()
		}
	}
	f.Source = nil
	f.sleep.asleep.Store(true)
}

// wake reads the file again and gives its sleeping documents their field
// tables back. A file that cannot wake (changed or unreadable since it was
// read) keeps why: its documents read as empty, and WakeError reports it.
func (f *File) wake() error {
	f.sleep.mu.Lock()
	defer f.sleep.mu.Unlock()
	return f.wakeLocked()
}

// wakeLocked is wake with the file's lock held.
func (f *File) wakeLocked() error {
	s := f.sleep
	if !s.asleep.Load() {
		return s.err
	}
	source, err := s.reread()
	if err == nil && (len(source) != s.size || maphash.Bytes(digestSeed, source) != s.digest) {
		err = fmt.Errorf("%s: changed while it was linted", f.Path)
	}
	var docs []*Document
	if err == nil && s.deep && len(s.sleepers) > 0 {
		err = parseDocuments(f.Path, source, func(doc *Document) { docs = append(docs, doc) })
	}
	for _, doc := range s.sleepers {
		if !doc.sleeping.Load() {
			continue // retired
		}
		switch {
		case !s.deep:
			// Packed from what was read first: a file that changed since
			// fails the run all the same (WakeError).
			doc.fields.entries, doc.packed = unpackEntries(doc.packed), nil
		case err == nil && int(doc.Index) < len(docs):
			doc.fields = docs[doc.Index].fields
		}
		doc.sleeping.Store(false)
	}
	s.sleepers = nil
	if err != nil {
		s.err = fmt.Errorf("%s: read again: %w", f.Path, err)
	} else {
		f.Source = source
	}
	s.asleep.Store(false)
	return s.err
}

// WakeError is why the file could not be read again when it woke, nil
// when it woke or never slept.
func (f *File) WakeError() error {
	if f.sleep == nil {
		return nil
	}
	f.sleep.mu.Lock()
	defer f.sleep.mu.Unlock()
	return f.sleep.err
}

// awake wakes the file when it sleeps.
func (f *File) awake() error {
	if f.sleep == nil || !f.sleep.asleep.Load() {
		return nil
	}
	return f.wake()
}

// keepsPlainOrPlaces says the document keeps its plain value (aliases) or
// the places of rendered fields, which its table does not say alone.
func (d *Document) keepsPlainOrPlaces() bool {
	rare := d.rareOrNone()
	return rare.expanded != nil || rare.calls != nil || rare.elsewhere != nil
}

// table is the document's field table, its file woken when it sleeps.
func (d *Document) table() *fieldTable {
	if d.sleeping.Load() {
		d.owner.wake() //nolint:errcheck // the file keeps the error for WakeError
	}
	if d.packed != nil {
		return d.unpacked.table(d) // packed for reads: a sleeping one's were unpacked as it woke
	}
	return &d.fields
}

// The documents other workloads' rules read (Services, ConfigMaps,
// Secrets, claims, serving runtimes) never sleep: any rule may read them
// at any time, on any CPU, until their namespace is released
// (Set.ReleaseNamespace). Packed for good, they take a third of their
// size, and a read unpacks them. The table a read unpacked is kept while
// anything holds it and until the collector finds it unused, so the reads
// of one rule unpack once.

// packForReads packs the document's entries for good. It must be called
// before the document is shared.
func (d *Document) packForReads() {
	if d.packed != nil || len(d.fields.entries) == 0 {
		return
	}
	d.packed = packEntries(d.fields.entries)
	d.fields.entries = nil
}

// unpackedTable is the last table a read of a packed document unpacked.
type unpackedTable struct {
	last atomic.Pointer[weak.Pointer[fieldTable]]
}

// table is the document's table, unpacked again when the collector took
// the last one. Two reads at once may both unpack it.
func (u *unpackedTable) table(d *Document) *fieldTable {
	if last := u.last.Load(); last != nil {
		if t := last.Value(); t != nil {
			return t
		}
	}
	t := &fieldTable{entries: unpackEntries(d.packed), text: d.fields.text}
	last := weak.Make(t)
	u.last.Store(&last)
	return t
}

// decodeObject is what NewSet reads off one object.
func decodeObject(object *Object, releaseTyped bool) decodedObject {
	d := decodedObject{unknown: UnknownFields(object)}
	d.workloads, d.err = Workloads(object)
	if releaseTyped && d.err == nil {
		object.releaseTyped(d.workloads)
	}
	return d
}
