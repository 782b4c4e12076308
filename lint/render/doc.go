// Package render turns Helm charts and Kustomize overlays into manifests
// in-process, remembering which template or overlay file each object came from.
package render
