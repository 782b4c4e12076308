package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/modellint/modellint/internal/message"
)

// The words findings are written with: one way to list, to count and to
// size things, so every message reads alike.

// joinAnd lists items as "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// joinSome lists the first n items as joinAnd does, and counts the rest.
func joinSome(items []string, n int) string {
	if len(items) <= n {
		return joinAnd(items)
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// uniqueStrings sorts values and drops repeats.
func uniqueStrings(values []string) []string {
	set := map[string]bool{}
	var out []string
	for _, value := range values {
		if !set[value] {
			set[value] = true
			out = append(out, value)
		}
	}
	sort.Strings(out)
	return out
}

// humanBytes writes a size the way people read it: 2.4 GiB, 512 KiB, 20 B.
func humanBytes(n int64) string { return message.Bytes(n) }

// plural writes a count with its noun: "1 replica", "2 replicas".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// joinOr lists items as "a, b or c".
func joinOr(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
