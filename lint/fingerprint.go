package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// Fingerprints identify findings across runs, for SARIF alerts, GitLab Code
// Quality and baselines alike, so that a finding known to one is known to all.
//
// A fingerprint hashes the rule, the file, the target and the field path, and
// no line number or message: an alert survives lines being inserted above it
// and a reworded message. The n-th finding (n > 1) with the same identity in
// one run gets "|n" added before hashing, so two findings are never merged
// into one; findings are sorted, so the n-th stays the n-th from run to run.
//
// Fingerprints returns one fingerprint per finding, in the same order.
// Suppressed findings count as occurrences too, so that suppressing one
// finding never changes the fingerprint of another.
func Fingerprints(findings []Finding) []string {
	occurrences := make(map[string]int, len(findings))
	fingerprints := make([]string, len(findings))
	for i, finding := range findings {
		identity := strings.Join([]string{finding.RuleID, finding.Location.File, finding.Target, finding.Location.Path}, "|")
		occurrences[identity]++
		if n := occurrences[identity]; n > 1 {
			identity += "|" + strconv.Itoa(n)
		}
		sum := sha256.Sum256([]byte(identity))
		fingerprints[i] = hex.EncodeToString(sum[:])
	}
	return fingerprints
}
