// Package model reads model directories (TF SavedModel, Triton repositories,
// safetensors, ONNX, pickle-based files) into facts: layout, versions, sizes,
// signatures. It reads headers and metadata, never weights, and never judges.
package model
