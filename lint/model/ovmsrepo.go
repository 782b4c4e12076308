package model

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/modellint/modellint/lint/model/jsonpos"
	"github.com/modellint/modellint/lint/model/modelfile"
	"github.com/modellint/modellint/lint/model/ovms"
)

// LayoutOVMS is an OpenVINO Model Server model: numeric version dirs
// holding an OpenVINO IR (model.xml and model.bin) or a Paddle model, or
// a model repository whose config.json lists its models.
const LayoutOVMS Layout = "ovms"

// IgnoredNotPositive is why OVMS skips a version dir named 0 or below.
const IgnoredNotPositive = "not greater than 0"

// OVMSModel is the OpenVINO Model Server side of a model dir.
type OVMSModel struct {
	// ConfigFile is the repository's config.json relative to the model
	// dir, "" for a single model's base path.
	ConfigFile string
	Config     *ovms.Config
	// ConfigError says why config.json cannot be read as JSON: OVMS does
	// not start; ConfigLine is the line it fails on (0 when not at one).
	ConfigError string
	ConfigLine  int
	// ConfigUnread says config.json's content was not available.
	ConfigUnread bool
	// Bases are the base paths OVMS reads versions from: the dir itself,
	// or the config's entries that resolve inside the dir.
	Bases []OVMSBase
}

// OVMSBase is one model base path as OVMS reads it.
type OVMSBase struct {
	// Name is the model's name (the config entry's, else the dir's).
	Name string
	// Dir is the base path relative to the model dir ("" for the dir).
	Dir string
	// Entry is the config entry that names it; nil for a single model.
	Entry *ovms.Entry
	// Missing says the entry's base_path names nothing in the dir;
	// Escapes says it goes up with .., which OVMS forbids; File says it
	// names a single model file, which OVMS serves as version 1; Outside
	// says it is absolute or a cloud URL, not read here.
	Missing, Escapes, File, Outside bool
	// Versions are the dirs OVMS reads as versions (numbers above 0), by
	// number; Ignored the subdirectories it skips.
	Versions []Version
	Ignored  []Ignored
	// Problems are the versions OVMS cannot load from their files.
	Problems []OVMSProblem
}

// OVMSProblem is a version dir whose files OVMS cannot load a model from.
type OVMSProblem struct {
	// Version is the version's dir name as on disk.
	Version string
	Number  int64
	// Dir is the dir OVMS opens for the version (base/NUMBER), relative
	// to the model dir; DirMissing says it does not exist (the version's
	// dir is named 01 or 1_old).
	Dir        string
	DirMissing bool
	// File is a model file without its partner Want (model.xml without
	// model.bin, model.bin without model.xml, a .pdmodel without its
	// .pdiparams); both "" when the dir holds no model file at all.
	File, Want string
	Resident   bool
}

// ovmsVersion reads a version dir name as OVMS does (std::stoll, then
// version <= 0 is skipped): leading whitespace, a sign and digits, and
// whatever follows ignored (1_old is version 1, 01 is version 1).
func ovmsVersion(name string) (int64, string) {
	value, negative, reason := stoll(name)
	switch {
	case reason != "":
		return 0, reason
	case negative || value == 0:
		return 0, IgnoredNotPositive
	}
	return int64(value), ""
}

// ovmsPayload reports whether a version dir's files are OpenVINO Model
// Server's own formats: an OpenVINO IR or a Paddle model.
func ovmsPayload(files []string) bool {
	for _, name := range files {
		switch path.Ext(name) {
		case ".xml", ".pdmodel", ".pdiparams":
			return true
		}
	}
	return false
}

// maxOVMSConfigSniff bounds the config.json read to tell an OVMS config.
const maxOVMSConfigSniff = ovms.MaxConfig

// ovmsConfigKeys are the lists only an OVMS config has.
var ovmsConfigKeys = [][]byte{[]byte(`"model_config_list"`), []byte(`"mediapipe_config_list"`)}

// isOVMSConfig reports whether a config.json is meant for OVMS: it has
// one of OVMS's lists (a broken one naming it counts too).
func isOVMSConfig(data []byte) bool {
	if ovms.LooksLikeConfig(data) {
		return true
	}
	for _, key := range ovmsConfigKeys {
		if bytes.Contains(data, key) {
			return true
		}
	}
	return false
}

// sniffOVMSConfig reads the dir's config.json, when it is small enough,
// and reports whether it is an OVMS config.
func (l *loader) sniffOVMSConfig() bool {
	file := l.tree.file(ovms.ConfigFile)
	if file == nil || file.LFSPointer || file.Size > maxOVMSConfigSniff {
		return false
	}
	f, err := l.tree.open(file.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxOVMSConfigSniff))
	return err == nil && isOVMSConfig(data)
}

