// Package charts renders Helm charts for modellint without linking Helm:
// it starts modellint-helm, the renderer built beside modellint, in a
// bounded child process and rebuilds the manifest files it sends back.
// Helm's libraries set up the JSON Schema drafts and every Kubernetes API
// group when a binary that links them starts (~25 ms and 20 MiB), which
// every run would pay, charts or not.
package charts
