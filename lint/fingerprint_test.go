package lint

import "testing"

func TestFingerprints(t *testing.T) {
	finding := Finding{
		RuleID: "MDL205", Message: "no memory limit", Target: "Deployment/default/tf-serving",
		Location: Location{File: "deploy/serving.yaml", Line: 24, Column: 11, Path: "spec.template.spec.containers[0].resources.limits"},
	}
	moved := finding
	moved.Location.Line += 10
	moved.Location.Column = 1
	moved.Message = "reworded"
	otherPath := finding
	otherPath.Location.Path = "spec.template.spec.containers[1].resources.limits"
	otherFile := finding
	otherFile.Location.File = "deploy/other.yaml"
	otherRule := finding
	otherRule.RuleID = "MDL206"
	suppressed := finding
	suppressed.Suppression = &Suppression{Kind: SuppressedByConfig}

	single := func(f Finding) string { return Fingerprints([]Finding{f})[0] }
	if a, b := single(finding), single(moved); a != b {
		t.Errorf("fingerprint changed when the finding moved and was reworded: %s, %s", a, b)
	}
	if a, b := single(finding), single(suppressed); a != b {
		t.Errorf("suppressing a finding changed its fingerprint: %s, %s", a, b)
	}
	for name, other := range map[string]Finding{"path": otherPath, "file": otherFile, "rule": otherRule} {
		if a, b := single(finding), single(other); a == b {
			t.Errorf("findings with a different %s share fingerprint %s", name, a)
		}
	}

	twice := Fingerprints([]Finding{finding, moved})
	if twice[0] == twice[1] {
		t.Errorf("two findings with the same identity in one run share fingerprint %s", twice[0])
	}
	if twice[0] != single(finding) {
		t.Errorf("the first occurrence's fingerprint depends on later ones")
	}
	// The known value pins the hash inputs: changing them re-opens every
	// alert users have dismissed and invalidates every baseline.
	const want = "993c4706e19e3ac1a65b83e6cc5ae88c7f914e3f8eadbef16dd6410dda3564b5"
	if got := single(finding); got != want {
		t.Errorf("fingerprint = %s, want %s", got, want)
	}
}
