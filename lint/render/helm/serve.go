package helm

import (
	"github.com/modellint/modellint/lint/render/charts"
)

// Respond renders and traces the chart a request names and puts the result
// in wire form (see package renderer, which serves it).
func Respond(request charts.Request) charts.Response {
	templates, values, err := renderTemplates(request.Chart, request.Display, request.Options)
	if err != nil {
		return charts.Response{Error: err.Error()}
	}
	var response charts.Response
	for _, template := range templates {
		response.Files = append(response.Files, charts.FileOf(template.file, template.text))
	}
	for _, file := range values {
		response.Files = append(response.Files, charts.SourceFileOf(file))
	}
	return response
}