// readOVMS reads an OVMS model: its config.json when it is a repository,
// and the versions of each base path inside the dir.
func (l *loader) readOVMS(repository bool) error {
	m := l.model
	m.OVMS = &OVMSModel{}
	om := m.OVMS
	if !repository {
		base := l.readOVMSBase("", path.Base(m.Dir), ovms.VersionPolicy{Kind: "latest", NumVersions: 1})
		om.Bases = append(om.Bases, base)
		m.Versions, m.Ignored = base.Versions, base.Ignored
		for _, version := range base.Versions {
			if version.Resident {
				m.ResidentVersions++
				m.ResidentBytes += version.Bytes
			}
		}
		return nil
	}
	file := l.tree.file(ovms.ConfigFile)
	om.ConfigFile = file.Path
	if err := l.readOVMSConfig(file); err != nil || om.Config == nil {
		return err
	}
	m.ResidentVersions = 0
	for i := range om.Config.Models {
		entry := &om.Config.Models[i]
		base := l.ovmsEntryBase(entry)
		om.Bases = append(om.Bases, base)
		for _, version := range base.Versions {
			if version.Resident {
				m.ResidentVersions++
				m.ResidentBytes += version.Bytes
			}
		}
	}
	return nil
}

func (l *loader) readOVMSConfig(file *File) error {
	om := l.model.OVMS
	if file.LFSPointer {
		om.ConfigError = "the file is a Git LFS pointer"
		return nil
	}
	if file.Size > ovms.MaxConfig {
		om.ConfigError = "larger than the 4 MiB modellint reads"
		return nil
	}
	f, err := l.tree.open(file.Path)
	if err != nil {
		return l.fileError(file.Path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, ovms.MaxConfig))
	if l.unread(f) {
		om.ConfigUnread = true
		return nil
	}
	if err != nil {
		return l.fileError(file.Path, err)
	}
	config, err := ovms.Parse(data)
	if err != nil {
		if !errors.Is(err, modelfile.ErrInvalid) {
			return l.fileError(file.Path, err)
		}
		om.ConfigError = modelfile.Reason(err)
		var syntax *jsonpos.Error
		if errors.As(err, &syntax) {
			om.ConfigLine = syntax.Line
		}
		return nil
	}
	om.Config = config
	return nil
}

// ovmsEntryBase resolves a config entry's base_path as OVMS does (from
// the config file's dir) and reads it when it is inside the model dir.
func (l *loader) ovmsEntryBase(entry *ovms.Entry) OVMSBase {
	base := OVMSBase{Name: entry.Name, Entry: entry}
	written := entry.BasePath
	switch {
	case !entry.HasBasePath || written == "":
		// OVMS reads the model from the config file's dir.
	case strings.Contains(written, "://"), path.IsAbs(written):
		base.Outside = true
		return base
	case strings.HasPrefix(written, "../") || strings.HasSuffix(written, "/..") || strings.Contains(written, "/../") || written == "..":
		base.Escapes = true
		return base
	}
	dir := path.Clean(written)
	if dir == "." {
		dir = ""
	}
	base.Dir = dir
	switch {
	case dir == "" || l.tree.isDir(dir):
		read := l.readOVMSBase(dir, entry.Name, entry.Policy)
		read.Entry = entry
		return read
	case l.tree.file(dir) != nil:
		base.File = true
	default:
		base.Missing = true
	}
	return base
}

// readOVMSBase reads the version dirs of a base path as OVMS lists them,
// marking those the version policy serves.
func (l *loader) readOVMSBase(dir, name string, policy ovms.VersionPolicy) OVMSBase {
	base := OVMSBase{Name: name, Dir: dir}
	dirs, _ := l.tree.children(dir)
	for _, child := range dirs {
		number, reason := ovmsVersion(child)
		if reason != "" {
			base.Ignored = append(base.Ignored, Ignored{Name: child, IsDir: true, Reason: reason})
			continue
		}
		rel := path.Join(dir, child)
		version := Version{Name: child, Path: rel, Number: number, IsDir: true}
		version.Bytes, version.Files = l.tree.bytesUnder(rel)
		base.Versions = append(base.Versions, version)
	}
	sortVersions(base.Versions)
	selectOVMSVersions(base.Versions, policy)
	for i := range base.Versions {
		version := &base.Versions[i]
		opened := path.Join(dir, strconv.FormatInt(version.Number, 10))
		problem := OVMSProblem{Version: version.Name, Number: version.Number, Dir: opened, Resident: version.Resident}
		if !l.tree.isDir(opened) {
			problem.DirMissing = true
			base.Problems = append(base.Problems, problem)
			continue
		}
		if opened != version.Path {
			continue // 01 beside 1: OVMS opens 1, read on its own
		}
		file, missing := l.ovmsModelFile(opened)
		version.ModelFile = file
		if file == "" {
			problem.File, problem.Want = missing[0], missing[1]
			base.Problems = append(base.Problems, problem)
		}
	}
	return base
}

