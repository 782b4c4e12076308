package engine

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/ovms"
	"github.com/modellint/modellint/lint/model/serverconfig"
	"github.com/modellint/modellint/lint/server"
)

// kserveModelPath is where KServe's storage initializer puts storageUri's files.
const kserveModelPath = "/mnt/models"

// linker links workload targets to model targets.
type linker struct {
	// objects are the manifest objects, for the ConfigMaps a server's
	// config file may come from.
	objects  *manifest.Set
	models   []*model.Model
	byDir    map[string]*model.Model
	mappings []namedMapping
	// units are the PATH arguments model dirs were found in: of two dirs
	// with the server path's name, the one in the workload's own PATH wins.
	units map[string]int
	// unitParents are the units the deployments split off a PATH lie in
	// (splitUnits).
	unitParents map[int]int
}

type namedMapping struct {
	lint.ModelMapping
	how string
}

func newLinker(config *lint.Config, flagged []lint.ModelMapping) *linker {
	l := &linker{byDir: map[string]*model.Model{}}
	for i, mapping := range config.Models {
		l.mappings = append(l.mappings, namedMapping{mapping, fmt.Sprintf("config models[%d]", i)})
	}
	for _, mapping := range flagged {
		l.mappings = append(l.mappings, namedMapping{mapping, "--model " + mapping.Path})
	}
	return l
}

// unused names the --model DIR:MOUNTPATH flags no container's model path
// fell under: a typo in the mount path would otherwise link nothing quietly.
func (l *linker) unused(targets []*lint.Target) []string {
	linked := map[string]bool{}
	for _, target := range targets {
		for _, link := range target.Links {
			linked[link.How] = true
		}
	}
	var unused []string
	for _, mapping := range l.mappings {
		if mapping.MountPath != "" && strings.HasPrefix(mapping.how, "--model ") && !linked[mapping.how] {
			unused = append(unused, fmt.Sprintf("--model %s:%s: no serving container reads a model under %s", mapping.Path, mapping.MountPath, mapping.MountPath))
		}
	}
	return unused
}

// addModels makes model targets candidates for links.
func (l *linker) addModels(modelTargets []*lint.Target) {
	for _, target := range modelTargets {
		l.models = append(l.models, target.Model)
		l.byDir[target.Model.Dir] = target.Model
	}
}

// link fills target.Links (and target.Model with the first linked model)
// for every serving container of a workload target.
func (l *linker) link(target *lint.Target) {
	workload := target.Workload
	annotated := modelPathAnnotation(workload)
	for _, container := range workload.Containers {
		if !container.Serving() || container.Runtime == server.Generic {
			continue
		}
		invocation := container.Invocation()
		paths := invocation.ModelPaths
		// KServe's storage initializer copies storageUri to /mnt/models;
		// the model dir is found by the URI's last element.
		nameFrom := ""
		uri, uriFrom, uriField := "", "storageUri", "storageUri"
		if workload.Platform == "kserve" {
			uri = storageURI(workload, container)
			if uri == "" {
				uri, uriField = storageURIEnv(workload, container)
				uriFrom = "STORAGE_URI"
			}
		}
		proxy := workload.Platform == "kserve" && !container.FromServingRuntime &&
			(workload.Component == "transformer" || workload.Component == "explainer")
		switch {
		case proxy && uri == "":
			// The containers of a transformer or an explainer send requests
			// on to the predictor: KServe gives them no storageUri, and the
			// /mnt/models a KServe ModelServer reads by default holds none
			// unless their STORAGE_URI names a model.
			paths = slices.DeleteFunc(paths, func(v server.Value) bool { return v.From == "image default" })
		case container.FromServingRuntime || (workload.Platform == "kserve" && len(paths) == 0) ||
			proxy && !slices.ContainsFunc(paths, func(v server.Value) bool { return v.From != "image default" }):
			paths = []server.Value{{Value: kserveModelPath, From: uriFrom + " " + uri, Field: uriField}}
			nameFrom = path.Base(strings.TrimRight(uri, "/"))
		}
		if _, ok := configFilePath(container); ok && container.Runtime.Name == "tensorflow-serving" && !container.FromServingRuntime {
			// TF Serving reads its models from the config file alone; its
			// --model_name and --model_base_path are then ignored.
			paths = nil
		}
		for _, serverPath := range paths {
			name, fromURI := path.Base(serverPath.Value), uri
			rel, underURI := lint.PathUnder(serverPath.Value, kserveModelPath)
			switch {
			case nameFrom != "":
				name = nameFrom
			case uri != "" && underURI:
				// A composed container's server is told a path in
				// /mnt/models, where the storageUri's dir lands: the model
				// dir is the one at that path in a dir of the URI's name.
				name = path.Join(path.Base(strings.TrimRight(uri, "/")), rel)
			default:
				fromURI = ""
			}
			l.addLinks(target, container, invocation, serverPath, name, annotated, fromURI, nil)
		}
		l.linkServerFile(target, container, invocation, annotated, uriRoot(target.Links, container))
	}
}

