package image_test

import (
	"archive/tar"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/modellint/modellint/internal/peakrss"
)

// The synthetic image of the benchmark: the size of a GPU serving image.
const (
	benchLayers        = 10
	benchFilesPerLayer = 5000
	benchBytes         = 2 << 30
	benchTopLayerBytes = 16 << 20
	benchFormat        = "v1" // bump when the generator changes
)

// benchDir holds the generated images between runs (they take a minute to
// build): MODELLINT_BENCH_DIR, else the user cache directory. It exists
// once benchDir returns, whichever benchmark a fresh machine runs first.
func benchDir(b *testing.B) string {
	dir := os.Getenv("MODELLINT_BENCH_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			b.Fatal(err)
		}
		dir = filepath.Join(cache, "modellint-bench", benchFormat)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkImageLint lints a 2 GiB, 50,000-file, 10-layer gzip docker-save
// image and compares it with the floor of decompressing every layer once,
// one after another, with gzip -dc (and pigz -dc when installed). It
// reports the cold ratio (empty layer cache) with the default inflater and
// in process (--inflate go), the warm ratio (the same image plus one new
// top layer, base layers cached), and modellint's peak RSS.
func BenchmarkImageLint(b *testing.B) {
	if _, err := exec.LookPath("gzip"); err != nil {
		b.Skip("gzip is not installed: it measures the floor")
	}
	dir := benchDir(b)
	layers, v1, v2 := buildBenchImage(b, dir)
	binary := buildBinary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		floor := decompressAll(b, "gzip", layers)
		if _, err := exec.LookPath("pigz"); err == nil {
			pigz := decompressAll(b, "pigz", layers)
			b.ReportMetric(pigz.Seconds(), "pigz-floor-s")
		}
		inProcess, _ := runLint(b, binary, filepath.Join(b.TempDir(), "cache"), v1, "--inflate", "go")
		cache := filepath.Join(b.TempDir(), "cache")
		cold, coldRSS := runLint(b, binary, cache, v1)
		warm, warmRSS := runLint(b, binary, cache, v2)
		b.ReportMetric(floor.Seconds(), "floor-s")
		b.ReportMetric(cold.Seconds(), "cold-s")
		b.ReportMetric(inProcess.Seconds(), "cold-go-s")
		b.ReportMetric(warm.Seconds(), "warm-s")
		b.ReportMetric(cold.Seconds()/floor.Seconds(), "cold/floor")
		b.ReportMetric(warm.Seconds()/floor.Seconds(), "warm/floor")
		b.ReportMetric(float64(max(coldRSS, warmRSS))/(1<<20), "peak-RSS-MiB")
	}
}

// decompressAll is the floor: each layer decompressed by program -dc, one
// after another.
func decompressAll(b *testing.B, program string, layers []string) time.Duration {
	b.Helper()
	total := time.Duration(0)
	for _, layer := range layers {
		start := time.Now()
		cmd := exec.Command(program, "-dc", layer)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	return total
}

// runLint runs modellint on an image tarball and returns its wall time and
// peak RSS (read by GNU time: see package peakrss).
func runLint(b *testing.B, binary, cache, tarball string, flags ...string) (time.Duration, int64) {
	b.Helper()
	if err := peakrss.Works(); err != nil {
		b.Skip(err)
	}
	args := append([]string{"--offline", "--cache-dir", cache, "-f", "json"}, flags...)
	peakFile := filepath.Join(b.TempDir(), "peak")
	cmd := peakrss.Command(peakFile, binary, append(args, tarball)...)
	cmd.Stdout = io.Discard
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
		b.Fatalf("modellint %s: %v\n%s", tarball, err, stderr.String())
	}
	peak, err := peakrss.Read(peakFile)
	if err != nil {
		b.Fatal(err)
	}
	return elapsed, peak
}

// buildBenchImage writes the layers (gzip files) and two docker-save
// tarballs, v1 and v2 (v1 plus one small top layer), unless they exist.
func buildBenchImage(b *testing.B, dir string) (layers []string, v1, v2 string) {
	b.Helper()
	v1, v2 = filepath.Join(dir, "image-v1.tar"), filepath.Join(dir, "image-v2.tar")
	for i := 0; i <= benchLayers; i++ {
		layers = append(layers, filepath.Join(dir, fmt.Sprintf("layer-%02d.tar.gz", i)))
	}
	if _, err := os.Stat(v2); err == nil {
		return layers[:benchLayers], v1, v2
	}
	b.Logf("building the benchmark image in %s (once)", dir)
	diffIDs := make([]string, benchLayers+1)
	var wg sync.WaitGroup
	errs := make(chan error, benchLayers+1)
	jobs := make(chan int)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				size, files := int64(benchBytes/benchLayers), benchFilesPerLayer
				if i == benchLayers {
					size, files = benchTopLayerBytes, 100
				}
				diffID, err := writeBenchLayer(layers[i], i, size, files)
				if err != nil {
					errs <- err
					continue
				}
				diffIDs[i] = diffID
			}
		}()
	}
	for i := range layers {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	if err := writeSaveArchive(v1, layers[:benchLayers], diffIDs[:benchLayers]); err != nil {
		b.Fatal(err)
	}
	if err := writeSaveArchive(v2, layers, diffIDs); err != nil {
		b.Fatal(err)
	}
	return layers[:benchLayers], v1, v2
}

