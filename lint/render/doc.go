// Package render turns Helm charts and Kustomize overlays into manifests
// in-process, with every field placed on the template, values-file, resource
// or patch line that wrote it, so findings point where users edit.
package render
