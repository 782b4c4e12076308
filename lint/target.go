package lint

import (
	"maps"
	"slices"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
)

// Targets: what rules evaluate, with the facts the engine gathered.

// Target is what a rule evaluates: one workload (pod template) with the facts
// known about it, or a model directory or image linted on its own.
type Target struct {
	// Workload is the pod template; nil for a model dir or image on its own.
	Workload *manifest.Workload
	// Model holds the facts of a model directory: the target itself for a
	// model dir, or the model linked to the workload.
	Model *model.Model
	// Baked is set on a model dir read from inside an image.
	Baked *BakedModel
	// Images holds image facts by the reference the manifest writes; an
	// image linted on its own is under its source path.
	Images map[string]*image.Image
	// Bundles are what runs in each container (bundle.go), or in the image
	// of an image target.
	Bundles []*Bundle
	// Links tie the workload's serving containers to model dirs (link.go).
	Links []*Link
	// ServerFiles are the config files the serving containers read their
	// models from, besides flags.
	ServerFiles []*ServerFile
	// ImagesMissing says why some of the workload's images have no facts
	// (--offline, registry unreachable), for the rules' skip reasons.
	ImagesMissing string
	// Starts are the start estimates rules recorded (Pass.EstimateStart).
	Starts []StartEstimate
}

// Name identifies the target in reports, without line numbers.
func (t *Target) Name() string {
	switch {
	case t.Workload != nil:
		return t.Workload.Name()
	case t.Model != nil:
		return "model " + t.Model.Dir
	}
	return "image " + t.imageSource()
}

// File is the file or directory the target was read from.
func (t *Target) File() string {
	switch {
	case t.Workload != nil:
		return t.Workload.Object.File.Path
	case t.Model != nil:
		return t.Model.Dir
	}
	return t.imageSource()
}

// imageSource names an image target by its first source, in order.
func (t *Target) imageSource() string {
	if sources := slices.Sorted(maps.Keys(t.Images)); len(sources) > 0 {
		return sources[0]
	}
	return ""
}

// Line is where the target starts in its file (0 for directories and images).
func (t *Target) Line() int {
	if t.Workload != nil {
		return t.Workload.Object.Locate("").Line
	}
	return 0
}
