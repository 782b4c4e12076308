package lint

import (
	"path"
	"strings"

	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/serverconfig"
	"github.com/modellint/modellint/lint/server"
)

// ModelPathAnnotation ties a workload to a model dir on disk:
// `modellint.dev/model-path: models/resnet` (relative to the working directory).
const ModelPathAnnotation = "modellint.dev/model-path"

// SkipNoModelLinked is why a rule that needs a model skips a workload none
// of whose serving containers is linked to a model dir.
const SkipNoModelLinked = "no model dir is linked to a serving container (-v lists each server's model path and why " +
	"it is not linked; map one with --model DIR:MOUNTPATH, the " + ModelPathAnnotation + " annotation or models: in " +
	".modellint.yaml)"

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
	// Listed is the server config file entry that names the path, nil for
	// a path from a flag or env var.
	Listed *Listing
}

// ServerFile is a file a serving container reads its models from besides
// its flags (TF Serving's --model_config_file, TorchServe's
// config.properties), as the pod gives it to the container.
type ServerFile struct {
	Container *manifest.Container
	// Setting is the flag, env var or image default that names the file.
	Setting server.Value
	// From says where the file comes from: "ConfigMap tfs-config key
	// models.config", "image tensorflow/serving:2.14.1", "file conf/models.config".
	From string
	// File and Line place the file in the linted files (the ConfigMap's
	// manifest, or the file itself); File is "" for a file in an image.
	// Exact says each line of the content is a line of File from Line on
	// (a file, a literal block), not only written at Line.
	File  string
	Line  int
	Exact bool
	// Image locates a file read from an image (reference, layer, path).
	Image ImageLocation
	// Err is why the server refuses the file; nil when it parsed.
	Err error
	// FromTree says Err is a file missing from the tree's dir that stands
	// for the volume: the volume itself may hold it.
	FromTree bool
	// Models is how many models it lists (TF Serving, OVMS).
	Models int
	// Refusals are the parts of the file the server's schema refuses, at
	// their lines (OVMS's config.json): the server does not start.
	Refusals []Refusal
	// Properties are a TorchServe config.properties' keys.
	Properties serverconfig.Properties
}

// Refusal is a part of a ServerFile the server refuses, at its line.
type Refusal struct {
	Line   int
	Reason string
}

// Listing is an entry of a ServerFile.
type Listing struct {
	File *ServerFile
	Name string // the model's name, "" when the entry has none
	// Line is the entry's line in File.File; 0 when not known.
	Line int
}

// At places a finding about a line (1-based) of the file in the linted
// files: on that line when the lines are known, else where the file is.
func (f *ServerFile) At(line int) (file string, at int) {
	if !f.Exact || line <= 0 {
		return f.File, f.Line
	}
	return f.File, f.Line + line - 1
}

// MountedPath is a volumeMount that holds the server's model path.
type MountedPath struct {
	Index int // in the container's volumeMounts
	Mount string
	// Rel is the model path relative to the mount path ("" when equal).
	Rel string
}

// LocalPath reports whether a server's path is a path inside the
// container: not a URI, a Hugging Face repo id or an unexpanded template.
func LocalPath(p string) bool {
	return strings.HasPrefix(p, "/") && !strings.Contains(p, "{{") && !strings.Contains(p, "$(")
}

// PathUnder reports whether the container path p lies at or below dir,
// and the rest of p ("" when they are the same).
func PathUnder(p, dir string) (string, bool) {
	p, dir = path.Clean(p), path.Clean(dir)
	if p == dir {
		return "", true
	}
	if dir == "/" {
		return strings.TrimPrefix(p, "/"), strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, dir+"/") {
		return p[len(dir)+1:], true
	}
	return "", false
}
