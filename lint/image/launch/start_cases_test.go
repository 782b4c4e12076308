package launch

import (
	"archive/tar"
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/imagetest"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// layerFile is one tar entry of a start case's image. elf, when set, is an
// imagetest ELF kind ("stub-arm64", "dynamic" …) that gives the content.
type layerFile struct {
	header  tar.Header
	content string
	elf     string
}

func regular(name string, mode int64, content string) layerFile {
	return layerFile{header: tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: mode}, content: content}
}

func elfFile(name, kind string) layerFile {
	return layerFile{header: tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o755}, elf: kind}
}

func directory(name string, mode int64) layerFile {
	return layerFile{header: tar.Header{Name: name + "/", Typeflag: tar.TypeDir, Mode: mode}}
}

func symlink(name, target string) layerFile {
	return layerFile{header: tar.Header{Name: name, Typeflag: tar.TypeSymlink, Linkname: target}}
}

// startCase is a container start replayed in a one-layer image.
type startCase struct {
	name  string
	files []layerFile
	spec  Spec
	arch  string
}

// baseFiles is what every start case's image has: accounts for root and app,
// /bin as a symlink into /usr/bin, and a static sh there.
var baseFiles = []layerFile{
	regular("etc/passwd", 0o644, "root:x:0:0::/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n"),
	symlink("bin", "usr/bin"),
	directory("usr/bin", 0o755),
	elfFile("usr/bin/sh", "stub-amd64"),
}

const testPath = "/usr/local/bin:/usr/bin"

func withArgv(words ...string) Spec {
	return Spec{Argv: words, Env: []string{"PATH=" + testPath}, WorkingDir: "/"}
}

func withPath(pathValue string, words ...string) Spec {
	return Spec{Argv: words, Env: []string{"PATH=" + pathValue}, WorkingDir: "/"}
}

// userLocalBin is a server pip installed with --user as root: executable,
// in root's home, which only root may enter.
var userLocalBin = []layerFile{
	directory("root", 0o700),
	directory("root/.local", 0o700),
	directory("root/.local/bin", 0o755),
	elfFile("root/.local/bin/serve", "stub-amd64"),
}

func asApp(spec Spec) Spec {
	uid := int64(1000)
	spec.RunAsUser = &uid
	return spec
}

// wrapperScript branches to a debug server that is not in the image and
// otherwise execs serve, which is.
const wrapperScript = "#!/bin/sh\nif [ -n \"$DEBUG\" ]; then\n  exec debug-server\nfi\nexec serve \"$@\"\n"

