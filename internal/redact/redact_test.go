package redact

import (
	"encoding/base64"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modellint/modellint/internal/message"
)

func TestLooksSecret(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"HF_TOKEN", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567", true},
		{"OPTS", "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567", true},
		{"DB_PASSWORD", "s3cr3t-pa55", true},
		{"API_KEY", "0123456789abcdef", true},
		{"PATH", "/usr/local/bin:/usr/bin", false},
		{"TOKEN_FILE", "/var/run/secrets/token", false},
		{"AUTH_ENABLED", "true", false},
		{"HF_TOKEN", "${HF_TOKEN}", false},
		{"MODEL_NAME", "meta-llama-3-8b", false},
	} {
		if got := LooksSecret(c.name, c.value); got != c.want {
			t.Errorf("LooksSecret(%s, %s) = %v, want %v", c.name, c.value, got, c.want)
		}
	}
}

func TestSetHidesValuesAndTheirForms(t *testing.T) {
	const token = "hf_PlantedTokenNeverPrinted0123456789"
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEA", 10) + "\n-----END RSA PRIVATE KEY-----"
	var set Set
	set.Add(token)
	set.Add(key)
	set.AddEncoded(base64.StdEncoding.EncodeToString([]byte("db-password-77")))
	set.Add("admin") // too short to hide
	for _, c := range []struct{ text, want string }{
		{"module " + token + " is missing", "module [redacted] is missing"},
		{"/opt/" + token + "/serve and " + token, "/opt/[redacted]/serve and [redacted]"},
		{"data " + base64.StdEncoding.EncodeToString([]byte(token)), "data [redacted]"},
		{"password db-password-77 or ZGItcGFzc3dvcmQtNzc=", "password [redacted] or [redacted]"},
		{"user admin", "user admin"},
		{"quoted " + strings.Trim(strconv.Quote(key), `"`), "quoted [redacted]"},
		{"nothing secret", "nothing secret"},
	} {
		if got := set.String(c.text); got != c.want {
			t.Errorf("String(%.60q) = %q, want %q", c.text, got, c.want)
		}
	}
	// What a message quotes of a long value, cut as message.Quote cuts it.
	if got := set.String("env KEY = " + message.Quote(key)); strings.Contains(got, "MIIEowIBAAKCAQEA") {
		t.Errorf("a quoted, cut private key is printed: %q", got)
	}
}

func TestSetConcurrentUse(t *testing.T) {
	var set Set
	set.Add("first-secret-value")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if got := set.String("a first-secret-value b"); got != "a [redacted] b" {
					t.Errorf("String = %q", got)
					return
				}
			}
		})
	}
	set.Add("second-secret-value")
	wg.Wait()
	if got := set.String("second-secret-value"); got != Marker {
		t.Errorf("a value added after use is not hidden: %q", got)
	}
}

func TestNilSetHidesQueryCredentials(t *testing.T) {
	var set *Set
	for text, want := range map[string]string{
		"httpGet /health?token=abc123 on port 8000":              "httpGet /health?token=[redacted] on port 8000",
		`path: "/ready?x=1&api_key=K3y&sig=s1g#frag"`:            `path: "/ready?x=1&api_key=[redacted]&sig=[redacted]#frag"`,
		"/v1/models?access_token=t0k&X-Amz-Signature=ab12, next": "/v1/models?access_token=[redacted]&X-Amz-Signature=[redacted], next",
		"--set key=value and a=b":                                "--set key=value and a=b",
		"/health?verbose=true&monkey=banana":                     "/health?verbose=true&monkey=[redacted]",
		"/health?token=":                                         "/health?token=",
		"no parameters":                                          "no parameters",
	} {
		if got := set.String(text); got != want {
			t.Errorf("String(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestSetBound(t *testing.T) {
	var set Set
	set.Add("first-secret-value")
	for i := range MaxValues {
		set.Add("hostile-" + strconv.Itoa(i))
	}
	if set.Dropped() == 0 {
		t.Fatalf("%d values and their forms held, none dropped", MaxValues+1)
	}
	if got := set.String("first-secret-value"); got != Marker {
		t.Errorf("the first value is not hidden: %q", got)
	}
}
