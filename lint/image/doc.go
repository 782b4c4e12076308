// Package image opens container images (registry, docker-save tarball, OCI
// layout) with go-containerregistry and extracts the facts image rules need:
// config, a merged file index, and the few file contents that matter.
package image
