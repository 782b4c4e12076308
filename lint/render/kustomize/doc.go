// Package kustomize reads a Kustomize overlay's tree of kustomizations
// before it is built (refusing remote bases, cycles and trees that would
// build without bound) and places every field of the built objects on the
// base resource, patch or kustomization line that wrote it. The build itself
// is kustomize's own Go API, in package build, which only the renderer
// links: modellint does not set kustomize up on every start.
package kustomize
