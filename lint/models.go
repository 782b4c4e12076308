package lint

import (
	"path/filepath"

	"github.com/modellint/modellint/lint/model"
)

// isModelDir reports whether discovery should lint dir as a model directory.
func isModelDir(dir string) bool { return model.IsModelDir(dir) }

// loadModels reads each model directory into a target of its own.
func loadModels(dirs []string, config *Config) ([]*Target, error) {
	var targets []*Target
	for _, dir := range dirs {
		facts, err := model.Load(filepath.FromSlash(dir), dir)
		if err != nil {
			return nil, err
		}
		targets = append(targets, &Target{Model: facts})
	}
	return targets, nil
}
