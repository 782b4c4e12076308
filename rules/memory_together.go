package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

// checkModelsTogether holds a container's memory limit to all the models
// its server loads at start, when each alone fits: TF Serving loads every
// model its model config file lists, Triton every model of its repository
// unless --model-control-mode=explicit picks them. One process holds them
// all, with one baseline.
func checkModelsTogether(pass *lint.Pass) {
	var order []*manifest.Container
	byContainer := map[*manifest.Container][]*lint.Link{}
	for _, link := range pass.Target.Links {
		if link.Model == nil {
			continue
		}
		if byContainer[link.Container] == nil {
			order = append(order, link.Container)
		}
		byContainer[link.Container] = append(byContainer[link.Container], link)
	}
	estimates := pass.Config.Estimates()
containers:
	for _, c := range order {
		links := byContainer[c]
		limit, ok := c.Resources.Limits[corev1.ResourceMemory]
		if len(links) < 2 || !ok || !loadsAllAtStart(pass, c) {
			continue
		}
		var total int64
		var parts []string
		copies := 1
		seen := map[string]bool{}
		for _, link := range links {
			need, judged := servingMemory(pass, link)
			if !judged || limit.Value() < need.Bytes {
				continue containers // not judged, or MDL401 reports it alone
			}
			if seen[link.Model.Dir] {
				continue
			}
			seen[link.Model.Dir] = true
			total += need.model
			copies = need.copies
			parts = append(parts, fmt.Sprintf("%s %s", link.Model.Dir, humanBytes(need.model)))
		}
		if len(parts) < 2 {
			continue
		}
		together := estimateMemory(estimates, total, 1, copies)
		certain := total * int64(copies)
		field := c.Path + ".resources.limits.memory"
		fix := fixMemoryLimit(pass, c, limit, together.Bytes)
		switch {
		case limit.Value() < certain:
			reportFixed(pass, fix, field, "%s: memory limit %s holds each model alone but not the %d the server loads "+
				"together at start (%s: %s): the server is OOMKilled (exit 137) while it loads them, and restarts forever; "+
				"raise limits.memory to at least %s (%s)", describe(c), limit.String(), len(parts), humanBytes(certain),
				strings.Join(parts, " + "), quantityCeil(together.Bytes), together.Formula())
		case limit.Value() < together.Bytes:
			pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Fix: fix, Message: fmt.Sprintf(
				"%s: memory limit %s holds each model alone but is below the estimated %s the server needs for the %d "+
					"it loads together at start (%s; %s, the server's overhead and buffers assumed; tune them under "+
					"estimates: in .modellint.yaml): the server is likely OOMKilled (exit 137) while it loads them or "+
					"under load; raise limits.memory to at least %s", describe(c), limit.String(),
				humanBytes(together.Bytes), len(parts), strings.Join(parts, " + "), together.Formula(),
				quantityCeil(together.Bytes))})
		}
	}
}

// loadsAllAtStart says whether the container's server loads every model
// linked to it when it starts.
func loadsAllAtStart(pass *lint.Pass, c *manifest.Container) bool {
	switch c.Runtime.Name {
	case "tensorflow-serving":
		return true
	case "triton":
		mode, _ := serverArgs(pass, c).Value(server.Flags("--model-control-mode"))
		return mode.Value != "explicit"
	}
	return false
}
