package charts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
)

// errOffline is what the renderer answers any attempt to reach the network.
var errOffline = errors.New(RendererName + " works offline and opens no network connection")

// refuseNetwork makes the renderer's default resolver and HTTP client refuse
// every connection. A chart's template may call getHostByName, and
// kustomize fetches http(s) resources and generator files itself; modellint
// refuses remote entries before a build, and this holds for whatever that
// check misses.
func refuseNetwork() {
	refuse := func(context.Context, string, string) (net.Conn, error) { return nil, errOffline }
	// The Go resolver dials its DNS servers through Dial; the C one would
	// not ask it.
	net.DefaultResolver.PreferGo = true
	net.DefaultResolver.Dial = refuse
	http.DefaultTransport = refusingTransport{}
	http.DefaultClient.Transport = refusingTransport{}
}

// refusingTransport is an HTTP transport that sends nothing.
type refusingTransport struct{}

func (refusingTransport) RoundTrip(request *http.Request) (*http.Response, error) {
	if request.Body != nil {
		request.Body.Close()
	}
	return nil, fmt.Errorf("%s %s: %w", request.Method, request.URL.Redacted(), errOffline)
}
