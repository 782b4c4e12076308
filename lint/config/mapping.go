package config

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/modellint/modellint/internal/message"
)

// ModelMapping ties a model dir on disk to the path it is mounted at in
// containers (config `models:` and --model DIR:MOUNTPATH).
type ModelMapping struct {
	Path      string `json:"path"`
	MountPath string `json:"mountPath,omitempty"`
}

// ParseModelMapping reads DIR[:MOUNTPATH].
func ParseModelMapping(value string) (ModelMapping, error) {
	dir, mount, _ := strings.Cut(value, ":")
	if dir == "" {
		return ModelMapping{}, fmt.Errorf("--model %s: want DIR[:MOUNTPATH]", message.Quote(value))
	}
	if mount != "" && !strings.HasPrefix(mount, "/") {
		return ModelMapping{}, fmt.Errorf("--model %s: MOUNTPATH must be absolute", message.Quote(value))
	}
	return ModelMapping{Path: filepath.ToSlash(filepath.Clean(dir)), MountPath: path.Clean(mount)}, nil
}