// startCases cover every way launch finds a start to fail.
var startCases = []startCase{
	{name: "no-command", spec: withArgv()},
	{name: "missing", spec: withArgv("/nope")},
	{name: "missing-parent", spec: withArgv("/opt/app/serve")},
	{name: "parent-not-directory", spec: withArgv("/etc/passwd/serve")},
	{name: "symlink-loop", spec: withArgv("/loop"), files: []layerFile{symlink("loop", "loop2"), symlink("loop2", "/loop")}},
	{name: "directory", spec: withArgv("/usr/bin")},
	{name: "fifo", spec: withArgv("/run/pipe"), files: []layerFile{
		{header: tar.Header{Name: "run/pipe", Typeflag: tar.TypeFifo, Mode: 0o755}},
	}},
	{name: "parent-not-searchable", spec: asApp(withArgv("/srv/serve")), files: []layerFile{
		directory("srv", 0o700),
		elfFile("srv/serve", "stub-amd64"),
	}},
	// /root and /root/.local both keep uid 1000 out: the first is where
	// the kernel stops, and opening it alone is not enough.
	{name: "parents-not-searchable", spec: asApp(withArgv("/root/.local/bin/serve")), files: userLocalBin},
	{name: "no-execute-bit", spec: withArgv("/usr/local/bin/serve"), files: []layerFile{
		regular("app/serve.sh", 0o644, "#!/bin/sh\nexec true\n"),
		symlink("usr/local/bin/serve", "/app/serve.sh"),
	}},
	{name: "not-in-path", spec: withArgv("serve", "--port", "8000")},
	{name: "in-path-not-executable", spec: asApp(withArgv("serve")), files: []layerFile{
		regular("usr/local/bin/serve", 0o644, "x"),
		{header: tar.Header{Name: "usr/bin/serve", Typeflag: tar.TypeReg, Mode: 0o700, Uid: 7, Gid: 8}, content: "x"},
	}},
	{name: "empty-file", spec: withArgv("/app/serve"), files: []layerFile{regular("app/serve", 0o755, "")}},
	{name: "unknown-format", spec: withArgv("/app/serve"), files: []layerFile{regular("app/serve", 0o755, "hello\n")}},
	{name: "empty-shebang", spec: withArgv("/app/serve"), files: []layerFile{regular("app/serve", 0o755, "#!\n")}},
	{name: "crlf-shebang", spec: withArgv("/app/start.sh"), files: []layerFile{
		regular("app/start.sh", 0o755, "#!/bin/sh\r\nexec serve\r\n"),
	}},
	{name: "crlf-env-shebang", spec: withArgv("/app/start.py"), files: []layerFile{
		regular("app/start.py", 0o755, "#!/usr/bin/env python3\r\nprint()\r\n"),
	}},
	{name: "too-many-interpreters", spec: withArgv("/app/s1"), files: []layerFile{
		regular("app/s1", 0o755, "#!/app/s2\n"),
		regular("app/s2", 0o755, "#!/app/s3\n"),
		regular("app/s3", 0o755, "#!/app/s4\n"),
		regular("app/s4", 0o755, "#!/app/s5\n"),
		regular("app/s5", 0o755, "#!/bin/sh\n"),
	}},
	{name: "interpreter-missing", spec: withArgv("/app/run.sh"), files: []layerFile{
		regular("app/run.sh", 0o755, "#!/opt/bash\nexec serve\n"),
	}},
	{name: "interpreter-not-executable", spec: withArgv("/app/run"), files: []layerFile{
		regular("app/run", 0o755, "#!/app/interp\n"),
		regular("app/interp", 0o644, "x"),
	}},
	{name: "env-lookup-missing", spec: withArgv("/app/serve"), files: []layerFile{
		elfFile("usr/bin/env", "stub-amd64"),
		regular("app/serve", 0o755, "#!/usr/bin/env -S python3 -u\n"),
	}},
	{name: "env-lookup-not-executable", spec: withArgv("/app/serve"), files: []layerFile{
		elfFile("usr/bin/env", "stub-amd64"),
		regular("app/serve", 0o755, "#!/usr/bin/env python3\n"),
		regular("usr/bin/python3", 0o644, "x"),
	}},
	{name: "machine-mismatch", spec: withArgv("/app/serve"), arch: "amd64", files: []layerFile{elfFile("app/serve", "stub-arm64")}},
	{name: "wrapper-not-in-path", spec: withArgv("/entrypoint.sh", "--port", "8000"), files: []layerFile{
		regular("entrypoint.sh", 0o755, "#!/bin/sh\nexec serve \"$@\"\n"),
	}},
	{name: "wrapper-no-execute-bit", spec: withArgv("/entrypoint.sh"), files: []layerFile{
		regular("entrypoint.sh", 0o755, "#!/bin/sh\nexec serve \"$@\"\n"),
		regular("usr/local/bin/serve", 0o644, "x"),
	}},
	// The server pip put in root's home has its execute bits; uid 1000 may
	// not enter /root to reach it.
	{name: "wrapper-parent-not-searchable", spec: asApp(withPath("/root/.local/bin:"+testPath, "/entrypoint.sh")),
		files: append([]layerFile{regular("entrypoint.sh", 0o755, "#!/bin/sh\nexec serve \"$@\"\n")}, userLocalBin...)},
	// A file the shell can stat without an execute bit is what it fails
	// on, wherever in PATH an unreachable one is.
	{name: "wrapper-no-execute-bit-after-unreachable", spec: asApp(withPath("/root/.local/bin:"+testPath, "/entrypoint.sh")),
		files: append([]layerFile{
			regular("entrypoint.sh", 0o755, "#!/bin/sh\nexec serve \"$@\"\n"),
			regular("usr/local/bin/serve", 0o644, "x"),
		}, userLocalBin...)},
	{name: "shell-script-missing", files: []layerFile{directory("app", 0o755)},
		spec: Spec{Argv: []string{"sh", "start.sh"}, Env: []string{"PATH=" + testPath}, WorkingDir: "/app"}},
	// sh reads its operand whatever its first line: a script with no #! is
	// followed too.
	{name: "shell-script-file", files: []layerFile{regular("app/start.sh", 0o644, "exec serve\n"), elfFile("usr/local/bin/serve", "stub-amd64")},
		spec: Spec{Argv: []string{"sh", "start.sh"}, Env: []string{"PATH=" + testPath}, WorkingDir: "/app"}},
	{name: "shell-script-directory", files: []layerFile{directory("app/start.sh", 0o755)},
		spec: Spec{Argv: []string{"sh", "start.sh"}, Env: []string{"PATH=" + testPath}, WorkingDir: "/app"}},
	{name: "branch-not-taken", spec: withArgv("/entrypoint.sh"), files: []layerFile{
		regular("entrypoint.sh", 0o755, wrapperScript),
		elfFile("usr/local/bin/serve", "stub-amd64"),
	}},
	// The inner wrapper's branch that is not taken comes before what the
	// outer wrapper's next command leaves unchecked.
	{name: "branch-not-taken-nested", spec: withArgv("/entrypoint.sh"), files: []layerFile{
		regular("entrypoint.sh", 0o755, "#!/bin/sh\nif [ \"$1\" = inner ]; then\n  exec /app/inner.sh\nfi\nexec /app/big.sh\n"),
		regular("app/inner.sh", 0o755, wrapperScript),
		regular("app/big.sh", 0o755, "#!/bin/sh\n"+strings.Repeat("# padding\n", 7000)),
		elfFile("usr/local/bin/serve", "stub-amd64"),
	}},
	// A branch's problem may need its path written out (the candidates of
	// env's PATH lookup), and comes after what was left unchecked before.
	{name: "branch-not-taken-after-unchecked", spec: withArgv("/entrypoint.sh"), files: []layerFile{
		regular("entrypoint.sh", 0o755, "#!/bin/sh\ncase \"$MODE\" in\n  tool) exec /app/tool.py ;;\n  custom) exec $SERVER ;;\nesac\nexec serve\n"),
		regular("app/tool.py", 0o755, "#!/usr/bin/env python3\n"),
		elfFile("usr/bin/env", "stub-amd64"),
		regular("usr/bin/python3", 0o644, "x"),
		elfFile("usr/local/bin/serve", "stub-amd64"),
	}},
	{name: "loader-missing", spec: withArgv("/app/serve"), files: []layerFile{elfFile("app/serve", "dynamic")}},
	{name: "glibc-loader-on-musl", spec: withArgv("/app/serve"), files: []layerFile{
		elfFile("app/serve", "dynamic"),
		regular("lib/ld-musl-x86_64.so.1", 0o755, "x"),
	}},
	{name: "musl-loader-on-glibc", spec: withArgv("/app/serve"), files: []layerFile{
		elfFile("app/serve", "musl"),
		elfFile("lib64/ld-linux-x86-64.so.2", "loader"),
	}},
	{name: "library-not-found", spec: withArgv("/app/serve"), files: []layerFile{
		elfFile("app/serve", "needs-libfoo"),
		elfFile("lib64/ld-linux-x86-64.so.2", "loader"),
		elfFile("lib/x86_64-linux-gnu/libc.so.6", "libc"),
	}},
	{name: "version-not-defined", spec: withArgv("/app/serve"), files: []layerFile{
		elfFile("app/serve", "dynamic"),
		elfFile("lib64/ld-linux-x86-64.so.2", "loader"),
		elfFile("lib/x86_64-linux-gnu/libc.so.6", "old-libc"),
	}},
	// A libc.so.6 whose ELF header names no byte order: its versions are
	// not checked, and why is said.
	{name: "library-unreadable", spec: withArgv("/app/serve"), files: []layerFile{
		elfFile("app/serve", "dynamic"),
		elfFile("lib64/ld-linux-x86-64.so.2", "loader"),
		regular("lib/x86_64-linux-gnu/libc.so.6", 0o755, "\x7fELF\x02\x03\x01"+strings.Repeat("\x00", 57)),
	}},
	// A libc.so.6 that defines no GLIBC_* version at all.
	{name: "no-version-defined", spec: withArgv("/app/serve"), files: []layerFile{
		elfFile("app/serve", "dynamic"),
		elfFile("lib64/ld-linux-x86-64.so.2", "loader"),
		elfFile("lib/x86_64-linux-gnu/libc.so.6", "libfoo"),
	}},
}

