// Package imagetest builds real container images for tests from a
// human-readable spec (files with modes and owners, symlinks, whiteouts,
// ELF binaries compiled with the host's gcc), and serves them the three
// ways modellint reads images: a docker-save tarball, an OCI layout, and a
// registry (Debian's docker-registry, the CNCF distribution server).
package imagetest
