package main

import (
	"github.com/spf13/pflag"

	"github.com/modellint/modellint/lint"
)

// addRenderFlags defines the flags for rendering Helm charts and Kustomize overlays.
func addRenderFlags(set *pflag.FlagSet, options *lint.RenderOptions) {}
