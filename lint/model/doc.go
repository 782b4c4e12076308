// Package model reads model directories (TF Serving base paths with
// SavedModels, Triton model directories, OpenVINO Model Server base paths
// and repositories, MLServer models, Hugging Face / safetensors
// checkpoints, ONNX files, pickle-based files), on disk or in an fs.FS such
// as a container image's files, into facts: the serving layout, the version
// dirs and their bytes, signatures and ops, exact weight sizes from headers,
// and the problems found in them, stated as facts. It never reads weights
// and never judges: rules in package rules do.
package model
