// Package kubevar expands $(VAR) references as the kubelet does in a
// container's command, args and env values.
package kubevar

import "strings"

// Expand replaces $(VAR) with the value lookup gives VAR: "$$" escapes a
// dollar, and a reference to a variable lookup does not know, or one left
// unclosed, stays as written.
func Expand(value string, lookup func(string) (string, bool)) string {
	if !strings.Contains(value, "$") {
		return value
	}
	var out strings.Builder
	for i := 0; i < len(value); i++ {
		if value[i] != '$' || i+1 >= len(value) {
			out.WriteByte(value[i])
			continue
		}
		switch value[i+1] {
		case '$':
			out.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(value[i+2:], ')')
			if end < 0 {
				out.WriteString(value[i:])
				return out.String()
			}
			name := value[i+2 : i+2+end]
			if resolved, ok := lookup(name); ok {
				out.WriteString(resolved)
			} else {
				out.WriteString(value[i : i+3+end])
			}
			i += 2 + end
		default:
			out.WriteByte('$')
		}
	}
	return out.String()
}

// Map is a lookup in env.
func Map(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		value, ok := env[name]
		return value, ok
	}
}
