// Package kustomize builds a Kustomize overlay with kustomize's own Go API,
// offline, as `kustomize build` would, and places every field of the result on
// the base resource, patch or kustomization line that wrote it.
package kustomize
