// Command rawrenderer is a renderer for the charts package's tests only:
// it serves requests with charts.Serve, as modellint-helm does, but
// without modellint's own checks, so a test can see what the renderer's
// process refuses by itself. Request.Display says what it does: "panic"
// panics; "environment" answers with its environment and working
// directory as log lines; "lookup HOST" looks HOST up; "flood" writes an
// answer larger than it announces; anything else builds Request.Overlay
// with kustomize, remote resources and all.
package main

import (
	"fmt"
	"log"
	"net"
	"os"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/modellint/modellint/lint/render/charts"
)

func main() { os.Exit(charts.Serve(os.Stdin, os.Stdout, respond)) }

func respond(request charts.Request) charts.Response {
	switch {
	case request.Display == "panic":
		panic("index 3 out of range in the trace of templates/cm.yaml")
	case request.Display == "environment":
		dir, err := os.Getwd()
		entries, _ := os.ReadDir(".")
		for _, variable := range os.Environ() {
			log.Print(variable)
		}
		log.Printf("cwd %s %v, %d entries", dir, err, len(entries))
		return charts.Response{}
	case strings.HasPrefix(request.Display, "lookup "):
		_, err := net.LookupHost(strings.TrimPrefix(request.Display, "lookup "))
		return charts.Response{Error: fmt.Sprint(err)}
	case request.Display == "flood":
		fmt.Printf(`{"Version":%d,"Files":[{"Path":"flood.yaml","Placements":2,"Source":0,"Rendered":%d}]}`+"\n[]", charts.WireVersion, charts.MaxResponse)
		os.Stdout.WriteString(strings.Repeat("x", charts.MaxResponse+1))
		select {}
	}
	_, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), request.Overlay)
	return charts.Response{Error: fmt.Sprintf("%s: %v", request.Display, err)}
}
