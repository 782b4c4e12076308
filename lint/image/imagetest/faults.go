package imagetest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Fault is what the proxy does to one request instead of, or on top of,
// forwarding it.
type Fault string

// The faults a FaultProxy injects.
const (
	// Pass forwards the request unchanged.
	Pass Fault = ""
	// Unauthorized answers 401 with a Basic challenge: the registry refuses
	// whatever credentials come.
	Unauthorized Fault = "unauthorized"
	// NotFound answers a bare 404 without a registry error body.
	NotFound Fault = "not-found"
	// ServerError answers 500.
	ServerError Fault = "server-error"
	// Reset sends the headers and half the body, then resets the connection.
	Reset Fault = "reset"
	// Stall sends the headers and a few bytes, then nothing until the client
	// gives up.
	Stall Fault = "stall"
	// Corrupt forwards the body with one byte flipped (the length is kept).
	Corrupt Fault = "corrupt"
	// RedirectSelf answers 307 with the request's own URL as the location.
	RedirectSelf Fault = "redirect-self"
)

// FaultProxy is a reverse proxy on loopback in front of a Registry that
// injects faults into chosen requests and can demand a token flow.
type FaultProxy struct {
	// Host is host:port of the proxy; refer to images through it.
	Host string
	// Rule picks the fault for a request; nil passes everything.
	Rule func(*http.Request) Fault
	// Username and Password, when set, turn on a Bearer token flow: /v2/
	// answers 401 with a challenge naming /token, which hands out Token for
	// these Basic credentials and 401 for any others.
	Username, Password, Token string

	mu       sync.Mutex
	requests map[string]int
	stalled  chan struct{}
}

// StartFaultProxy starts a proxy for the registry; it stops when the test
// ends.
func StartFaultProxy(t testing.TB, registry *Registry) *FaultProxy {
	t.Helper()
	target, err := url.Parse("http://" + registry.Host)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &FaultProxy{requests: map[string]int{}, stalled: make(chan struct{})}
	forward := httputil.NewSingleHostReverseProxy(target)
	forward.ErrorLog = nil
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxy.serve(w, r, forward)
	}))
	t.Cleanup(func() {
		close(proxy.stalled)
		server.Close()
	})
	proxy.Host = strings.TrimPrefix(server.URL, "http://")
	return proxy
}

// Ref returns a reference to repository:tag through the proxy.
func (p *FaultProxy) Ref(repository string) string { return p.Host + "/" + repository }

// Requests counts the requests whose path ends with suffix.
func (p *FaultProxy) Requests(suffix string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	count := 0
	for path, n := range p.requests {
		if strings.HasSuffix(path, suffix) {
			count += n
		}
	}
	return count
}

func (p *FaultProxy) serve(w http.ResponseWriter, r *http.Request, forward *httputil.ReverseProxy) {
	p.mu.Lock()
	p.requests[r.URL.Path]++
	p.mu.Unlock()
	if p.Username != "" && !p.authorized(w, r) {
		return
	}
	fault := Pass
	if p.Rule != nil {
		fault = p.Rule(r)
	}
	switch fault {
	case Unauthorized:
		w.Header().Set("WWW-Authenticate", `Basic realm="modellint-test"`)
		writeRegistryError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
	case NotFound:
		http.Error(w, "", http.StatusNotFound)
	case ServerError:
		http.Error(w, "injected failure", http.StatusInternalServerError)
	case Reset, Stall, Corrupt:
		p.damage(w, r, forward, fault)
	case RedirectSelf:
		http.Redirect(w, r, r.URL.String(), http.StatusTemporaryRedirect)
	default:
		forward.ServeHTTP(w, r)
	}
}

// authorized runs the token flow; it answers the request itself and
// returns false unless the request carries the token.
func (p *FaultProxy) authorized(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path == "/token" {
		user, password, ok := r.BasicAuth()
		if !ok || user != p.Username || password != p.Password {
			writeRegistryError(w, http.StatusUnauthorized, "UNAUTHORIZED", "bad credentials")
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"token": p.Token, "access_token": p.Token}) //nolint:errcheck // the client sees a short body
		return false
	}
	if r.Header.Get("Authorization") == "Bearer "+p.Token {
		return true
	}
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="http://%s/token",service="modellint-test"`, r.Host))
	writeRegistryError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
	return false
}

// damage forwards the request, then delivers the response broken.
func (p *FaultProxy) damage(w http.ResponseWriter, r *http.Request, forward *httputil.ReverseProxy, fault Fault) {
	recorder := httptest.NewRecorder()
	forward.ServeHTTP(recorder, r)
	body := recorder.Body.Bytes()
	for key, values := range recorder.Header() {
		w.Header()[key] = values
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	switch fault {
	case Corrupt:
		if len(body) > 0 {
			body = append([]byte(nil), body...)
			body[len(body)/2] ^= 0xff
		}
		w.WriteHeader(recorder.Code)
		w.Write(body) //nolint:errcheck // the client's problem
	case Stall:
		w.WriteHeader(recorder.Code)
		w.Write(body[:min(len(body), 16)]) //nolint:errcheck
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-p.stalled:
		}
	case Reset:
		conn, buffered, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		fmt.Fprintf(buffered, "HTTP/1.1 %d %s\r\n", recorder.Code, http.StatusText(recorder.Code))
		w.Header().Write(buffered) //nolint:errcheck
		buffered.WriteString("\r\n")
		buffered.Write(body[:len(body)/2]) //nolint:errcheck
		buffered.Flush()
		if tcp, ok := conn.(*net.TCPConn); ok {
			tcp.SetLinger(0) //nolint:errcheck // closing with linger 0 sends RST
		}
		conn.Close()
	}
}

func writeRegistryError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"errors":[{"code":%q,"message":%q}]}`, code, message)
}

// WriteDockerConfig writes a DOCKER_CONFIG directory whose config.json
// holds credentials for host, and returns the directory.
func WriteDockerConfig(t testing.TB, host, username, password string) string {
	t.Helper()
	dir := t.TempDir()
	auth := base64.StdEncoding.EncodeToString([]byte(username + ":" + password))
	config := fmt.Sprintf(`{"auths": {%q: {"auth": %q}}}`, host, auth)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// IsBlob reports whether a request fetches the blob with the digest.
func IsBlob(r *http.Request, digest string) bool {
	return strings.HasSuffix(r.URL.Path, "/blobs/"+digest) && r.Method == http.MethodGet
}

// IsManifest reports whether a request asks for a manifest.
func IsManifest(r *http.Request) bool { return strings.Contains(r.URL.Path, "/manifests/") }
