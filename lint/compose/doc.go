// Package compose builds the pods a controller makes from several objects,
// so that the pod linted is the pod that runs: KServe merges an
// InferenceService's model spec over the ServingRuntime it selects, and
// mounts the model of a storageUri at /mnt/models, with the
// storage-initializer init container that downloads it; Seldon Core v2 merges a
// Server's podSpec over its ServerConfig's; Seldon Core v1 gives the
// prepackaged servers of a SeldonDeployment the images of its
// seldon-config. A kind whose controller builds its pods from fields that
// are no pod spec is not composed here (see manifest.NotLinted).
package compose
