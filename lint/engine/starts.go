package engine

import "github.com/modellint/modellint/lint"

// addStarts lists the start estimates the rules recorded on the targets,
// in target order; a container estimated twice (a rule run again after a
// targeted image read) keeps its last estimate.
func addStarts(r *lint.Result, all []*evaluated) {
	for _, e := range all {
		seen := map[[2]string]int{}
		for _, start := range e.starts {
			key := [2]string{start.Container, start.Model}
			if i, ok := seen[key]; ok {
				r.Starts[i] = start
				continue
			}
			seen[key] = len(r.Starts)
			r.Starts = append(r.Starts, start)
		}
	}
}
