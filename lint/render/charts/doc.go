// Package charts renders Helm charts and builds Kustomize overlays for
// modellint without linking Helm or kustomize: it starts modellint-helm,
// the renderer built beside modellint, in a bounded child process and
// rebuilds the manifest files it sends back (Serve is the renderer's side).
// Helm's libraries set up the JSON Schema drafts and every Kubernetes API
// group when a binary that links them starts (~25 ms and 20 MiB), and
// kustomize's its OpenAPI and protobuf descriptors, which every run would
// pay, charts or not; and a kustomize build expands YAML aliases without
// bound, which only a child process can stop.
package charts