// uriRoot is the dir of the linted tree that KServe's storage initializer
// copies to /mnt/models for a container, as its links found it; "" when
// none did.
func uriRoot(links []*lint.Link, c *manifest.Container) string {
	for _, link := range links {
		if link.Container != c || link.Model == nil || !strings.HasPrefix(link.How, "name match") {
			continue
		}
		if rel, ok := lint.PathUnder(link.ServerPath.Value, kserveModelPath); ok {
			if rel == "" {
				return link.Model.Dir
			}
			if root, found := strings.CutSuffix(link.Model.Dir, "/"+rel); found {
				return root
			}
		}
	}
	return ""
}

// addLinks links a server path of a container to the model dirs it finds;
// fromURI is the storageUri the name is taken from, whose dir the platform
// copies to the path whole ("" when the name is the path's).
func (l *linker) addLinks(target *lint.Target, container *manifest.Container, invocation *server.Invocation,
	serverPath server.Value, name, annotated, fromURI string, listed *lint.Listing) {
	workload := target.Workload
	// A PVC's dir may well be in the tree; a bucket's dir of the same name
	// is more likely a sample of it.
	byName := strings.HasPrefix(fromURI, "pvc://")
	file := workload.Object.File
	models, how := l.find(serverPath.Value, name, annotated, container.Runtime.Model.Repository, byName, file.Unit, file.Path)
	if dir := path.Dir(serverPath.Value); len(models) == 0 && isModelFile(serverPath.Value) && fromURI == "" && listed == nil {
		// llama.cpp's -m names a .gguf file: its dir is the model dir.
		models, how = l.find(dir, path.Base(dir), annotated, false, false, file.Unit, file.Path)
	}
	if len(models) == 0 {
		models = []*model.Model{nil}
	}
	// A repository path links each model in it.
	for _, m := range models {
		link := &lint.Link{Container: container, Invocation: invocation, ServerPath: serverPath,
			Mount: mountFor(container, serverPath.Value), Model: m, How: how, Listed: listed}
		target.Links = append(target.Links, link)
		if target.Model == nil && m != nil {
			target.Model = m
		}
	}
}

