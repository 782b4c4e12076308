package integration

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// releaseVersion is the tag of the release the test builds and serves.
const releaseVersion = "v1.2.3"

var (
	releaseOnce sync.Once
	releaseDir  string
	releaseErr  string
)

// buildRelease runs `make release` for this machine's platform once, into
// a directory laid out as GitHub serves releases: TAG/FILE.
func buildRelease(t *testing.T) string {
	t.Helper()
	skipUnlessLinux(t)
	skipShort(t, "make release")
	requireTool(t, "make", "apt-get install make")
	releaseOnce.Do(func() {
		dir, err := os.MkdirTemp("", "modellint-release-")
		if err != nil {
			releaseErr = err.Error()
			return
		}
		releaseDir = dir
		got := runCommand(t, repoRoot, goEnv(t), "make", "release",
			"VERSION="+releaseVersion, "DIST="+filepath.Join(dir, releaseVersion), "PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH)
		if got.code != 0 {
			releaseErr = "make release: " + got.stdout + got.stderr
		}
	})
	if releaseErr != "" {
		t.Fatal(releaseErr)
	}
	return releaseDir
}

func init() {
	cleanups = append(cleanups, func() {
		if releaseDir != "" {
			os.RemoveAll(releaseDir)
		}
	})
}

// releaseServer serves a release on loopback. Under /good/ it is served as
// built; under /tampered/ every archive has one byte changed, as a
// compromised mirror would serve it; under /broken/ the server fails.
func releaseServer(t *testing.T, dir string) *httptest.Server {
	t.Helper()
	files := http.FileServer(http.Dir(dir))
	mux := http.NewServeMux()
	mux.Handle("/good/", http.StripPrefix("/good", files))
	mux.HandleFunc("/tampered/", func(w http.ResponseWriter, r *http.Request) {
		path := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/tampered/")))
		data, err := os.ReadFile(path)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(path, ".tar.gz") || strings.HasSuffix(path, ".zip") {
			data[len(data)/2] ^= 0xff
		}
		w.Write(data) //nolint:errcheck // the client reports a short body
	})
	mux.HandleFunc("/broken/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	})
	server := httptest.NewServer(mux) // listens on 127.0.0.1
	t.Cleanup(server.Close)
	return server
}

// install runs scripts/install.sh as the action's first step does.
func install(t *testing.T, env ...string) (got result, installDir, githubPath string) {
	t.Helper()
	installDir, githubPath = filepath.Join(t.TempDir(), "bin"), filepath.Join(t.TempDir(), "github_path")
	env = append(append(goEnv(t), "MODELLINT_INSTALL_DIR="+installDir, "GITHUB_PATH="+githubPath,
		"MODELLINT_VERSION=", "MODELLINT_ACTION_REF=", "MODELLINT_SOURCE_DIR="), env...)
	return runCommand(t, t.TempDir(), env, "bash", filepath.Join(repoRoot, "scripts", "install.sh")), installDir, githubPath
}

func TestInstallVerifiedRelease(t *testing.T) {
	server := releaseServer(t, buildRelease(t))
	got, installDir, githubPath := install(t, "MODELLINT_ACTION_REF="+releaseVersion, "MODELLINT_DOWNLOAD_URL="+server.URL+"/good")
	if got.code != 0 {
		t.Fatalf("install failed (exit %d):\n%s%s", got.code, got.stdout, got.stderr)
	}
	if !strings.Contains(got.stdout, "verified (sha256 ") {
		t.Errorf("the install does not say it verified the archive:\n%s", got.stdout)
	}
	version := runCommand(t, installDir, nil, filepath.Join(installDir, "modellint"), "version")
	if want := "modellint " + releaseVersion + "\n"; version.stdout != want {
		t.Errorf("modellint version = %q, want %q", version.stdout, want)
	}
	checkRendersChart(t, installDir)
	checkBuildsOverlay(t, installDir)
	path, err := os.ReadFile(githubPath)
	if err != nil || strings.TrimSpace(string(path)) != installDir {
		t.Errorf("GITHUB_PATH = %q (%v), want %s", path, err, installDir)
	}
}

func TestInstallRejectsChecksumMismatch(t *testing.T) {
	server := releaseServer(t, buildRelease(t))
	// Go is on PATH: a mismatch must fail, not fall back to a build.
	got, installDir, githubPath := install(t, "MODELLINT_VERSION="+releaseVersion, "MODELLINT_DOWNLOAD_URL="+server.URL+"/tampered",
		"MODELLINT_SOURCE_DIR="+repoRoot, "MODELLINT_ACTION_REF="+releaseVersion)
	if got.code == 0 {
		t.Fatalf("a tampered archive was installed:\n%s%s", got.stdout, got.stderr)
	}
	if !strings.Contains(got.stderr, "checksum mismatch") {
		t.Errorf("stderr does not name the checksum mismatch:\n%s", got.stderr)
	}
	if _, err := os.Stat(filepath.Join(installDir, "modellint")); err == nil {
		t.Error("a binary was installed after the checksum mismatch")
	}
	if _, err := os.Stat(githubPath); err == nil {
		t.Error("GITHUB_PATH was written after the checksum mismatch")
	}
}

func TestInstallFailsOnServerError(t *testing.T) {
	server := releaseServer(t, buildRelease(t))
	got, _, _ := install(t, "MODELLINT_VERSION="+releaseVersion, "MODELLINT_DOWNLOAD_URL="+server.URL+"/broken",
		"MODELLINT_SOURCE_DIR="+repoRoot, "MODELLINT_ACTION_REF="+releaseVersion)
	if got.code == 0 || !strings.Contains(got.stderr, "HTTP 503") {
		t.Errorf("exit %d, stderr %q; want a failure naming HTTP 503", got.code, got.stderr)
	}
}

// TestInstallBuildsWhenNoReleaseFits: the action used at a tag with no
// release builds its own checkout with the local Go, as it does at a branch
// or commit, which are never looked up.
func TestInstallBuildsWhenNoReleaseFits(t *testing.T) {
	skipShort(t, "install.sh at a tag without a release")
	server := releaseServer(t, buildRelease(t))
	for name, ref := range map[string]string{"tag without a release": "v9.9.9"} {
		t.Run(name, func(t *testing.T) {
			got, installDir, _ := install(t, "MODELLINT_ACTION_REF="+ref, "MODELLINT_SOURCE_DIR="+repoRoot,
				"MODELLINT_DOWNLOAD_URL="+server.URL+"/good")
			if got.code != 0 {
				t.Fatalf("install failed (exit %d):\n%s%s", got.code, got.stdout, got.stderr)
			}
			if !strings.Contains(got.stdout, "building "+ref+" from "+repoRoot) {
				t.Errorf("the install does not say it built from source:\n%s%s", got.stdout, got.stderr)
			}
			version := runCommand(t, installDir, nil, filepath.Join(installDir, "modellint"), "version")
			if want := "modellint " + ref + "\n"; version.stdout != want {
				t.Errorf("modellint version = %q, want %q", version.stdout, want)
			}
			checkRendersChart(t, installDir)
			checkBuildsOverlay(t, installDir)
		})
	}
}
