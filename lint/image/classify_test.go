package image

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// TestClassifyRegistryError: each answer of the OCI distribution spec that
// means "no such image" is a finding whose reason names the code and what
// it means; an answer that means "could not ask" is not.
func TestClassifyRegistryError(t *testing.T) {
	const reference = "registry.example.com/serving/predictor:2.1.0-rc1"
	for _, test := range []struct {
		code   transport.ErrorCode
		status int
		want   string // "" for unreachable
	}{
		{transport.ManifestUnknownErrorCode, http.StatusNotFound, "no such image (MANIFEST_UNKNOWN: nothing was pushed under this tag or digest)"},
		{transport.NameUnknownErrorCode, http.StatusNotFound, "no such image (NAME_UNKNOWN: it has no repository of this name)"},
		{transport.BlobUnknownErrorCode, http.StatusNotFound, "no such image (BLOB_UNKNOWN"},
		{transport.NameInvalidErrorCode, http.StatusBadRequest, "rejects the reference (NAME_INVALID)"},
		{"", http.StatusNotFound, "no such image (HTTP 404)"},
		{transport.UnauthorizedErrorCode, http.StatusUnauthorized, ""},
		{transport.TooManyRequestsErrorCode, http.StatusTooManyRequests, ""},
	} {
		err := &transport.Error{StatusCode: test.status}
		if test.code != "" {
			err.Errors = []transport.Diagnostic{{Code: test.code, Message: "from the registry"}}
		}
		got := classifyRegistryError(reference, err)
		var unresolvable *UnresolvableError
		switch {
		case test.want == "":
			var unreachable *UnreachableError
			if !errors.As(got, &unreachable) {
				t.Errorf("%s (HTTP %d): %T %v, want an UnreachableError", test.code, test.status, got, got)
			}
		case !errors.As(got, &unresolvable):
			t.Errorf("%s (HTTP %d): %T %v, want an UnresolvableError", test.code, test.status, got, got)
		case !strings.Contains(unresolvable.Reason, test.want):
			t.Errorf("%s (HTTP %d): reason %q, want it to hold %q", test.code, test.status, unresolvable.Reason, test.want)
		}
	}
}
