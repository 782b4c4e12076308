package python

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// ServeApp is one Ray Serve application of a RayService's serveConfigV2:
// the module:attribute its import_path names, which Ray Serve imports in
// the Ray container's Python when it deploys the application.
type ServeApp struct {
	// Name is the application's name; ImportPath its import_path as
	// written.
	Name, ImportPath string
	// Remote says the code comes with the application's runtime_env
	// (working_dir, py_modules, pip …) rather than from the image.
	Remote string
}

// maxServeConfig bounds the serveConfigV2 text read.
const maxServeConfig = 1 << 20

// ParseServeConfig reads the applications of a serveConfigV2 document.
func ParseServeConfig(text string) ([]ServeApp, error) {
	if len(text) > maxServeConfig {
		return nil, fmt.Errorf("serveConfigV2 is over %d KiB", maxServeConfig>>10)
	}
	var config struct {
		Applications []struct {
			Name       string         `json:"name"`
			ImportPath string         `json:"import_path"`
			RuntimeEnv map[string]any `json:"runtime_env"`
		} `json:"applications"`
	}
	if err := yaml.Unmarshal([]byte(text), &config); err != nil {
		return nil, fmt.Errorf("serveConfigV2 is not a Ray Serve config: %w", err)
	}
	var apps []ServeApp
	for _, app := range config.Applications {
		if app.ImportPath == "" {
			continue
		}
		serveApp := ServeApp{Name: app.Name, ImportPath: app.ImportPath}
		for _, key := range []string{"working_dir", "py_modules", "pip", "uv", "conda", "container", "image_uri", "py_executable"} {
			if value, ok := app.RuntimeEnv[key]; ok && value != nil {
				serveApp.Remote = fmt.Sprintf("application %s's runtime_env sets %s, which brings the code or the Python at deploy time", app.Name, key)
				break
			}
		}
		apps = append(apps, serveApp)
	}
	return apps, nil
}

// serveTarget is the app target of an import_path: module:attr, or
// module.attr as Ray also takes it.
func serveTarget(app ServeApp) (Target, bool) {
	module, attr, found := strings.Cut(app.ImportPath, ":")
	if !found {
		dot := strings.LastIndexByte(app.ImportPath, '.')
		if dot <= 0 {
			return Target{}, false
		}
		module, attr = app.ImportPath[:dot], app.ImportPath[dot+1:]
	}
	if module == "" || strings.ContainsAny(module, "/\\ ") {
		return Target{}, false
	}
	return Target{Kind: App, Word: -1, Name: module, Attr: attr, AppDir: ".", Unsure: app.Remote}, true
}
