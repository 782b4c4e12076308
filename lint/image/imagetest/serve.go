package imagetest

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/modellint/modellint/internal/testenv"
)

// WriteTarball writes a docker-save archive of the image for platform (the
// first when empty), tagged with the spec's reference.
func WriteTarball(file string, built *Built, platform string) error {
	if platform == "" {
		platform = built.Order[0]
	}
	img := built.Images[platform]
	if img == nil {
		return fmt.Errorf("%s has no image for %s", built.Spec.Ref, platform)
	}
	tag, err := name.NewTag(built.Spec.Ref)
	if err != nil {
		tag, _ = name.NewTag("localhost/modellint-test:latest")
	}
	return tarball.WriteToFile(file, tag, img)
}

// WriteLayout writes an OCI layout holding the image (an index of all its
// platforms when it has several), annotated with the reference.
func WriteLayout(dir string, built *Built) error {
	path, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	annotations := map[string]string{"org.opencontainers.image.ref.name": built.Spec.Ref}
	if len(built.Spec.Platforms) == 0 {
		return path.AppendImage(built.Images[built.Order[0]], layout.WithAnnotations(annotations))
	}
	index, err := buildIndex(built)
	if err != nil {
		return err
	}
	return path.AppendIndex(index, layout.WithAnnotations(annotations))
}

func buildIndex(built *Built) (v1.ImageIndex, error) {
	index := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var adds []mutate.IndexAddendum
	for _, platform := range built.Order {
		parsed, err := v1.ParsePlatform(platform)
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.IndexAddendum{Add: built.Images[platform], Descriptor: v1.Descriptor{Platform: parsed}})
	}
	return mutate.AppendManifests(index, adds...), nil
}

// Push uploads the image (an index for several platforms) to ref.
func Push(ref string, built *Built) error {
	reference, err := name.ParseReference(ref)
	if err != nil {
		return err
	}
	if len(built.Spec.Platforms) == 0 {
		return remote.Write(reference, built.Images[built.Order[0]])
	}
	index, err := buildIndex(built)
	if err != nil {
		return err
	}
	return remote.WriteIndex(reference, index)
}

// Registry is a registry serving on loopback for one test run.
type Registry struct {
	// Host is host:port, e.g. 127.0.0.1:40123.
	Host string
	// Kind says what serves: the docker-registry binary or, under -short,
	// go-containerregistry's in-process registry.
	Kind string
}

// Ref returns a reference to repository:tag in this registry.
func (r *Registry) Ref(repository string) string { return r.Host + "/" + repository }

// registryBinary is Debian's packaging of the CNCF distribution server.
const registryBinary = "/usr/bin/docker-registry"

// RegistryBinary returns the docker-registry binary, or an error saying
// how to install it.
func RegistryBinary() (string, error) {
	if _, err := os.Stat(registryBinary); err == nil {
		return registryBinary, nil
	}
	if found, err := exec.LookPath("docker-registry"); err == nil {
		return found, nil
	}
	return "", fmt.Errorf("docker-registry is not installed (apt-get install docker-registry)")
}

// StartInProcessRegistry starts go-containerregistry's in-process registry,
// which needs no binary, and stops it when the test ends.
func StartInProcessRegistry(t testing.TB) *Registry {
	t.Helper()
	server := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(server.Close)
	return &Registry{Host: strings.TrimPrefix(server.URL, "http://"), Kind: "in-process"}
}

// StartRegistry starts a registry on a free loopback port with a temporary
// storage directory, and stops it when the test ends. Under `go test
// -short` an in-process registry stands in; otherwise a missing
// docker-registry binary skips the test (fails with testenv.RequireTools set).
func StartRegistry(t testing.TB) *Registry {
	t.Helper()
	if testing.Short() {
		return StartInProcessRegistry(t)
	}
	binary, err := RegistryBinary()
	if err != nil {
		testenv.Unavailable(t, err.Error())
	}
	dir := t.TempDir()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := listener.Addr().String()
	listener.Close()
	config := fmt.Sprintf(`version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
`, filepath.Join(dir, "storage"), host)
	configFile := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(configFile, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(filepath.Join(dir, "registry.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve", configFile)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", binary, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logFile.Close()
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		response, err := http.Get("http://" + host + "/v2/")
		if err == nil {
			response.Body.Close()
			if response.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(logFile.Name())
			t.Fatalf("%s did not answer on %s within 15s: %v\n%s", binary, host, err, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return &Registry{Host: host, Kind: "docker-registry"}
}
