package engine

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/internal/fileread"
	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/rootfs"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/model/serverconfig"
	"github.com/modellint/modellint/lint/server"
)

// A server config file is read where the pod gives it to the container:
// a ConfigMap's key on a configMap volume, a file of a model dir of the
// linted tree on the volume the dir is linked to, or the image's file when
// no volume covers the path.

// configFilePath is the config file a serving container names, if any.
func configFilePath(c *manifest.Container) (server.Value, bool) {
	if c.Runtime == nil || !configFileFormat(c.Runtime) {
		return server.Value{}, false
	}
	setting := c.Invocation().ModelConfigFile
	return setting, lint.LocalPath(setting.Value)
}

// configFileFormat says modellint reads the runtime's config file.
func configFileFormat(r *server.Runtime) bool {
	return r.Name == "tensorflow-serving" || r.Name == "torchserve" || r.Name == "openvino"
}

// configFileNeeds is the image file a container's config file is read
// from, for the image loader to capture: none when a volume covers it.
func configFileNeeds(c *manifest.Container, img *image.Image) []*rootfs.Node {
	if c == nil || img.FS() == nil {
		return nil
	}
	setting, ok := configFilePath(c)
	if !ok || mountFor(c, setting.Value) != nil {
		return nil
	}
	node, err := img.FS().Stat(setting.Value)
	if err != nil || node.Type != rootfs.Regular {
		return nil
	}
	return []*rootfs.Node{node}
}

// serverFile reads the config file container c names, as the pod gives it.
// ok is false when where it comes from is not in the linted files (a
// PVC's file with no model dir linked, an image not read).
// root is the tree dir KServe copies to /mnt/models, "" for none.
func (l *linker) serverFile(target *lint.Target, c *manifest.Container, setting server.Value, links []*lint.Link, root string) (*lint.ServerFile, []byte, bool) {
	file := &lint.ServerFile{Container: c, Setting: setting}
	p := path.Clean(setting.Value)
	mount := mountFor(c, p)
	if mount == nil {
		img := target.Images[c.Image]
		if img == nil || img.FS() == nil {
			return nil, nil, false
		}
		file.From = "image " + img.Reference
		file.Image = lint.ImageLocation{Reference: img.Reference, Path: p}
		node, err := img.FS().Stat(p)
		if err != nil {
			file.Err = fmt.Errorf("no volumeMount covers it and image %s does not contain it", img.Reference)
			return file, nil, true
		}
		file.Image.Layer = img.LayerOf(node)
		data, ok := img.ReadText(p)
		if !ok {
			return nil, nil, false // there, but not captured (a directory, too large)
		}
		return file, data, true
	}
	volume := volumeNamed(target.Workload.Spec, c.VolumeMounts[mount.Index].Name)
	if volume != nil && volume.ConfigMap != nil {
		return l.configMapFile(target.Workload, file, volume.ConfigMap, c.VolumeMounts[mount.Index], mount.Rel)
	}
	if rel, ok := lint.PathUnder(p, kserveModelPath); ok && root != "" {
		return rootFile(file, root, rel)
	}
	for _, link := range links {
		if link.Model == nil || link.Container != c {
			continue
		}
		if rel, ok := lint.PathUnder(p, link.ServerPath.Value); ok {
			return treeFile(file, link.Model, rel)
		}
	}
	for _, mapping := range l.mappings {
		if rel, ok := lint.PathUnder(p, mapping.MountPath); ok && mapping.MountPath != "" {
			return rootFile(file, mapping.Path, rel)
		}
	}
	return nil, nil, false
}

// treeFile reads a file of a linked model dir: only a regular file the
// dir's walk listed, so nothing outside the tree is read.
func treeFile(file *lint.ServerFile, m *model.Model, rel string) (*lint.ServerFile, []byte, bool) {
	name := path.Join(m.Dir, rel)
	file.From, file.File, file.Line, file.Exact = "file "+name, name, 1, true
	for _, f := range m.Files {
		if f.Path != rel {
			continue
		}
		data, err := fileread.Regular(name, serverconfig.MaxFile)
		if err != nil {
			file.Err = err
		}
		return file, data, true
	}
	file.File, file.Line, file.Exact = "", 0, false
	file.Err = fmt.Errorf("model dir %s, mounted there, has no file %s", m.Dir, message.Quote(rel))
	file.FromTree = true
	return file, nil, true
}

