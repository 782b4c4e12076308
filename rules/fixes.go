package rules

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
)

// The fixes rules attach to their findings: the field the message names,
// set to the value it asks for, as an edit of the manifest when the text
// there is plain enough, else as a suggestion.

// setField returns the edit that sets the field at path (relative to the
// object) to value: its scalar rewritten when written and matches says it
// is what the rule read, else the missing mappings and the field added to
// the nearest written ancestor. The suggestion is the YAML either way.
func setField(object *manifest.Object, path, value string, matches func(written string) bool) ([]manifest.Edit, string) {
	i := strings.LastIndexByte(path, '.')
	return setFields(object, path[:max(i, 0)], []field{{path[i+1:], value, matches}})
}

// field is one key of a mapping and the value a fix gives it.
type field struct {
	key, value string
	matches    func(written string) bool // the value the rule read, for a written field
}

// setFields sets fields of the mapping at parent: written ones rewritten,
// the others added together (one block, so no key is written twice), with
// the mappings on the way when parent itself is not written. No edits when
// any of them cannot be made.
func setFields(object *manifest.Object, parent string, fields []field) ([]manifest.Edit, string) {
	var edits []manifest.Edit
	var missing, suggestion strings.Builder
	ok := true
	for _, f := range fields {
		line := f.key + ": " + f.value + "\n"
		suggestion.WriteString(line)
		path := f.key
		if parent != "" {
			path = parent + "." + f.key
		}
		if !object.Has(path) {
			missing.WriteString(line)
			continue
		}
		edit, replaced := manifest.Edit{}, false
		if f.matches != nil {
			edit, replaced = object.ReplaceScalar(path, f.matches, f.value)
		}
		ok = ok && replaced
		edits = append(edits, edit)
	}
	if missing.Len() > 0 {
		keys := strings.Split(parent, ".")
		at := len(keys)
		for at > 0 && !object.Has(strings.Join(keys[:at], ".")) {
			at--
		}
		block := nestedBlock(keys[at:], missing.String())
		if at == 0 || strings.ContainsAny(strings.Join(keys[at:], ""), "[]") {
			ok = false
		} else if edit, added := object.AddFields(strings.Join(keys[:at], "."), block); added {
			edits = append(edits, edit)
		} else {
			ok = false
		}
	}
	if !ok {
		return nil, suggestion.String()
	}
	return edits, suggestion.String()
}

// addBlock adds YAML fields (indentation zero) to the mapping at path.
func addBlock(object *manifest.Object, path, block string) []manifest.Edit {
	if edit, ok := object.AddFields(path, block); ok {
		return []manifest.Edit{edit}
	}
	return nil
}

// nestedBlock writes keys as nested mappings holding leaf (YAML lines):
// [strategy rollingUpdate], "maxUnavailable: 0\n" → "strategy:\n  rollingUpdate:\n    maxUnavailable: 0\n".
func nestedBlock(keys []string, leaf string) string {
	var b strings.Builder
	for i, key := range keys {
		b.WriteString(strings.Repeat("  ", i) + key + ":\n")
	}
	pad := strings.Repeat("  ", len(keys))
	for _, line := range strings.Split(strings.TrimSuffix(leaf, "\n"), "\n") {
		b.WriteString(pad + line + "\n")
	}
	return b.String()
}

// sameQuantity matches a written quantity equal to q ("16Gi", "17179869184").
func sameQuantity(q resource.Quantity) func(string) bool {
	return func(written string) bool {
		parsed, err := resource.ParseQuantity(written)
		return err == nil && parsed.Cmp(q) == 0
	}
}

// sameInt matches a written integer.
func sameInt(n int64) func(string) bool {
	return func(written string) bool {
		parsed, err := strconv.ParseInt(written, 10, 64)
		return err == nil && parsed == n
	}
}

// sameText matches a written string exactly.
func sameText(text string) func(string) bool {
	return func(written string) bool { return written == text }
}

// memoryToWrite rounds a byte count up to a quantity people write: whole
// GiB from 1 GiB (2816Mi → 3Gi), else a multiple of 256 MiB.
func memoryToWrite(bytes int64) string {
	if bytes >= 1<<30 {
		return strconv.FormatInt(int64(math.Ceil(float64(bytes)/(1<<30))), 10) + "Gi"
	}
	return strconv.FormatInt(int64(math.Ceil(float64(bytes)/(256<<20)))*256, 10) + "Mi"
}

// probeBlock is a probe as YAML under key, at indentation zero.
func probeBlock(key string, probe any) string {
	value := map[string]any{key: probe}
	encoded, err := json.Marshal(value)
	if err != nil {
		return ""
	}
	if block, ok := probeBlocks.Load(string(encoded)); ok {
		return block.(string)
	}
	data, err := yaml.Marshal(value)
	if err != nil {
		return ""
	}
	if probeBlockCount.Add(1) <= maxProbeBlocks {
		probeBlocks.Store(string(encoded), string(data))
	}
	return string(data)
}

// probeBlocks holds the YAML of the probes probeBlock wrote, by their JSON:
// thousands of alike workloads ask for the same few, and the YAML encoder
// (a JSON decode and a YAML encode) cost a tenth of a 10,000-workload run.
var (
	probeBlocks     sync.Map
	probeBlockCount atomic.Int64
)

const maxProbeBlocks = 1024

// fixable reports whether a container's fields are the workload's own to
// edit (not a ServingRuntime's, which KServe merges in, nor those of a
// container composed from two objects, whose field paths are the
// composition's, not those written, nor a container the controller builds
// whole, as KAITO does a preset's).
func fixable(c *manifest.Container) bool {
	return !c.FromServingRuntime && c.ComposedFrom == nil && !c.Built
}

// reportFixed reports at a field with the rule's severity and a fix (nil
// when the rule has none to offer for this finding).
func reportFixed(pass *lint.Pass, fix *lint.Fix, path, format string, args ...any) {
	pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: path, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// reportFileFixed is reportFixed for a finding about a file.
func reportFileFixed(pass *lint.Pass, fix *lint.Fix, file, format string, args ...any) {
	pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, File: file, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// neverReady is pass with every diagnostic it reports marked NeverReady:
// for the findings whose failure keeps the pod from ever becoming Ready
// (a readiness check that cannot pass, a pod that is never created or
// never started), which the reports draw instead of the estimated Ready.
func neverReady(pass *lint.Pass) *lint.Pass {
	marked := *pass
	marked.Report = func(d lint.Diagnostic) {
		d.NeverReady = true
		pass.Report(d)
	}
	return &marked
}

// noFix is the fix of a finding the rule cannot fix.
func noFix() *lint.Fix { return nil }
