package kustomize

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/modellint/modellint/lint/manifest"
)

// resource is one built object.
type resource struct {
	kind, name string
	value      map[string]any
}

// resourceTrace places the fields of one built object on the lines that
// wrote them. A value is shown where it was last written: the last patch
// that set it (JSON 6902 or strategic merge, the outermost overlay last),
// else the base resource, else the kustomization field that transformed it
// (images, namespace, replicas, namePrefix, labels). A mapping or list shows
// at the base resource when it is there, so a missing field points at the
// object users maintain rather than at a patch that merely passes through.
type resourceTrace struct {
	res *resource
	// written is the object's document in its resource file; nil for a
	// generated object.
	written *manifest.Document
	// generatedBy is the kustomization that generated the object.
	generatedBy *kustomization
	// chain are the kustomizations that patch and transform the object, in
	// the order they apply (see kustomization.chain).
	chain []*kustomization
}

func (t *resourceTrace) where(fieldPath string, _ manifest.Position) (string, manifest.Position, bool) {
	if t.written == nil {
		if fieldPath == "" && t.generatedBy != nil {
			return t.generatedBy.file, t.generatedBy.generator(t.res.name), true
		}
		return "", manifest.Position{}, false
	}
	if fieldPath == "" {
		return "", t.written.Locate(""), true
	}
	value, _ := manifest.ValueAt(t.res.value, fieldPath)
	inBase := func() (manifest.Position, bool) {
		written, ok := translate(t.res.value, fieldPath, t.written.Plain())
		if !ok || !t.written.Has(written) {
			return manifest.Position{}, false
		}
		if scalar(value) {
			if writtenValue, _ := manifest.ValueAt(t.written.Plain(), written); !sameScalar(writtenValue, value) {
				return manifest.Position{}, false
			}
		}
		return t.written.Locate(written), true
	}
	if !scalar(value) {
		if pos, ok := inBase(); ok {
			return "", pos, true
		}
	}
	for i := len(t.chain) - 1; i >= 0; i-- {
		patches := t.chain[i].patches
		for j := len(patches) - 1; j >= 0; j-- {
			if file, pos, ok := patches[j].find(t.res, fieldPath, value); ok {
				return file, pos, true
			}
		}
	}
	if pos, ok := inBase(); ok {
		return "", pos, true
	}
	return t.transformer(fieldPath)
}

// transformer finds the kustomization field that set a value no resource or
// patch wrote: namespace, namePrefix, replicas, images, labels.
func (t *resourceTrace) transformer(fieldPath string) (string, manifest.Position, bool) {
	var keys []string
	switch {
	case fieldPath == "metadata.namespace":
		keys = []string{"namespace"}
	case fieldPath == "metadata.name":
		keys = []string{"namePrefix", "nameSuffix"}
	case fieldPath == "spec.replicas":
		keys = []string{"replicas"}
	case strings.HasSuffix(fieldPath, ".image"):
		keys = []string{"images"}
	case strings.Contains(fieldPath, "labels") || strings.Contains(fieldPath, "selector"):
		keys = []string{"labels", "commonLabels"}
	case strings.Contains(fieldPath, "annotations"):
		keys = []string{"commonAnnotations"}
	default:
		return "", manifest.Position{}, false
	}
	// The chain ends with the overlay being built, which transforms last.
	for i := len(t.chain) - 1; i >= 0; i-- {
		k := t.chain[i]
		for _, key := range keys {
			if !k.doc.Has(key) {
				continue
			}
			if key == "images" {
				return k.file, k.imageEntry(t.imageBefore(fieldPath)), true
			}
			return k.file, k.doc.Locate(key), true
		}
	}
	return "", manifest.Position{}, false
}

// imageBefore is the image a container had in its resource file.
func (t *resourceTrace) imageBefore(fieldPath string) string {
	written, ok := translate(t.res.value, fieldPath, t.written.Plain())
	if !ok {
		return ""
	}
	image, _ := lookupString(t.written.Plain(), written)
	return image
}

