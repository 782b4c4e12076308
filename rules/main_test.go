package rules_test

import (
	"testing"

	"github.com/modellint/modellint/lint/render/helm/helmtest"
)

// TestMain lets the test binary serve as the Helm renderer.
func TestMain(m *testing.M) { helmtest.Main(m) }
