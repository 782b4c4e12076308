// Package compose builds the pods a controller makes from several objects,
// so that the pod linted is the pod that runs: KServe merges an
// InferenceService's model spec over the ServingRuntime it selects, and
// mounts the model of a storageUri at /mnt/models.
package compose
