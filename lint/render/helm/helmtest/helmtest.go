// Package helmtest lets a test binary render charts and build Kustomize
// overlays as modellint does, in a child process, with the test binary
// itself as the renderer: modellint starts modellint-helm, which test
// binaries do not build.
package helmtest

import (
	"os"
	"testing"

	"github.com/modellint/modellint/lint/render/charts"
	"github.com/modellint/modellint/lint/render/renderer"
)

// ServeOrUse serves the render request and exits when this process was
// started as the renderer; otherwise it makes charts.Render start this
// executable. Call it first in TestMain.
func ServeOrUse() {
	if charts.IsRenderChild() {
		os.Exit(charts.Serve(os.Stdin, os.Stdout, renderer.Respond))
	}
	self, err := os.Executable()
	if err != nil {
		panic("helmtest: " + err.Error())
	}
	charts.UseRenderer(self, charts.ChildEnv+"=1")
}

// Main is a TestMain for a package whose tests render charts: ServeOrUse,
// then the tests.
func Main(m *testing.M) {
	ServeOrUse()
	os.Exit(m.Run())
}
