package model

import (
	"math"
	"strconv"
)

// tfServingVersion parses a base-path child name the way TF Serving does
// (absl::SimpleAtoi into int64): ASCII whitespace around the number and a
// sign are accepted, leading zeros too (00000123 is version 123); anything
// else is not a version.
func tfServingVersion(name string) (int64, bool) {
	start, end := 0, len(name)
	for start < end && isASCIISpace(name[start]) {
		start++
	}
	for end > start && isASCIISpace(name[end-1]) {
		end--
	}
	text := name[start:end]
	negative := false
	if len(text) > 0 && (text[0] == '+' || text[0] == '-') {
		negative = text[0] == '-'
		text = text[1:]
	}
	if text == "" {
		return 0, false
	}
	var value uint64
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		next, ok := appendDigit(value, c, negative)
		if !ok {
			return 0, false
		}
		value = next
	}
	if negative {
		return -int64(value), true
	}
	return int64(value), true
}

// appendDigit adds a decimal digit to a magnitude, failing when the result
// would not fit an int64 of the sign (checked before multiplying, so the
// uint64 never wraps).
func appendDigit(value uint64, c byte, negative bool) (uint64, bool) {
	limit := uint64(math.MaxInt64)
	if negative {
		limit++
	}
	digit := uint64(c - '0')
	if value > (limit-digit)/10 {
		return 0, false
	}
	return value*10 + digit, true
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// canonicalVersion reports whether a version name is written exactly as
// the number it stands for (no zeros, sign or spaces around it): the only
// form both TF Serving and Triton read the same way.
func canonicalVersion(name string) bool {
	n, ok := tfServingVersion(name)
	return ok && n >= 0 && strconv.FormatInt(n, 10) == name
}

// Why a server does not load a version dir.
const (
	IgnoredLeadingZeros = "leading zeros"
	IgnoredNotNumber    = "not a number"
	IgnoredOutOfRange   = "out of range"
)

// tritonSkippedDirs are subdirectories of a Triton model dir that are not
// versions.
var tritonSkippedDirs = map[string]bool{"warmup": true, "initial_state": true, "configs": true}

// tritonVersion parses a version dir name the way Triton does: names of
// more than one character that start with 0 are ignored, then std::stoll
// reads leading whitespace, a sign and digits and ignores what follows
// (1_old is version 1). A number beyond int64 makes stoll throw
// out_of_range, which Triton does not catch.
func tritonVersion(name string) (int64, string) {
	if len(name) > 1 && name[0] == '0' {
		return 0, IgnoredLeadingZeros
	}
	value, negative, reason := stoll(name)
	switch {
	case reason != "":
		return 0, reason
	case negative:
		return -int64(value), ""
	}
	return int64(value), ""
}

// stoll reads a number as C++'s std::stoll does: leading white space, a
// sign and digits, whatever follows ignored. reason is IgnoredNotNumber
// when no digit comes, IgnoredOutOfRange past int64 (stoll throws).
func stoll(name string) (value uint64, negative bool, reason string) {
	i := 0
	for i < len(name) && isASCIISpace(name[i]) {
		i++
	}
	if i < len(name) && (name[i] == '+' || name[i] == '-') {
		negative = name[i] == '-'
		i++
	}
	start := i
	overflow := false
	for i < len(name) && name[i] >= '0' && name[i] <= '9' {
		if !overflow {
			next, ok := appendDigit(value, name[i], negative)
			value, overflow = next, !ok
		}
		i++
	}
	switch {
	case i == start:
		return 0, false, IgnoredNotNumber
	case overflow:
		return 0, false, IgnoredOutOfRange
	}
	return value, negative, ""
}