// selectOVMSVersions marks the versions a policy serves: the NumVersions
// highest numbers, all, or the listed ones.
func selectOVMSVersions(versions []Version, policy ovms.VersionPolicy) {
	served := map[int64]bool{}
	switch policy.Kind {
	case "all":
		for _, version := range versions {
			served[version.Number] = true
		}
	case "specific":
		for _, n := range policy.Versions {
			served[n] = true
		}
	default:
		for i := len(versions) - 1; i >= 0 && int64(len(served)) < policy.NumVersions; i-- {
			served[versions[i].Number] = true
		}
	}
	for i := range versions {
		versions[i].Resident = served[versions[i].Number]
	}
}

// ovmsModelFile finds the file OVMS loads from a version dir, trying
// its formats in its order (OpenVINO IR, ONNX, Paddle, TensorFlow,
// TFLite) by the files' endings; the IR's weights are read by OpenVINO
// from the .bin named as the .xml. Without one, missing is the model file
// found without its partner and the partner's path, or two "".
func (l *loader) ovmsModelFile(dir string) (file string, missing [2]string) {
	_, names := l.tree.children(dir)
	byExt := map[string][]string{}
	for _, name := range names {
		for _, ext := range []string{".xml", ".bin", ".onnx", ".pdmodel", ".pdiparams", ".pb", ".tflite"} {
			if strings.HasSuffix(name, ext) {
				byExt[ext] = append(byExt[ext], name)
			}
		}
	}
	has := func(name string) bool { return l.tree.file(path.Join(dir, name)) != nil }
	stem := func(name string) string { return strings.TrimSuffix(name, path.Ext(name)) }
	if len(byExt[".xml"]) > 0 && len(byExt[".bin"]) > 0 {
		for _, xml := range byExt[".xml"] {
			if has(stem(xml) + ".bin") {
				return path.Join(dir, xml), missing
			}
		}
		xml := byExt[".xml"][0]
		return "", [2]string{path.Join(dir, xml), path.Join(dir, stem(xml)+".bin")}
	}
	for _, ext := range []string{".onnx", ".pdmodel", ".pb", ".tflite"} {
		if len(byExt[ext]) == 0 {
			continue
		}
		if ext == ".pdmodel" && !has(stem(byExt[ext][0])+".pdiparams") {
			continue
		}
		return path.Join(dir, byExt[ext][0]), missing
	}
	switch {
	case len(byExt[".xml"]) > 0:
		xml := byExt[".xml"][0]
		return "", [2]string{path.Join(dir, xml), path.Join(dir, stem(xml)+".bin")}
	case len(byExt[".bin"]) > 0:
		bin := byExt[".bin"][0]
		return "", [2]string{path.Join(dir, bin), path.Join(dir, stem(bin)+".xml")}
	case len(byExt[".pdmodel"]) > 0:
		model := byExt[".pdmodel"][0]
		return "", [2]string{path.Join(dir, model), path.Join(dir, stem(model)+".pdiparams")}
	case len(byExt[".pdiparams"]) > 0:
		params := byExt[".pdiparams"][0]
		return "", [2]string{path.Join(dir, params), path.Join(dir, stem(params)+".pdmodel")}
	}
	return "", missing
}

// holdsOVMSConfig reports whether a dir's entries include an OVMS
// config.json: the root of an OVMS model repository.
func holdsOVMSConfig(fsys fs.FS, entries []fs.DirEntry) bool {
	for _, entry := range entries {
		if entry.Name() != ovms.ConfigFile || !entry.Type().IsRegular() {
			continue
		}
		info, err := entry.Info()
		if err != nil || info.Size() > maxOVMSConfigSniff {
			return false
		}
		f, err := fsys.Open(ovms.ConfigFile)
		if err != nil {
			return false
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxOVMSConfigSniff))
		return err == nil && isOVMSConfig(data)
	}
	return false
}