// linkServerFile reads the config file a container names and links the
// model paths it lists: TF Serving's models' base paths, TorchServe's
// model_store when no --model-store flag sets it.
func (l *linker) linkServerFile(target *lint.Target, c *manifest.Container, invocation *server.Invocation, annotated, root string) {
	setting, ok := configFilePath(c)
	if !ok {
		return
	}
	file, data, ok := l.serverFile(target, c, setting, target.Links, root)
	if !ok {
		return
	}
	target.ServerFiles = append(target.ServerFiles, file)
	if file.Err != nil {
		return
	}
	switch c.Runtime.Name {
	case "tensorflow-serving":
		config, err := serverconfig.TFServing(data)
		if err != nil {
			file.Err = err
			return
		}
		file.Models = len(config.Entries)
		for _, entry := range config.Entries {
			serverPath := server.Value{Value: entry.BasePath, Field: setting.Field,
				From: fmt.Sprintf("base_path of model %s in %s", message.Quote(entry.Name), setting.Value)}
			l.addLinks(target, c, invocation, serverPath, path.Base(entry.BasePath), annotated, "",
				&lint.Listing{File: file, Name: entry.Name, Line: entry.Line})
		}
	case "openvino":
		l.linkOVMSConfig(target, c, invocation, annotated, file, data)
	case "torchserve":
		properties, err := serverconfig.ParseProperties(data)
		if err != nil {
			file.Err = err
			return
		}
		file.Properties = properties
		store, ok := properties.Get("model_store")
		if !ok || len(invocation.ModelPaths) > 0 {
			return // the --model-store flag wins over the file
		}
		serverPath := server.Value{Value: store.Value, Field: setting.Field, From: "model_store in " + setting.Value}
		l.addLinks(target, c, invocation, serverPath, path.Base(store.Value), annotated, "",
			&lint.Listing{File: file, Line: store.Line})
	}
}

// linkOVMSConfig links the models of an OpenVINO Model Server
// config.json (--config_path): a relative base_path is the config file's
// dir's, and an entry without one reads that dir itself.
func (l *linker) linkOVMSConfig(target *lint.Target, c *manifest.Container, invocation *server.Invocation,
	annotated string, file *lint.ServerFile, data []byte) {
	config, err := ovms.Parse(data)
	if err != nil {
		file.Err = err
		return
	}
	// A config.json of a model dir of the tree is linted with the dir
	// (MDL122); one from a ConfigMap or an image only here.
	if !strings.HasPrefix(file.From, "file ") {
		if !config.ModelList && len(config.Problems) == 0 {
			file.Refusals = append(file.Refusals, lint.Refusal{Line: config.ModelListLine, Reason: "it has no model_config_list array"})
		}
		for _, problem := range config.Problems {
			file.Refusals = append(file.Refusals, lint.Refusal{Line: problem.Line, Reason: problem.Reason})
		}
	}
	file.Models = len(config.Models) + len(config.Graphs)
	dir := path.Dir(path.Clean(file.Setting.Value))
	for _, entry := range config.Models {
		base := entry.BasePath
		switch {
		case !entry.HasBasePath:
			base = dir
		case !strings.HasPrefix(base, "/") && !strings.Contains(base, "://"):
			base = path.Join(dir, base)
		}
		line := entry.BasePathLine
		if line == 0 {
			line = entry.Line
		}
		serverPath := server.Value{Value: base, Field: file.Setting.Field,
			From: fmt.Sprintf("base_path of model %s in %s", message.Quote(entry.Name), file.Setting.Value)}
		l.addLinks(target, c, invocation, serverPath, path.Base(base), annotated, "",
			&lint.Listing{File: file, Name: entry.Name, Line: line})
	}
}

// isModelFile says a server's model path names a file, not a dir: a
// GGUF file, the one format servers are pointed at by file.
func isModelFile(p string) bool { return strings.EqualFold(path.Ext(p), ".gguf") }

