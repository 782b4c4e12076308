// Package launch replays how a container starts — Kubernetes command/args
// over ENTRYPOINT/CMD, $(VAR) expansion, PATH lookup as runc does it, the
// user's execute permission, shebang and ELF loader chains, shared
// libraries and their GLIBC versions — against an image's merged index.
package launch
