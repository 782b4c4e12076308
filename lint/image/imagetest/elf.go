package imagetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/modellint/modellint/internal/testenv"
)

// ELFKinds are the binaries a spec may ask for:
//   - dynamic: a C program linked against the host's glibc (PT_INTERP
//     /lib64/ld-linux-x86-64.so.2, needs libc.so.6 and GLIBC_2.34 on
//     glibc ≥ 2.34);
//   - static: the same program linked statically (no loader, no libraries);
//   - musl: a program whose loader is /lib/ld-musl-x86_64.so.1;
//   - needs-libfoo: a program that also needs libfoo.so.1;
//   - libc: the host's real libc.so.6; loader: the host's real ld.so;
//   - old-libc: a libc.so.6 stand-in whose version script defines
//     GLIBC_2.2.5 … GLIBC_2.28 only, like Debian 10's;
//   - stub-amd64, stub-arm64 …: a minimal static executable written in Go
//     (no gcc needed; see StubELF).
var ELFKinds = []string{"dynamic", "static", "musl", "needs-libfoo", "libc", "loader", "old-libc", "libfoo"}

// ELFBuilder compiles the ELF kinds once per test binary with gcc.
type ELFBuilder struct {
	dir   string // the current Build's directory
	mu    sync.Mutex
	cache map[string][]byte
}

var (
	sharedBuilder     *ELFBuilder
	sharedBuilderErr  error
	sharedBuilderOnce sync.Once
)

// ELF returns the process-wide builder, or skips the test when gcc or the
// host's glibc is missing (fails when testenv.RequireTools is set).
func ELF(t testing.TB) *ELFBuilder {
	t.Helper()
	sharedBuilderOnce.Do(func() {
		if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			sharedBuilderErr = fmt.Errorf("ELF fixtures are built for linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
			return
		}
		if _, err := exec.LookPath("gcc"); err != nil {
			sharedBuilderErr = fmt.Errorf("gcc is not installed (apt-get install gcc)")
			return
		}
		sharedBuilder = &ELFBuilder{cache: map[string][]byte{}}
	})
	if sharedBuilderErr != nil {
		testenv.Unavailable(t, sharedBuilderErr.Error())
	}
	return sharedBuilder
}

const program = `#include <stdio.h>
int main(int argc, char **argv) { printf("serving %d\n", argc); return 0; }
`

const needsFoo = `#include <stdio.h>
extern int foo(void);
int main(void) { printf("%d\n", foo()); return 0; }
`

const libfoo = `int foo(void) { return 42; }
`

// oldLibc stands in for a glibc whose newest symbol version is 2.28: the
// same symbols a small program imports, defined under old versions only.
const oldLibc = `int puts(const char *s) { return 0; }
int printf(const char *f, ...) { return 0; }
int __libc_start_main(void) { return 0; }
void __cxa_finalize(void *d) {}
`

const oldLibcVersions = `GLIBC_2.2.5 { global: puts; printf; __libc_start_main; __cxa_finalize; local: *; };
GLIBC_2.17 { } GLIBC_2.2.5;
GLIBC_2.28 { } GLIBC_2.17;
`

// Build returns the bytes of one ELF kind.
func (b *ELFBuilder) Build(kind string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if data, ok := b.cache[kind]; ok {
		return data, nil
	}
	// The build directory lives only as long as this call: the bytes are
	// kept in the cache, and a test binary has no hook to remove it later.
	dir, err := os.MkdirTemp("", "modellint-elf-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	b.dir = dir
	var file string
	switch kind {
	case "dynamic":
		file, err = b.compile(kind, program, nil)
	case "static":
		file, err = b.compile(kind, program, []string{"-static"})
	case "musl":
		file, err = b.compile(kind, program, []string{"-Wl,--dynamic-linker=/lib/ld-musl-x86_64.so.1"})
	case "libfoo":
		file, err = b.compile("libfoo.so.1", libfoo, []string{"-shared", "-fPIC", "-Wl,-soname,libfoo.so.1"})
	case "needs-libfoo":
		if _, err = b.compile("libfoo.so.1", libfoo, []string{"-shared", "-fPIC", "-Wl,-soname,libfoo.so.1"}); err == nil {
			file, err = b.compile(kind, needsFoo, []string{"-L" + b.dir, "-l:libfoo.so.1"})
		}
	case "old-libc":
		versions := filepath.Join(b.dir, "old-libc.map")
		if err = os.WriteFile(versions, []byte(oldLibcVersions), 0o644); err == nil {
			file, err = b.compile("libc.so.6", oldLibc, []string{"-shared", "-fPIC", "-nostdlib", "-Wl,-soname,libc.so.6",
				"-Wl,--version-script=" + versions})
		}
	case "libc":
		file, err = filepath.EvalSymlinks("/lib/x86_64-linux-gnu/libc.so.6")
	case "loader":
		file, err = filepath.EvalSymlinks("/lib64/ld-linux-x86-64.so.2")
	default:
		return nil, fmt.Errorf("unknown ELF kind %q (want one of %v)", kind, ELFKinds)
	}
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	b.cache[kind] = data
	return data, nil
}

// compile builds a C source with gcc, stripped and without build IDs so
// the bytes depend only on the toolchain.
func (b *ELFBuilder) compile(name, source string, flags []string) (string, error) {
	src := filepath.Join(b.dir, name+".c")
	out := filepath.Join(b.dir, name)
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		return "", err
	}
	args := append([]string{"-O1", "-s", "-Wl,--build-id=none", "-o", out, name + ".c"}, flags...)
	cmd := exec.Command("gcc", args...)
	cmd.Dir = b.dir
	if output, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcc %v: %v\n%s", args, err, output)
	}
	return out, nil
}