// find picks the model dirs for a server path: explicit mappings first,
// then the annotation, then the one dir called name (the path's last
// element, or the storageUri's for KServe). A single-model server gets
// at most one; a repository path (Triton, TorchServe, MLServer) gets every
// model dir inside the dir it maps to, and a dir by name only when the
// name is a PVC storageUri's (byName). Of several dirs of that name, the
// one in the workload's own unit wins, then the one nearest its file.
func (l *linker) find(serverPath, name, annotated string, repository, byName bool, unit int, file string) ([]*model.Model, string) {
	pick := func(dir string) []*model.Model {
		if m := l.byDir[dir]; m != nil && !repository {
			return []*model.Model{m}
		}
		if !repository {
			return nil
		}
		if m := l.byDir[dir]; m != nil && m.Layout != model.LayoutFiles {
			return []*model.Model{m} // the repository path names one model's dir
		}
		return l.inside(dir)
	}
	for _, mapping := range l.mappings {
		if mapping.MountPath == "" {
			continue
		}
		rel, ok := lint.PathUnder(serverPath, mapping.MountPath)
		if !ok {
			continue
		}
		if models := pick(path.Join(mapping.Path, rel)); len(models) > 0 {
			return models, mapping.how
		}
	}
	if annotated != "" {
		if models := pick(path.Clean(annotated)); len(models) > 0 {
			return models, "annotation " + lint.ModelPathAnnotation
		}
	}
	for _, mapping := range l.mappings {
		if mapping.MountPath == "" && path.Base(mapping.Path) == name {
			if models := pick(mapping.Path); len(models) > 0 {
				return models, mapping.how
			}
		}
	}
	if repository && !byName {
		return nil, "" // a repository matched by name alone could be any dir of that name
	}
	var matches []*model.Model
	for _, m := range l.models {
		if path.Base(m.Dir) == name || strings.Contains(name, "/") && strings.HasSuffix("/"+m.Dir, "/"+name) {
			matches = append(matches, m)
		}
	}
	if len(matches) > 1 {
		matches = l.nearestUnit(matches, unit)
	}
	if len(matches) > 1 {
		matches = nearestFile(matches, file)
	}
	if len(matches) == 1 {
		return matches, "name match"
	}
	return nil, ""
}

// nearestUnit keeps the models of the workload's own unit, or, when it has
// none, of the nearest unit it lies in.
func (l *linker) nearestUnit(models []*model.Model, unit int) []*model.Model {
	for {
		var inUnit []*model.Model
		for _, m := range models {
			if found, ok := l.units[m.Dir]; ok && found == unit {
				inUnit = append(inUnit, m)
			}
		}
		parent, ok := l.unitParents[unit]
		if len(inUnit) > 0 || !ok {
			return inUnit
		}
		unit = parent
	}
}

// nearestFile keeps the models below the deepest dir of file that holds
// any: two deployments side by side (broken/ and fixed/, each with its
// models/resnet) each link their own. Several at that depth stay several.
func nearestFile(models []*model.Model, file string) []*model.Model {
	file = filepath.ToSlash(file)
	for dir := path.Dir(file); ; dir = path.Dir(dir) {
		var below []*model.Model
		for _, m := range models {
			if _, ok := lint.PathUnder(filepath.ToSlash(m.Dir), dir); ok || dir == "." && !path.IsAbs(m.Dir) {
				below = append(below, m)
			}
		}
		if len(below) > 0 || dir == "." || dir == "/" || dir == path.Dir(dir) {
			return below
		}
	}
}

// inside returns the model dirs directly below dir, in order.
func (l *linker) inside(dir string) []*model.Model {
	var models []*model.Model
	for _, m := range l.models {
		if path.Dir(m.Dir) == dir {
			models = append(models, m)
		}
	}
	sort.Slice(models, func(i, j int) bool { return models[i].Dir < models[j].Dir })
	return models
}

// mountFor finds the volumeMount that holds p, the deepest when several do.
func mountFor(container *manifest.Container, p string) *lint.MountedPath {
	var best *lint.MountedPath
	for i, mount := range container.VolumeMounts {
		rel, ok := lint.PathUnder(p, mount.MountPath)
		if !ok {
			continue
		}
		if best == nil || len(mount.MountPath) > len(best.Mount) {
			best = &lint.MountedPath{Index: i, Mount: path.Clean(mount.MountPath), Rel: rel}
		}
	}
	return best
}

// storageURI is the storageUri of a KServe component or its model
// shorthand, or an LLMInferenceService's model.uri.
func storageURI(w *manifest.Workload, c *manifest.Container) string {
	for _, p := range []string{c.Path, w.SpecPath} {
		if value, ok := w.Object.Lookup(append(strings.Split(p, "."), "storageUri")...); ok {
			uri, _ := value.(string)
			return uri
		}
	}
	return w.ModelURI
}

