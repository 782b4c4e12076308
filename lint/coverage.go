package lint

import "strings"

// Coverage is what a rule checked of a target's candidates (containers,
// models, links): a rule that checked none of them is skipped, with the
// reasons each was passed over, never reported as passed.
type Coverage struct {
	checked bool
	reasons []string
}

// Checked records that a candidate was checked.
func (c *Coverage) Checked() { c.checked = true }

// Missed records why a candidate was not checked.
func (c *Coverage) Missed(reason string) { c.reasons = append(c.reasons, reason) }

// Any reports whether any candidate was checked.
func (c *Coverage) Any() bool { return c.checked }

// SkipIfNone skips the rule when no candidate was checked: for the reasons
// recorded, each said once, else for reason.
func (c *Coverage) SkipIfNone(pass *Pass, reason string) {
	if c.checked {
		return
	}
	if len(c.reasons) > 0 {
		reason = JoinReasons(c.reasons)
	}
	pass.Skip(reason)
}

// JoinReasons joins skip reasons with "; ", in order, each once.
func JoinReasons(reasons []string) string {
	seen := map[string]bool{}
	var out []string
	for _, reason := range reasons {
		if reason != "" && !seen[reason] {
			seen[reason] = true
			out = append(out, reason)
		}
	}
	return strings.Join(out, "; ")
}
