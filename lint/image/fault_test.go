package image_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/imagetest"
)

// faultImage is one uncompressed layer whose bulk is a file the indexer
// skips, so a flipped byte there is caught by the digest check alone.
func faultImage() *imagetest.ImageSpec {
	return &imagetest.ImageSpec{
		Ref:    "registry.example.com/serving/faults:1.0",
		Config: imagetest.ConfigSpec{Entrypoint: []string{"/usr/bin/serve"}},
		Layers: []imagetest.LayerSpec{{Compression: "none", Files: []imagetest.FileSpec{
			{Path: "/usr/bin/serve", ELF: "stub-amd64"},
			{Path: "/models/weights.bin", Content: strings.Repeat("weights ", 64<<10)},
		}}},
	}
}

// pushFaultImage pushes the image to a real registry and returns it with
// its layer digest.
func pushFaultImage(t *testing.T) (*imagetest.Registry, string) {
	t.Helper()
	registry := imagetest.StartRegistry(t)
	built, err := imagetest.Build(faultImage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := imagetest.Push(registry.Ref("serving/faults:1.0"), built); err != nil {
		t.Fatalf("push to %s: %v", registry.Kind, err)
	}
	layers, err := built.Images["linux/amd64"].Layers()
	if err != nil {
		t.Fatal(err)
	}
	digest, err := layers[0].Digest()
	if err != nil {
		t.Fatal(err)
	}
	return registry, digest.String()
}

// TestRegistryFaults reads an image through a proxy that breaks one kind
// of request. A registry that says there is no such image makes the image
// unresolvable (MDL310); one that cannot be asked, or stops answering, is
// an UnreachableError (the image rules are skipped with a note); bytes
// that do not match their digest are an error about the image. Every
// outcome names the reference.
func TestRegistryFaults(t *testing.T) {
	registry, layerDigest := pushFaultImage(t)
	layer := func(fault imagetest.Fault) func(*http.Request) imagetest.Fault {
		return func(r *http.Request) imagetest.Fault {
			if imagetest.IsBlob(r, layerDigest) {
				return fault
			}
			return imagetest.Pass
		}
	}
	cases := []struct {
		name    string
		rule    func(*http.Request) imagetest.Fault
		timeout time.Duration // of the whole read; 0 for none
		want    string        // "unresolvable", "unreachable" or "error"
		message string
		// maxLayerRequests bounds the retries of the layer blob.
		maxLayerRequests int
	}{
		{name: "no fault", want: "ok", maxLayerRequests: 1},
		{name: "401 without a token flow", rule: func(*http.Request) imagetest.Fault { return imagetest.Unauthorized },
			want: "unreachable", message: "UNAUTHORIZED"},
		{name: "404 manifest", rule: func(r *http.Request) imagetest.Fault {
			if imagetest.IsManifest(r) {
				return imagetest.NotFound
			}
			return imagetest.Pass
		}, want: "unresolvable", message: "HTTP 404"},
		{name: "500 on the layer", rule: layer(imagetest.ServerError), want: "unreachable", message: "500", maxLayerRequests: 2},
		{name: "reset mid-layer", rule: layer(imagetest.Reset), want: "unreachable", message: "layer", maxLayerRequests: 2},
		{name: "stalled layer", rule: layer(imagetest.Stall), timeout: time.Second, want: "unreachable",
			message: "did not finish in time", maxLayerRequests: 1},
		{name: "layer digest mismatch", rule: layer(imagetest.Corrupt), want: "error",
			message: "do not match the layer's digest", maxLayerRequests: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			proxy := imagetest.StartFaultProxy(t, registry)
			proxy.Rule = c.rule
			ref := proxy.Ref("serving/faults:1.0")
			ctx := context.Background()
			if c.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.timeout)
				defer cancel()
			}
			img, err := image.Open(ctx, ref, image.SourceRegistry, image.Options{})
			var unreachable *image.UnreachableError
			got, message := "error", ""
			switch {
			case err == nil && img.Unresolvable != "":
				got, message = "unresolvable", img.Reference+": "+img.Unresolvable
			case err == nil:
				got = "ok"
			case errors.As(err, &unreachable):
				got, message = "unreachable", err.Error()
			default:
				message = err.Error()
			}
			if got != c.want {
				t.Fatalf("got %s (%v), want %s", got, err, c.want)
			}
			if got != "ok" && (!strings.Contains(message, ref) || !strings.Contains(message, c.message)) {
				t.Errorf("message %q should name %s and say %q", message, ref, c.message)
			}
			if requests := proxy.Requests("/blobs/" + layerDigest); requests > c.maxLayerRequests {
				t.Errorf("the layer was requested %d times, want at most %d", requests, c.maxLayerRequests)
			}
		})
	}
}

// TestRegistryTokenFlow authenticates with the keychain's credentials
// through a Bearer token flow, and reports refused credentials without
// printing them.
func TestRegistryTokenFlow(t *testing.T) {
	registry, _ := pushFaultImage(t)
	proxy := imagetest.StartFaultProxy(t, registry)
	proxy.Username, proxy.Password, proxy.Token = "ci-bot", "keychain-password-5f3a", "issued-token-9c1e"
	ref := proxy.Ref("serving/faults:1.0")

	t.Setenv("DOCKER_CONFIG", imagetest.WriteDockerConfig(t, proxy.Host, proxy.Username, proxy.Password))
	img, err := image.Open(context.Background(), ref, image.SourceRegistry, image.Options{})
	if err != nil || img.Unresolvable != "" || img.FS() == nil {
		t.Fatalf("with the right credentials: %v %+v", err, img)
	}

	t.Setenv("DOCKER_CONFIG", imagetest.WriteDockerConfig(t, proxy.Host, proxy.Username, "wrong-password-77d0"))
	_, err = image.Open(context.Background(), ref, image.SourceRegistry, image.Options{})
	var unreachable *image.UnreachableError
	if !errors.As(err, &unreachable) || !strings.Contains(err.Error(), ref) || !strings.Contains(err.Error(), "UNAUTHORIZED") {
		t.Fatalf("with the wrong credentials: %v, want an UnreachableError naming %s", err, ref)
	}
	for _, secret := range []string{"wrong-password-77d0", "keychain-password-5f3a", "issued-token-9c1e"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error prints a credential: %v", err)
		}
	}
}
