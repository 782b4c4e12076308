// Package compose builds the pods a controller makes from several objects,
// so that the pod linted is the pod that runs: KServe merges an
// InferenceService's model spec over the ServingRuntime it selects, and
// mounts the model of a storageUri at /mnt/models, with the
// storage-initializer init container that downloads it; Seldon Core v2 merges a
// Server's podSpec over its ServerConfig's; Seldon Core v1 gives the
// prepackaged servers of a SeldonDeployment the images of its
// seldon-config. The pods some controllers build from fields that are no
// pod spec (an image repository, a resource profile) are built here as
// their code builds them: the NIM operator's NIMService, the vLLM
// production-stack operator's VLLMRuntime, KubeAI's Model, llmaz's
// Playground.
package compose
