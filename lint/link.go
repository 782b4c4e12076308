package lint

import (
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/server"
)

// ModelPathAnnotation ties a workload to a model dir on disk:
// `modellint.dev/model-path: models/resnet` (relative to the working directory).
const ModelPathAnnotation = "modellint.dev/model-path"

// Link ties a model directory to the serving container that loads it.
type Link struct {
	Container  *manifest.Container
	Invocation *server.Invocation
	// ServerPath is the server's model path (where findings point, via its Field).
	ServerPath server.Value
	// Mount is the volumeMount the path lies under, nil when none does
	// (then the model must be in the image).
	Mount *MountedPath
	// Model is the linked model dir; nil when the path links to none.
	Model *model.Model
	// How says which link was used, for reports: "config models[0]",
	// "annotation modellint.dev/model-path", "--model flag", "name match".
	How string
	// ModelFindings are the findings on the linked model dir, which cross
	// rules repeat where the manifest points the server at it (MDL403).
	ModelFindings []Finding
}

// MountedPath is a volumeMount that holds the server's model path.
type MountedPath struct {
	Index int // in the container's volumeMounts
	Mount string
	// Rel is the model path relative to the mount path ("" when equal).
	Rel string
}
