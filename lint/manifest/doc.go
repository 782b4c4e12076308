// Package manifest turns YAML and JSON files into Kubernetes objects that
// remember where every field was written, and extracts the pod specs of every
// workload kind modellint understands (core workloads and serving CRDs).
package manifest
