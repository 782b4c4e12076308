// Package redact keeps secrets out of what modellint prints: it says which
// values look like credentials (LooksSecret), holds the values a run must
// never print (Set) and replaces them, and the values of credential query
// parameters, with Marker. Any package may import it.
package redact

import (
	"encoding/base64"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/internal/message"
)

// Marker replaces a secret in every output.
const Marker = "[redacted]"

// MinLength is the shortest value a Set hides. A shorter one ("true",
// "8080", "admin") is a substring of too many messages to hide without
// garbling them, and a credential that short is guessed, not leaked.
const MinLength = 6

// secretNameParts are name words that mark a variable as a credential.
var secretNameParts = map[string]bool{"PASSWORD": true, "PASSWD": true, "SECRET": true, "TOKEN": true, "APIKEY": true,
	"CREDENTIALS": true, "CREDENTIAL": true, "PRIVATEKEY": true, "ACCESSKEY": true, "AUTH": true}

// secretValue matches well-known credential shapes.
var secretValue = lazyregexp.New(`^(AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}|hf_[A-Za-z0-9]{30,}|` +
	`sk-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{20}|-----BEGIN [A-Z ]*PRIVATE KEY-----.*)`)

// LooksSecret judges one NAME=value pair of an image's env or labels:
// a value shaped like a well-known credential, or a literal value of a
// variable named like one (…_TOKEN, …_PASSWORD, API_KEY …).
func LooksSecret(name, value string) bool {
	if secretValue.MatchString(value) {
		return true
	}
	if len(value) < 8 || strings.ContainsAny(value, " /$") || strings.HasPrefix(value, "${") {
		return false // paths, references, sentences, and short flags are not credentials
	}
	switch strings.ToLower(value) {
	case "true", "false", "none", "null", "changeme", "placeholder":
		return false
	}
	words := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for i, word := range words {
		if secretNameParts[word] {
			return true
		}
		if i+1 < len(words) && secretNameParts[word+words[i+1]] {
			return true
		}
	}
	return false
}

// MaxValues bounds the values (and forms of them) a Set holds: the
// replacer that hides them takes some hundred bytes per value, and the
// Secret objects of a hostile tree could offer millions. The values of
// the job (--helm-set, image env) are added first.
const MaxValues = 10_000

// Set holds the values a run must never print. Values are added while
// the inputs load and hidden by String from any goroutine; the zero Set
// and a nil *Set hold none (String still hides credential query values).
type Set struct {
	mu     sync.Mutex
	values map[string]bool
	// dropped counts the values offered past MaxValues.
	dropped int
	// replacer hides values, built on first use after an Add.
	replacer atomic.Pointer[strings.Replacer]
}

