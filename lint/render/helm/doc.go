// Package helm renders a Helm chart (a directory or a packaged .tgz) with
// Helm's own Go libraries, as `helm template` would, and places every field of
// the result on the template or values-file line that wrote it.
package helm
