// Package fix applies the fixes of a run's findings to the files they
// point at, as byte-range edits, or shows them as a unified diff. It
// writes only inside the PATHs linted, through no symbolic link, and only
// files that still hold the bytes that were linted.
package fix