// Add records a secret value, and the forms a message may carry it in:
// its base64 (Secret data, a basic-auth header) and the escaped form Go
// quoting gives a value with control characters or non-ASCII (a private
// key's line breaks), cut as message.Quote cuts a long value.
func (s *Set) Add(value string) {
	if len(value) < MinLength {
		return
	}
	forms := []string{value, base64.StdEncoding.EncodeToString([]byte(value))}
	if quoted := strconv.Quote(value); quoted[1:len(quoted)-1] != value {
		forms = append(forms, quoted[1:len(quoted)-1])
	}
	if quoted := message.Quote(value); len(value) > message.MaxQuoted {
		forms = append(forms, quoted[1:strings.LastIndexByte(quoted, '"')])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.values == nil {
		s.values = map[string]bool{}
	}
	for _, form := range forms {
		switch {
		case len(form) < MinLength || s.values[form]:
		case len(s.values) >= MaxValues:
			s.dropped++
		default:
			s.values[form] = true
		}
	}
	s.replacer.Store(nil)
}

// Dropped is how many values (and forms of them) were offered past
// MaxValues, and are not hidden.
func (s *Set) Dropped() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// AddEncoded records a value given base64-encoded (a Secret's data), in
// both forms; a value that is not base64 is recorded as it is.
func (s *Set) AddEncoded(encoded string) {
	s.Add(encoded)
	if decoded, err := base64.StdEncoding.DecodeString(encoded); err == nil {
		s.Add(string(decoded))
	}
}

// String is text with every value of the set, and the value of every
// credential query parameter, replaced by Marker. Text without either is
// returned as it is.
func (s *Set) String(text string) string {
	if replacer := s.valueReplacer(); replacer != nil {
		text = replacer.Replace(text)
	}
	return hideQueryCredentials(text)
}

func (s *Set) valueReplacer() *strings.Replacer {
	if s == nil {
		return nil
	}
	if replacer := s.replacer.Load(); replacer != nil {
		return replacer
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.values) == 0 {
		return nil
	}
	// Longest first: where two values start at one place, the replacer
	// takes the first given, so a value holding another is hidden whole.
	values := make([]string, 0, len(s.values))
	for value := range s.values {
		values = append(values, value)
	}
	slices.SortFunc(values, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	pairs := make([]string, 0, 2*len(values))
	for _, value := range values {
		pairs = append(pairs, value, Marker)
	}
	replacer := strings.NewReplacer(pairs...)
	s.replacer.Store(replacer)
	return replacer
}

// credentialParameters are query parameter names (lower case) whose value
// is a credential wherever the URL or path appears: an httpGet probe's
// path, a download URL. A name ending in one of credentialSuffixes is one
// too (hf_token, x-amz-signature, subscription-key).
var credentialParameters = map[string]bool{"sig": true, "auth": true, "code": true, "pass": true, "pwd": true}

var credentialSuffixes = []string{"token", "key", "secret", "password", "passwd", "signature", "credential", "credentials"}

// hideQueryCredentials replaces the values of credential query parameters
// (?token=…, &api_key=…, ;sig=…) with Marker.
func hideQueryCredentials(text string) string {
	if strings.IndexByte(text, '=') < 0 {
		return text
	}
	var out strings.Builder
	written := 0
	for i := strings.IndexByte(text, '='); i >= 0; {
		end := i + 1
		if start := parameterStart(text, i); start >= 0 && isCredentialParameter(text[start:i]) {
			for end < len(text) && !strings.ContainsRune(queryValueEnd, rune(text[end])) {
				end++
			}
			if end > i+1 {
				out.WriteString(text[written : i+1])
				out.WriteString(Marker)
				written = end
			}
		}
		next := strings.IndexByte(text[end:], '=')
		if next < 0 {
			break
		}
		i = end + next
	}
	if written == 0 {
		return text
	}
	out.WriteString(text[written:])
	return out.String()
}

// queryValueEnd are the bytes that end a query value as messages and YAML
// quote it.
const queryValueEnd = "&#;\"'` \t\r\n<>()[]{},"

// parameterStart is where the parameter name before the "=" at i starts,
// when a "?", "&" or ";" comes before it; -1 otherwise.
func parameterStart(text string, i int) int {
	start := i
	for start > 0 && isNameByte(text[start-1]) {
		start--
	}
	if start == i || start == 0 || !strings.ContainsRune("?&;", rune(text[start-1])) {
		return -1
	}
	return start
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

func isCredentialParameter(name string) bool {
	name = strings.ToLower(name)
	if credentialParameters[name] {
		return true
	}
	for _, suffix := range credentialSuffixes {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// Clone is a copy of the set as it is now (for Restore).
func (s *Set) Clone() *Set {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &Set{values: maps.Clone(s.values), dropped: s.dropped}
}

// Restore makes the set hold what from holds, and nothing else.
func (s *Set) Restore(from *Set) {
	from.mu.Lock()
	values, dropped := maps.Clone(from.values), from.dropped
	from.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values, s.dropped = values, dropped
	s.replacer.Store(nil)
}
