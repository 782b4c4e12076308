package image

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestRedactCredentials(t *testing.T) {
	for message, want := range map[string]string{
		"UNAUTHORIZED: rejected Basic bW9kZWxsaW50OnNlY3JldA==":           "UNAUTHORIZED: rejected Basic [redacted]",
		"got Authorization: Bearer eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl here": "got Authorization: Bearer [redacted] here",
		`{"token":"abc.def","access_token": "xyz","expires_in":300}`:      `{"token":"[redacted]","access_token": "[redacted]","expires_in":300}`,
		"GET https://r.example.com/v2/x/manifests/1: MANIFEST_UNKNOWN":    "GET https://r.example.com/v2/x/manifests/1: MANIFEST_UNKNOWN",
	} {
		if got := RedactCredentials(message); got != want {
			t.Errorf("RedactCredentials(%q) = %q, want %q", message, got, want)
		}
	}
	inner := &UnresolvableError{Reference: "x:1", Reason: "Basic c2VjcmV0"}
	err := classifyRegistryError("x:1", fmt.Errorf("wrapped: %w", inner))
	var unreachable *UnreachableError
	if !errors.As(err, &unreachable) || strings.Contains(err.Error(), "c2VjcmV0") || !errors.As(err, &inner) {
		t.Errorf("classified %v: want an UnreachableError that hides the credential and still wraps the cause", err)
	}
}
