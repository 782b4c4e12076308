// Package renderer answers modellint's render requests in modellint-helm:
// a Helm chart is rendered by package helm, a Kustomize overlay built by
// package build (see charts.Renderer). Helm's and
// kustomize's libraries live in that binary alone, so modellint starts
// without setting them up.
package renderer

import (
	"github.com/modellint/modellint/lint/render/charts"
	"github.com/modellint/modellint/lint/render/helm"
	"github.com/modellint/modellint/lint/render/kustomize/build"
)

// Respond renders the chart or builds the overlay a request names, in wire
// form; charts.Serve serves it.
func Respond(request charts.Request) charts.Response {
	if request.Overlay == "" {
		return helm.Respond(request)
	}
	built, err := build.Overlay(request.Overlay, request.Display, request.Root, request.LoadRestrictor)
	if err != nil {
		return charts.Response{Error: err.Error()}
	}
	var response charts.Response
	for _, b := range built {
		if b.Text == nil {
			response.Files = append(response.Files, charts.SourceFileOf(b.File))
		} else {
			response.Files = append(response.Files, charts.FileOf(b.File, b.Text))
		}
	}
	return response
}