// replay builds the case's image, opens it as modellint does (reading the
// ELF facts the start asks for) and replays the start.
func (sc startCase) replay(t *testing.T) (*Analysis, *image.Image) {
	t.Helper()
	var buf bytes.Buffer
	writer := tar.NewWriter(&buf)
	for _, f := range append(append([]layerFile(nil), baseFiles...), sc.files...) {
		content := []byte(f.content)
		if f.elf != "" {
			content = buildELF(t, f.elf)
		}
		header := f.header
		header.Size = int64(len(content))
		if err := writer.WriteHeader(&header); err != nil {
			t.Fatal(err)
		}
		if _, err := writer.Write(content); err != nil {
			t.Fatal(err)
		}
	}
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}
	layer, err := imagetest.NewLayer(buf.Bytes(), "none")
	if err != nil {
		t.Fatal(err)
	}
	built, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		t.Fatal(err)
	}
	source := filepath.Join(t.TempDir(), "image.tar")
	if err := tarball.WriteToFile(source, nil, built); err != nil {
		t.Fatal(err)
	}
	arch := sc.arch
	if arch == "" {
		arch = "amd64"
	}
	needs := func(img *image.Image) []*rootfs.Node { return Analyze(img, sc.spec, arch).Needs }
	img, err := image.Open(context.Background(), "registry.example.com/start:"+sc.name, source, image.Options{Parallelism: 1, Needs: needs})
	if err != nil {
		t.Fatal(err)
	}
	return Analyze(img, sc.spec, arch), img
}

func buildELF(t *testing.T, kind string) []byte {
	t.Helper()
	var data []byte
	var err error
	if strings.HasPrefix(kind, "stub-") {
		data, err = imagetest.StubELF(kind)
	} else {
		data, err = imagetest.ELF(t).Build(kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}
