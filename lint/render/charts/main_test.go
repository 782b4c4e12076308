package charts_test

import (
	"testing"

	"github.com/modellint/modellint/lint/render/helm/helmtest"
)

// TestMain lets the test binary serve as the renderer, modellint-helm's
// own Respond and all.
func TestMain(m *testing.M) { helmtest.Main(m) }
