package model

import (
	"errors"
	"io"
	"path"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint/model/jsonpos"
	"github.com/modellint/modellint/lint/model/mlserver"
	"github.com/modellint/modellint/lint/model/modelfile"
)

// LayoutMLServer is a Seldon MLServer model: a dir with
// model-settings.json (and the artifact its runtime loads), and no files
// of another layout.
const LayoutMLServer Layout = "mlserver"

// MLServerModel is the MLServer side of a model dir: its
// model-settings.json, which a dir of any layout may have.
type MLServerModel struct {
	// SettingsFile is model-settings.json relative to the model dir.
	SettingsFile string
	Settings     *mlserver.Settings
	// SettingsError says why the file cannot be read as JSON, and
	// SettingsLine the line it fails on (0 when not at one).
	SettingsError string
	SettingsLine  int
	// SettingsUnread says the file's content was not available.
	SettingsUnread bool
	// URIPath is parameters.uri resolved as MLServer does, from the
	// settings file's dir, relative to the model dir ("" for the dir
	// itself); URIMissing says nothing is there. A URI with a scheme other
	// than file, absolute, or leading out of the dir leaves URIOutside set.
	URIPath    string
	URIMissing bool
	URIOutside bool
}

// uriScheme matches the scheme urllib.parse.urlparse splits off.
var uriScheme = lazyregexp.New(`^([A-Za-z][A-Za-z0-9+.-]*):`)

// readMLServer reads the dir's model-settings.json, if it has one.
func (l *loader) readMLServer() error {
	file := l.tree.file(mlserver.SettingsFile)
	if file == nil {
		return nil
	}
	l.model.MLServer = &MLServerModel{SettingsFile: file.Path}
	ms := l.model.MLServer
	if file.LFSPointer {
		ms.SettingsError = "the file is a Git LFS pointer"
		return nil
	}
	if file.Size > mlserver.MaxSettings {
		ms.SettingsError = "larger than the 4 MiB modellint reads"
		return nil
	}
	f, err := l.tree.open(file.Path)
	if err != nil {
		return l.fileError(file.Path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, mlserver.MaxSettings))
	if l.unread(f) {
		ms.SettingsUnread = true
		return nil
	}
	if err != nil {
		return l.fileError(file.Path, err)
	}
	settings, err := mlserver.Parse(data)
	if err != nil {
		if !errors.Is(err, modelfile.ErrInvalid) {
			return l.fileError(file.Path, err)
		}
		ms.SettingsError = modelfile.Reason(err)
		var syntax *jsonpos.Error
		if errors.As(err, &syntax) {
			ms.SettingsLine = syntax.Line
		}
		return nil
	}
	ms.Settings = settings
	if settings.HasURI {
		l.resolveMLServerURI(settings.URI)
	}
	return nil
}

// resolveMLServerURI finds parameters.uri in the dir as MLServer's
// get_model_uri does: a file URI's path, joined to the settings file's dir.
func (l *loader) resolveMLServerURI(uri string) {
	ms := l.model.MLServer
	if match := uriScheme.FindStringSubmatch(uri); match != nil {
		if !strings.EqualFold(match[1], "file") {
			ms.URIOutside = true
			return
		}
		uri = strings.TrimPrefix(uri[len(match[0]):], "//")
	}
	if path.IsAbs(uri) {
		ms.URIOutside = true
		return
	}
	rel := path.Clean(path.Join(path.Dir(ms.SettingsFile), uri))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		ms.URIOutside = true
		return
	}
	if rel == "." {
		rel = ""
	}
	ms.URIPath = rel
	if rel == "" || l.tree.file(rel) != nil || l.tree.isDir(rel) {
		return
	}
	for _, link := range l.tree.links {
		if link.Path == rel || strings.HasPrefix(rel, link.Path+"/") {
			return // a link out of the dir, or dangling: reported as such
		}
	}
	ms.URIMissing = true
}

// mlserverSettingsFile is the file that makes a dir an MLServer model.
const mlserverSettingsFile = mlserver.SettingsFile