// storageURIEnv is the storage URI a custom container of an
// InferenceService names in its STORAGE_URI env var, which KServe's
// storage initializer copies to /mnt/models (see compose.customStorage),
// and the field that writes it; "" when it names none. It is read from the
// object: the composed container's env says /mnt/models, as KServe sets it.
func storageURIEnv(w *manifest.Workload, c *manifest.Container) (uri, field string) {
	value, _ := w.Object.Lookup(append(strings.Split(c.Path, "."), "env")...)
	env, _ := value.([]any)
	for i, item := range env {
		variable, _ := item.(map[string]any)
		if name, _ := variable["name"].(string); name != "STORAGE_URI" {
			continue
		}
		uri, _ := variable["value"].(string)
		return uri, fmt.Sprintf("env[%d].value", i)
	}
	return "", ""
}

func modelPathAnnotation(w *manifest.Workload) string {
	if value := w.TemplateAnnotations[lint.ModelPathAnnotation]; value != "" {
		return value
	}
	value, _ := w.Object.Lookup("metadata", "annotations", lint.ModelPathAnnotation)
	text, _ := value.(string)
	return text
}

// linkNotes say, for the reports, how each serving container of a workload
// target found (or did not find) its model. Their texts but the value,
// which names the model, are kept by number in the run's texts (or the
// target's own, own): most serving containers of a run are alike. The
// values are in values, one after another.
func linkNotes(target *lint.Target, own *heldOwn) (notes []linkNote, values string) {
	if target.Workload == nil {
		return nil, ""
	}
	// A copy of the values: one may be a part of a script read from an image.
	var copied strings.Builder
	for _, link := range target.Links {
		note := linkNote{container: own.keep(link.Container.Label()), from: own.keep(link.ServerPath.From)}
		note.value.start = uint32(copied.Len())
		copied.WriteString(link.ServerPath.Value)
		note.value.end = uint32(copied.Len())
		img := target.Images[link.Container.Image]
		switch {
		case link.Model != nil:
			note.found, note.detail, note.how = linkedModel, own.keep(link.Model.Dir), own.keep(link.How)
		case link.Mount == nil && img != nil && img.FS() != nil:
			note.found, note.detail = notInImage, own.keep(img.Reference)
		case link.Mount != nil:
			note.found, note.detail = onVolume, own.keep(link.Mount.Mount)
		default:
			note.found = imageNotRead
		}
		notes = append(notes, note)
	}
	return notes, copied.String()
}

// linkNote is a line of Result.Links in its parts: a run holds one for
// each serving container until the reports, and most of the line's text
// is the same for all of them.
type linkNote struct {
	value span // the server path's value, in the target's values
	// The container's label, the server path's setting, the model dir,
	// image or mount path, and how the model was linked.
	container, from, detail, how heldText
	found                        linkFound
}

type linkFound uint8

const (
	linkedModel linkFound = iota
	notInImage
	onVolume
	imageNotRead
)

// line is the note as Result.Links has it, on a target named name whose
// texts own holds.
func (n *linkNote) line(name, values string, own *heldOwn) string {
	where := name + " " + own.text(n.container) + ": " + own.text(n.from) + " " + values[n.value.start:n.value.end]
	detail := own.text(n.detail)
	switch n.found {
	case linkedModel:
		return fmt.Sprintf("%s → model %s (%s)", where, detail, own.text(n.how))
	case notInImage:
		return fmt.Sprintf("%s → no volumeMount covers it and image %s holds no model dir there", where, detail)
	case onVolume:
		return fmt.Sprintf("%s → on the volume mounted at %s; no model dir given for it (map one with "+
			"--model DIR:%s, the %s annotation, or models: in .modellint.yaml)", where, detail, detail, lint.ModelPathAnnotation)
	}
	return where + " → no volumeMount covers it and the image was not read, so no model is linked"
}
