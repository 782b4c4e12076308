package rules_test

import (
	"strings"
	"testing"

	"github.com/modellint/modellint/rules"
)

// A 15 GiB checkpoint loads in an estimated 164s at 100 MiB/s with 10s of
// start-up; a startupProbe of 170s covers it unless a CPU limit below one
// core stretches its deserialisation.
func TestLoadTimeUnderCPULimit(t *testing.T) {
	const (
		llama8B       = 8_030_261_248
		startupProbe  = "\nstartupProbe: {httpGet: {path: /health, port: 8000}, periodSeconds: 10, failureThreshold: 17}"
		livenessProbe = "\nlivenessProbe: {httpGet: {path: /health, port: 8000}, periodSeconds: 10, failureThreshold: 3}"
	)
	cases := []struct {
		hostCase
		rule string
	}{
		{rule: "MDL402", hostCase: hostCase{name: "no CPU limit", image: vllmCPUImage, params: llama8B,
			limit: "memory: 64Gi", container: "args: [--model=/models/m]" + startupProbe}},
		{rule: "MDL402", hostCase: hostCase{name: "a quarter of a core", image: vllmCPUImage, params: llama8B,
			limit: "cpu: 250m", container: "args: [--model=/models/m]" + startupProbe,
			want: []string{`warning: container server (vLLM): startupProbe allows 170s (initialDelaySeconds 0 + periodSeconds 10 × ` +
				`failureThreshold 17) but loading the 15.0 GiB model (models/m) takes an estimated 175s at an assumed ` +
				`100 MiB/s from its volume, of which 11s because limits.cpu 250m throttles deserialisation (safetensors read ` +
				`into memory at 4000 MiB per CPU-second) (29s even at 2048 MiB/s from a local disk under the same CPU limit`, `raise failureThreshold to at least 18`,
				`fix: raise the startupProbe's failureThreshold to 18`}}},
		{rule: "MDL402", hostCase: hostCase{name: "a budget only the throttling breaks for certain", image: vllmCPUImage,
			params: llama8B, limit: "cpu: 250m",
			container: "args: [--model=/models/m]\nstartupProbe: {httpGet: {path: /health, port: 8000}, periodSeconds: 10, failureThreshold: 2}",
			want: []string{`error: container server (vLLM): startupProbe allows 20s`, `(29s even at 2048 MiB/s from a local disk under ` +
				`the same CPU limit; 10s start-up each): the kubelet kills the container`}}},
		{rule: "MDL402", hostCase: hostCase{name: "a whole core", image: vllmCPUImage, params: llama8B,
			limit: "cpu: \"1\"", container: "args: [--model=/models/m]" + startupProbe}},
		{rule: "MDL402", hostCase: hostCase{name: "GGUF under a tenth of a core", image: llamaCPUImage, gguf: true,
			limit: "cpu: 100m", container: "args: [-m, /models/m/model.gguf]\nstartupProbe: {httpGet: {path: /health, port: 8080}, periodSeconds: 10, failureThreshold: 6}",
			want: []string{`takes an estimated 70s at an assumed 100 MiB/s from its volume, of which 11s because limits.cpu 100m ` +
				`throttles deserialisation (GGUF read into memory at 4000 MiB per CPU-second)`}}},
		{rule: "MDL203", hostCase: hostCase{name: "the startupProbe MDL203 adds covers the throttled load", image: vllmCPUImage,
			params: llama8B, limit: "cpu: 250m", container: "args: [--model=/models/m]" + livenessProbe,
			want: []string{`fix: add a startupProbe on the livenessProbe's handler with failureThreshold 18 (180s at periodSeconds 10)`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := lintHostCase(t, rules.Lookup(rules.All(), c.rule), c.hostCase)
			if len(c.want) == 0 && len(got) > 0 {
				t.Errorf("findings %q, want none", got)
			}
			for _, want := range c.want {
				if !strings.Contains(strings.Join(got, "\n"), want) {
					t.Errorf("no finding says %q:\n%s", want, strings.Join(got, "\n"))
				}
			}
		})
	}
}
