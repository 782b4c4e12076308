package image

import "github.com/modellint/modellint/internal/lazyregexp"

// Credentials as a registry or a proxy in front of it may echo them in an
// error body: an Authorization header's value, a token endpoint's JSON.
var (
	authorizationValue = lazyregexp.New(`(?i)\b(basic|bearer)(\s+)[A-Za-z0-9._~+/=-]+`)
	credentialField    = lazyregexp.New(`(?i)("(?:access_token|refresh_token|token|password|auth|identitytoken|registrytoken)"\s*:\s*")[^"]*`)
)

// RedactCredentials removes credentials from a message that may quote a
// registry's answer, before it reaches a report or the terminal.
func RedactCredentials(message string) string {
	message = authorizationValue.ReplaceAllString(message, "$1$2[redacted]")
	return credentialField.ReplaceAllString(message, "$1[redacted]")
}

// redactedError is a registry error whose text is safe to print; errors.As
// still finds the error it wraps.
type redactedError struct{ err error }

func (e redactedError) Error() string { return RedactCredentials(e.err.Error()) }
func (e redactedError) Unwrap() error { return e.err }
