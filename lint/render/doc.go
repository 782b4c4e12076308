// Package render turns Helm charts and Kustomize overlays into manifests,
// with every field placed on the template, values-file, resource or patch
// line that wrote it, so findings point where users edit. Both are
// rendered by modellint-helm, in a bounded child process (see package
// charts).
package render