// writeBenchLayer writes one gzip layer of about size bytes in files
// entries, deterministically, and returns its diff ID. Contents are drawn
// from 16 symbols, so they compress about 2:1 like binaries do.
func writeBenchLayer(file string, layer int, size int64, files int) (string, error) {
	out, err := os.Create(file + ".tmp")
	if err != nil {
		return "", err
	}
	defer out.Close()
	buffered := bufio.NewWriterSize(out, 1<<20)
	compressor, _ := gzip.NewWriterLevel(buffered, gzip.DefaultCompression)
	hash := sha256.New()
	writer := tar.NewWriter(io.MultiWriter(compressor, hash))
	random := rand.New(rand.NewPCG(uint64(layer), 42))
	symbols := []byte("0123456789abcdef")
	buf := make([]byte, 1<<20)
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	average := size / int64(files)
	for f := 0; f < files; f++ {
		dir := fmt.Sprintf("usr/lib/layer%02d/pkg%03d/", layer, f/50)
		if f%50 == 0 {
			writer.WriteHeader(&tar.Header{Name: dir, Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch})
		}
		length := average/2 + random.Int64N(average+1)
		mode := int64(0o644)
		if f%10 == 0 {
			mode = 0o755
		}
		name := dir + "file" + strconv.Itoa(f) + ".so"
		if layer == 0 && f == 0 {
			name, mode = "usr/bin/serve", 0o755
		}
		if err := writer.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: mode, Size: length, ModTime: epoch}); err != nil {
			return "", err
		}
		for remaining := length; remaining > 0; {
			n := min(remaining, int64(len(buf)))
			for i := range buf[:n] {
				buf[i] = symbols[random.Uint32()&15]
			}
			if _, err := writer.Write(buf[:n]); err != nil {
				return "", err
			}
			remaining -= n
		}
	}
	if err := writer.Close(); err != nil {
		return "", err
	}
	if err := compressor.Close(); err != nil {
		return "", err
	}
	if err := buffered.Flush(); err != nil {
		return "", err
	}
	if err := out.Close(); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(hash.Sum(nil)), os.Rename(file+".tmp", file)
}

// writeSaveArchive assembles a docker-save tarball from gzip layer files.
func writeSaveArchive(file string, layers, diffIDs []string) error {
	config, _ := json.Marshal(map[string]any{
		"architecture": "amd64", "os": "linux",
		"config": map[string]any{"Entrypoint": []string{"/usr/bin/serve"}},
		"rootfs": map[string]any{"type": "layers", "diff_ids": diffIDs},
	})
	var names []string
	for i := range layers {
		names = append(names, fmt.Sprintf("layer-%02d.tar.gz", i))
	}
	manifest, _ := json.Marshal([]map[string]any{{"Config": "config.json", "RepoTags": []string{"bench/image:latest"}, "Layers": names}})
	out, err := os.Create(file + ".tmp")
	if err != nil {
		return err
	}
	defer out.Close()
	writer := tar.NewWriter(out)
	add := func(name string, size int64, body io.Reader) error {
		if err := writer.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: size}); err != nil {
			return err
		}
		_, err := io.Copy(writer, body)
		return err
	}
	for i, layer := range layers {
		in, err := os.Open(layer)
		if err != nil {
			return err
		}
		info, _ := in.Stat()
		err = add(names[i], info.Size(), in)
		in.Close()
		if err != nil {
			return err
		}
	}
	if err := add("config.json", int64(len(config)), bytesReader(config)); err != nil {
		return err
	}
	if err := add("manifest.json", int64(len(manifest)), bytesReader(manifest)); err != nil {
		return err
	}
	if err := writer.Close(); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(file+".tmp", file)
}

func bytesReader(data []byte) io.Reader { return &byteReader{data: data} }

type byteReader struct{ data []byte }

func (r *byteReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}
