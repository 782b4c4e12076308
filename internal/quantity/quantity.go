// Package quantity guards resource.ParseQuantity against strings it would
// spend unbounded time on: "1e-999999999" makes it round through a power
// of ten with a billion digits (inf.Dec.Round → exp10), so a manifest of a
// dozen characters would hang the run.
package quantity

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/modellint/modellint/internal/message"
)

// Bounds on a quantity string, far beyond any real one: resources are
// nano-units to exa-bytes (10^-9 … 10^18), and ParseQuantity's work grows
// with the decimal exponent and the digits.
const (
	// MaxExponent bounds the decimal exponent of "<number>e<exponent>".
	MaxExponent = 64
	// MaxDigits bounds the number before the suffix.
	MaxDigits = 64
)

// Check returns an error when s looks like a quantity whose exponent or
// digits are beyond the bounds, nil for anything else (ParseQuantity then
// answers quickly, with a value or its own error).
func Check(s string) error {
	number, suffix := split(s)
	if number == "" {
		return nil
	}
	if len(number) > MaxDigits {
		return fmt.Errorf("quantity %s has %d digits, more than the %d a quantity can use", message.Quote(s), len(number), MaxDigits)
	}
	if len(suffix) < 2 || (suffix[0] != 'e' && suffix[0] != 'E') {
		return nil
	}
	exponent := strings.TrimLeft(suffix[1:], "+-")
	if exponent == "" || strings.Trim(exponent, "0123456789") != "" {
		return nil
	}
	if value, err := strconv.Atoi(exponent); err != nil || value > MaxExponent {
		return fmt.Errorf("quantity %s has an exponent beyond ±%d: no resource is that large or small", message.Quote(s), MaxExponent)
	}
	return nil
}

// Suspicious reports whether s would fail Check: a cheap test for strings
// met anywhere in a document, before it is decoded.
func Suspicious(s string) bool {
	return len(s) > 4 && Check(s) != nil
}

// Parse is resource.ParseQuantity behind Check.
func Parse(s string) (resource.Quantity, error) {
	if err := Check(s); err != nil {
		return resource.Quantity{}, err
	}
	return resource.ParseQuantity(s)
}

// split cuts "[+-]<digits and dots><suffix>" into the number and the
// suffix; number is "" when s does not start like a quantity.
func split(s string) (number, suffix string) {
	s = strings.TrimSpace(s)
	rest := strings.TrimLeft(s, "+-")
	if len(s)-len(rest) > 1 {
		return "", ""
	}
	end := 0
	for end < len(rest) && (rest[end] >= '0' && rest[end] <= '9' || rest[end] == '.') {
		end++
	}
	if end == 0 {
		return "", ""
	}
	return rest[:end], rest[end:]
}
