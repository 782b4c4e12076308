package manifest

// A controller builds some pods from several objects: KServe merges an
// InferenceService's model spec over the container of the ServingRuntime
// it selects. The container linted is then that composition, and each of
// its fields is placed where it was written, in whichever object wrote it.

// FieldSource is where a field was written: a path in an object.
type FieldSource struct {
	Object *Object
	Path   string
}

// borrowing places the fields at and under prefix, a path in the
// document, that a composed container or pod spec took from elsewhere.
type borrowing struct {
	prefix string
	place  func(rest string) (FieldSource, bool)
}

// Borrow says that the fields at and under path in o are those of a
// composition: Where places a field there at the source place returns for
// the rest of its path (".image", "[2].name", "" for path itself), or where
// o wrote it when place returns false. Call it before the object is read
// concurrently; the last Borrow of an overlapping prefix wins.
func (o *Object) Borrow(path string, place func(rest string) (FieldSource, bool)) {
	rare := o.Doc.rareFields()
	rare.borrowed = append(rare.borrowed, borrowing{prefix: o.FullPath(path), place: place})
}

// borrowedSource is where a field of a composition was written, false
// when the field is the document's own.
func (d *Document) borrowedSource(path string) (FieldSource, bool) {
	borrowed := d.rareOrNone().borrowed
	for i := len(borrowed) - 1; i >= 0; i-- {
		b := borrowed[i]
		rest, ok := pathUnder(path, b.prefix)
		if !ok {
			continue
		}
		return b.place(rest)
	}
	return FieldSource{}, false
}

// pathUnder is the rest of path below prefix (".image", "[0]", "" for
// prefix itself), false when path is not at or under it.
func pathUnder(path, prefix string) (string, bool) {
	if len(path) < len(prefix) || path[:len(prefix)] != prefix {
		return "", false
	}
	rest := path[len(prefix):]
	if rest != "" && rest[0] != '.' && rest[0] != '[' {
		return "", false
	}
	return rest, true
}

// Written is the longest part of path, itself or an ancestor, that the
// object's document has.
func (o *Object) Written(path string) string {
	for p := path; ; p = parentPath(p) {
		if p == "" || o.Has(p) {
			return p
		}
	}
}

// WrittenBy is where another object wrote a field of a composition (the
// ServingRuntime that wrote a composed container's image), false when the
// object wrote it itself.
func (o *Object) WrittenBy(path string) (FieldSource, bool) {
	source, ok := o.Doc.borrowedSource(o.FullPath(path))
	if !ok || source.Object.Doc == o.Doc {
		return FieldSource{}, false
	}
	return source, true
}

// borrowOnce is Borrow for a reader that runs again when the workload's
// typed fields are restored (see Hold): a path already borrowed is left as
// it is, so that the second run only reads what others may be reading.
func (o *Object) borrowOnce(path string, place func(rest string) (FieldSource, bool)) {
	full := o.FullPath(path)
	for _, b := range o.Doc.rareOrNone().borrowed {
		if b.prefix == full {
			return
		}
	}
	o.Borrow(path, place)
}

// placeAt places every field at the path at of o, except those under the
// field prefixes of fields (".image"), placed where fields says.
func placeAt(o *Object, at string, fields map[string]FieldSource) func(string) (FieldSource, bool) {
	return func(rest string) (FieldSource, bool) {
		for prefix, source := range fields {
			if _, ok := pathUnder(rest, prefix); ok {
				return source, true
			}
		}
		return FieldSource{Object: o, Path: at}, true
	}
}
