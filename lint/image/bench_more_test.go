package image_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/modellint/modellint/lint/image/imagetest"

	"github.com/modellint/modellint/internal/parallel"
)

// The one-layer image: about the size of a Debian base image (55 MB of
// gzip).
const (
	oneLayerBytes = 110 << 20
	oneLayerFiles = 2000
)

// BenchmarkImageOneLayer lints a one-layer image, cold, against the floor
// of decompressing its layer with pigz -dc and gzip -dc.
func BenchmarkImageOneLayer(b *testing.B) {
	if _, err := exec.LookPath("gzip"); err != nil {
		b.Skip("gzip is not installed: it measures the floor")
	}
	dir := benchDir(b)
	layer, tarballFile := filepath.Join(dir, "one-layer.tar.gz"), filepath.Join(dir, "image-one-layer.tar")
	if _, err := os.Stat(tarballFile); err != nil {
		diffID, err := writeBenchLayer(layer, 0, oneLayerBytes, oneLayerFiles)
		if err != nil {
			b.Fatal(err)
		}
		if err := writeSaveArchive(tarballFile, []string{layer}, []string{diffID}); err != nil {
			b.Fatal(err)
		}
	}
	binary := buildBinary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		floor := decompressAll(b, "gzip", []string{layer})
		if _, err := exec.LookPath("pigz"); err == nil {
			b.ReportMetric(decompressAll(b, "pigz", []string{layer}).Seconds(), "pigz-floor-s")
		}
		cold, rss := runLint(b, binary, filepath.Join(b.TempDir(), "cache"), tarballFile)
		b.ReportMetric(floor.Seconds(), "floor-s")
		b.ReportMetric(cold.Seconds(), "cold-s")
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	}
}

// BenchmarkImageRegistry pushes the 2 GiB image to Debian's docker-registry
// on loopback and lints it from there, cold, against the floors of
// downloading its layers (every layer at once, to nowhere) and of inflating
// them with the fastest inflater on every CPU.
func BenchmarkImageRegistry(b *testing.B) {
	registry := imagetest.StartRegistry(b)
	_, v1, _ := buildBenchImage(b, benchDir(b))
	image, err := tarball.ImageFromPath(v1, nil)
	if err != nil {
		b.Fatal(err)
	}
	ref := registry.Ref("bench/image:latest")
	parsed, err := name.ParseReference(ref)
	if err != nil {
		b.Fatal(err)
	}
	if err := remote.Write(parsed, image); err != nil {
		b.Fatal(err)
	}
	binary := buildBinary(b)
	pod := filepath.Join(b.TempDir(), "pod.yaml")
	manifest := fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: bench}\nspec:\n  containers:\n    - {name: serve, image: %q}\n", ref)
	if err := os.WriteFile(pod, []byte(manifest), 0o644); err != nil {
		b.Fatal(err)
	}
	layers, _, _ := buildBenchImage(b, benchDir(b))
	inflater := fastestInflater()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		download := downloadLayers(b, parsed)
		cold, rss := runLint(b, binary, filepath.Join(b.TempDir(), "cache"), pod, "--image", ref+"=registry")
		b.ReportMetric(download.Seconds(), "download-floor-s")
		if inflater != "" {
			// Reading every file needs every byte inflated: where that
			// takes longer than the download, it is the floor.
			b.ReportMetric(decompressOnEveryCPU(b, inflater, layers).Seconds(), "inflate-floor-s")
		}
		b.ReportMetric(cold.Seconds(), "cold-s")
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	}
}

// fastestInflater is the fastest gzip inflater on PATH, as modellint picks
// it: igzip, else unpigz; "" when neither is installed.
func fastestInflater() string {
	for _, program := range []string{"igzip", "unpigz"} {
		if _, err := exec.LookPath(program); err == nil {
			return program
		}
	}
	return ""
}

// decompressOnEveryCPU decompresses the layers with program -dc, as many at
// once as there are CPUs, and returns the wall time of all.
func decompressOnEveryCPU(b *testing.B, program string, layers []string) time.Duration {
	b.Helper()
	start := time.Now()
	errs := parallel.Map(layers, func(layer string) error {
		cmd := exec.Command(program, "-dc", layer)
		cmd.Stdout = io.Discard
		return cmd.Run()
	})
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// downloadLayers fetches every compressed layer of the image at once and
// discards it: what the registry and loopback cost alone.
func downloadLayers(b *testing.B, ref name.Reference) time.Duration {
	b.Helper()
	start := time.Now()
	image, err := remote.Image(ref)
	if err != nil {
		b.Fatal(err)
	}
	layers, err := image.Layers()
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(layers))
	for _, layer := range layers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, err := layer.Compressed()
			if err == nil {
				_, err = io.Copy(io.Discard, body)
				body.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// buildBinary builds modellint for the benchmarks to run.
func buildBinary(b *testing.B) string {
	b.Helper()
	binary := filepath.Join(b.TempDir(), "modellint")
	build := exec.Command("go", "build", "-o", binary, "../../cmd/modellint")
	if output, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, output)
	}
	return binary
}