// imageEntry is the images entry that renames or retags image.
func (k *kustomization) imageEntry(image string) manifest.Position {
	entries, _ := manifest.ValueAt(k.doc.Plain(), "images")
	list, _ := entries.([]any)
	for i, entry := range list {
		name, _ := lookupString(entry, "name")
		if name != "" && (image == name || strings.HasPrefix(image, name+":") || strings.HasPrefix(image, name+"@")) {
			return k.doc.Locate(manifest.IndexPath("images", i))
		}
	}
	return k.doc.Locate("images")
}

// generator finds the configMapGenerator or secretGenerator entry that made
// the object named name (kustomize appends a hash to the name).
func (k *kustomization) generator(name string) manifest.Position {
	for _, field := range []string{"configMapGenerator", "secretGenerator"} {
		entries, _ := manifest.ValueAt(k.doc.Plain(), field)
		list, _ := entries.([]any)
		for i, entry := range list {
			if generated, _ := lookupString(entry, "name"); generated != "" && strings.Contains(name, generated) {
				return k.doc.Locate(manifest.IndexPath(field, i))
			}
		}
	}
	return k.doc.Locate("")
}

// findDocument finds the object's document in its resource file: the one of
// its kind whose name it has (kustomize may have added a prefix or suffix).
func findDocument(docs []*manifest.Document, res *resource) *manifest.Document {
	var best *manifest.Document
	bestName := -1
	for _, doc := range docs {
		if kind, _ := lookupString(doc.Plain(), "kind"); kind != res.kind {
			continue
		}
		name, _ := lookupString(doc.Plain(), "metadata.name")
		switch {
		case name == res.name:
			return doc
		case strings.Contains(res.name, name) && len(name) > bestName:
			best, bestName = doc, len(name)
		case best == nil:
			best = doc
		}
	}
	return best
}

// mergeKeys identify list items across a resource and its patches, as
// strategic merge does for containers, ports, volumes, volume mounts, env.
var mergeKeys = []string{"name", "containerPort", "mountPath", "devicePath", "ip", "port"}

// translate finds the field of a built object in another document (its
// resource, a strategic merge patch): keys are the same, list items are
// matched by their merge key, because a patch lists only the items it changes.
func translate(built any, fieldPath string, written any) (string, bool) {
	translated := ""
	for _, element := range manifest.SplitPath(fieldPath) {
		if !element.IsIndex {
			builtFields, _ := built.(map[string]any)
			writtenFields, ok := written.(map[string]any)
			if !ok {
				return "", false
			}
			if written, ok = writtenFields[element.Key]; !ok {
				return "", false
			}
			built = builtFields[element.Key]
			translated = manifest.JoinPath(translated, element.Key)
			continue
		}
		builtItems, _ := built.([]any)
		writtenItems, ok := written.([]any)
		if !ok || element.Index >= len(builtItems) {
			return "", false
		}
		item := builtItems[element.Index]
		index := matchItem(item, writtenItems, element.Index)
		if index < 0 {
			return "", false
		}
		built, written = item, writtenItems[index]
		translated = manifest.IndexPath(translated, index)
	}
	return translated, true
}

// matchItem finds item in items by its merge key, or at the same index when
// it has none.
func matchItem(item any, items []any, index int) int {
	if fields, ok := item.(map[string]any); ok {
		for _, key := range mergeKeys {
			want, ok := fields[key]
			if !ok {
				continue
			}
			for i, candidate := range items {
				if candidateFields, ok := candidate.(map[string]any); ok && sameScalar(candidateFields[key], want) {
					return i
				}
			}
			return -1
		}
	}
	if index < len(items) {
		return index
	}
	return -1
}

func scalar(value any) bool {
	switch value.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

func sameScalar(a, b any) bool {
	return reflect.DeepEqual(a, b) || (a != nil && b != nil && fmt.Sprint(a) == fmt.Sprint(b))
}

func lookupString(value any, fieldPath string) (string, bool) {
	found, ok := manifest.ValueAt(value, fieldPath)
	text, isString := found.(string)
	return text, ok && isString
}

func isDescendant(fieldPath, ancestor string) bool {
	return ancestor == "" || strings.HasPrefix(fieldPath, ancestor+".") || strings.HasPrefix(fieldPath, ancestor+"[")
}
