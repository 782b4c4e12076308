package integration

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/modellint/modellint/internal/testenv"
)

// TestGoreleaserNames: the names scripts/release.sh gives archives and the
// checksums file are the ones .goreleaser.yaml gives them, which are the
// ones scripts/install.sh downloads.
func TestGoreleaserNames(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var config struct {
		ProjectName string `yaml:"project_name"`
		Builds      []struct {
			Main    string   `yaml:"main"`
			Binary  string   `yaml:"binary"`
			Ldflags []string `yaml:"ldflags"`
			Flags   []string `yaml:"flags"`
		} `yaml:"builds"`
		Archives []struct {
			IDs          []string `yaml:"ids"`
			NameTemplate string   `yaml:"name_template"`
		} `yaml:"archives"`
		Checksum struct {
			NameTemplate string `yaml:"name_template"`
			Algorithm    string `yaml:"algorithm"`
		} `yaml:"checksum"`
	}
	if err := yaml.Unmarshal(data, &config); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if config.ProjectName != "modellint" || len(config.Builds) != 2 || len(config.Archives) != 1 {
		t.Fatalf("project %q with %d builds and %d archives, want modellint, 2, 1", config.ProjectName, len(config.Builds), len(config.Archives))
	}
	build := config.Builds[0]
	if build.Main != "./cmd/modellint" || build.Binary != "modellint" || !strings.Contains(strings.Join(build.Ldflags, " "), "-X main.version={{ .Tag }}") {
		t.Errorf("build %+v does not build ./cmd/modellint with the version ldflag", build)
	}
	if renderer := config.Builds[1]; renderer.Main != "./cmd/modellint-helm" || renderer.Binary != "modellint-helm" {
		t.Errorf("build %+v does not build ./cmd/modellint-helm, the renderer the archive ships beside modellint", renderer)
	}
	if ids := strings.Join(config.Archives[0].IDs, " "); ids != "modellint modellint-helm" {
		t.Errorf("the archive holds builds %q, want modellint and modellint-helm", ids)
	}
	if got, want := config.Archives[0].NameTemplate, "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}"; got != want {
		t.Errorf("archive name_template %q, want %q (scripts/release.sh and install.sh use it)", got, want)
	}
	if got, want := config.Checksum.NameTemplate, "{{ .ProjectName }}_{{ .Version }}_checksums.txt"; got != want || config.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum name_template %q (%s), want %q with sha256", got, config.Checksum.Algorithm, want)
	}
}

// TestReleaseArchives checks what `make release` built: a checksums file
// that lists every archive with its true sha256, an archive holding the
// binary and the README, and the same bytes when built again.
func TestReleaseArchives(t *testing.T) {
	dir := filepath.Join(buildRelease(t), releaseVersion)
	number := strings.TrimPrefix(releaseVersion, "v")
	archive := "modellint_" + number + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	checksums, err := os.ReadFile(filepath.Join(dir, "modellint_"+number+"_checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := sha256File(t, filepath.Join(dir, archive)) + "  " + archive + "\n"
	if string(checksums) != want {
		t.Errorf("checksums file:\n%swant:\n%s", checksums, want)
	}

	file, err := os.Open(filepath.Join(dir, archive))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	unzipped, err := gzip.NewReader(file)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	reader := tar.NewReader(unzipped)
	for {
		header, err := reader.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, header.Name)
		if (header.Name == "modellint" || header.Name == "modellint-helm") && header.Mode&0o111 == 0 {
			t.Errorf("%s in the archive is not executable", header.Name)
		}
		if header.Uid != 0 || header.Gid != 0 {
			t.Errorf("%s is owned by %d:%d, want 0:0", header.Name, header.Uid, header.Gid)
		}
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "README.md modellint modellint-helm" {
		t.Errorf("archive holds %v, want README.md, modellint and modellint-helm", names)
	}

	again := filepath.Join(t.TempDir(), releaseVersion)
	got := runCommand(t, repoRoot, goEnv(t), "make", "release",
		"VERSION="+releaseVersion, "DIST="+again, "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH)
	if got.code != 0 {
		t.Fatalf("make release: %s%s", got.stdout, got.stderr)
	}
	if sha256File(t, filepath.Join(again, archive)) != sha256File(t, filepath.Join(dir, archive)) {
		t.Error("two builds of the same sources gave different archives (did the work tree change meanwhile?)")
	}
}

// TestReleaseNeedsZip: without zip, which the Windows archives need,
// `make release` stops before it builds anything, and says so.
func TestReleaseNeedsZip(t *testing.T) {
	skipUnlessLinux(t)
	// What the script runs up to its builds, but neither zip nor go: were
	// the check late, the first build would fail instead.
	bin := t.TempDir()
	for _, tool := range []string{"dirname", "rm", "mkdir", "mktemp"} {
		path := testenv.Tool(t, tool, "apt-get install coreutils")
		if err := os.Symlink(path, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(t.TempDir(), "dist")
	got := runCommand(t, repoRoot, []string{"PATH=" + bin, "VERSION=" + releaseVersion, "DIST=" + dist, "PLATFORMS=linux/amd64 windows/amd64"},
		bash, filepath.Join(repoRoot, "scripts", "release.sh"))
	if got.code != 1 || !strings.Contains(got.stderr, "zip is not installed") || strings.Contains(got.stdout, "build ") {
		t.Errorf("exit %d, want 1 before any build, naming zip:\n%s%s", got.code, got.stdout, got.stderr)
	}
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestReleasePlatformsCompile builds the release for each operating system
// .goreleaser.yaml names but this one: a system call only Linux has
// (prlimit, a pipe's size) must sit behind a build constraint, or the
// release fails on a tag. One architecture each: the code that differs by
// system does not differ by architecture.
func TestReleasePlatformsCompile(t *testing.T) {
	skipShort(t, "compiling every release platform")
	data, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var config struct {
		Builds []struct {
			Main string   `yaml:"main"`
			Goos []string `yaml:"goos"`
		} `yaml:"builds"`
	}
	if err := yaml.Unmarshal(data, &config); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	// Modules that only another system builds with (cobra's mousetrap on
	// Windows) are not in a module cache filled for this one: the proxy
	// stays on.
	var env []string
	for _, variable := range goEnv(t) {
		if variable != "GOPROXY=off" {
			env = append(env, variable)
		}
	}
	for _, build := range config.Builds {
		for _, goos := range build.Goos {
			if goos == runtime.GOOS {
				continue
			}
			got := runCommand(t, repoRoot, append(env, "GOOS="+goos, "GOARCH=arm64"), "go", "build", "-o", os.DevNull, build.Main)
			if got.code != 0 {
				t.Errorf("GOOS=%s GOARCH=arm64 go build %s: %s%s", goos, build.Main, got.stdout, got.stderr)
			}
		}
	}
}