// rootFile reads a file below a dir of the linted tree that stands for a
// volume (a --model or models: mapping, KServe's storageUri dir); a path
// that leads outside the dir (a symlink) is not read.
func rootFile(file *lint.ServerFile, root, rel string) (*lint.ServerFile, []byte, bool) {
	name := path.Join(root, rel)
	file.From, file.File, file.Line, file.Exact = "file "+name, name, 1, true
	resolvedRoot, err := filepath.EvalSymlinks(filepath.FromSlash(root))
	if err != nil {
		return nil, nil, false
	}
	resolved, err := filepath.EvalSymlinks(filepath.FromSlash(name))
	if err != nil {
		file.File, file.Line, file.Exact = "", 0, false
		file.Err = fmt.Errorf("%s, the tree's dir for the volume, has no file %s", root, message.Quote(rel))
		file.FromTree = true
		return file, nil, true
	}
	if inside, err := filepath.Rel(resolvedRoot, resolved); err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
		return nil, nil, false // a symlink out of the tree: not read
	}
	data, err := fileread.Regular(resolved, serverconfig.MaxFile)
	if err != nil {
		file.Err = err
	}
	return file, data, true
}

// configMapFile reads the key of a configMap volume that lies at rel
// below the mount (or is the mount's subPath).
func (l *linker) configMapFile(w *manifest.Workload, file *lint.ServerFile, source *corev1.ConfigMapVolumeSource,
	mount corev1.VolumeMount, rel string) (*lint.ServerFile, []byte, bool) {
	if mount.SubPath != "" {
		rel = path.Join(mount.SubPath, rel)
	}
	key := rel
	if len(source.Items) > 0 {
		key = ""
		for _, item := range source.Items {
			if path.Clean(item.Path) == rel {
				key = item.Key
			}
		}
	}
	object := l.objects.Find("ConfigMap", w.Object.Namespace, source.Name)
	if object == nil || key == "" {
		return nil, nil, false // MDL209 reports a ConfigMap that is not there
	}
	file.From = fmt.Sprintf("ConfigMap %s key %s", source.Name, message.Quote(key))
	value, ok := object.Lookup("data", key)
	text, isText := value.(string)
	if !ok || !isText {
		if optional := source.Optional; optional != nil && *optional {
			return nil, nil, false
		}
		file.Err = fmt.Errorf("ConfigMap %s has no data key %s", source.Name, message.Quote(key))
		file.File, file.Line = object.File.Path, object.Locate("data").Line
		return file, nil, true
	}
	where, pos := object.Where(manifest.JoinPath("data", key))
	file.File, file.Line = where, pos.Line
	// A literal block's lines are the file's from the line after its key;
	// any other value (folded, quoted, a chart's .Files.Get) is placed at
	// the key.
	if !object.File.Rendered && where == object.File.Path && literalBlock(object.File.Line(pos.Line)) {
		file.Line, file.Exact = pos.Line+1, true
	}
	if len(text) > serverconfig.MaxFile {
		file.Err = fmt.Errorf("%d bytes, more than the %d a config file may have", len(text), serverconfig.MaxFile)
		return file, nil, true
	}
	return file, []byte(text), true
}

// literalBlock says a line of YAML ends in a literal block indicator
// ("key: |", "key: |-", "key: |2").
func literalBlock(line string) bool {
	text := strings.TrimSpace(line)
	if i := strings.Index(text, " #"); i >= 0 {
		text = strings.TrimSpace(text[:i])
	}
	i := strings.LastIndexAny(text, " \t")
	if i < 0 {
		return false
	}
	indicator := text[i+1:]
	return strings.HasPrefix(indicator, "|") && strings.Trim(indicator[1:], "+-0123456789") == ""
}

func volumeNamed(spec *corev1.PodSpec, name string) *corev1.Volume {
	if spec == nil {
		return nil
	}
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == name {
			return &spec.Volumes[i]
		}
	}
	return nil
}
