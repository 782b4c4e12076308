package launch

import (
	"debug/elf"
	"io/fs"
	"reflect"
	"testing"

	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/elfinfo"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// inLayer stands for the only layer of a start case's image, whose digest
// depends on the host's toolchain when gcc builds its binaries.
const inLayer = "layer 1/1"

var (
	rootUser = User{Groups: []uint32{0}, Name: "root", Home: "/root", From: "default"}
	appUser  = User{UID: 1000, GID: 1000, Groups: []uint32{1000}, Name: "app", Home: "/home/app", From: "runAsUser"}
)

// defaultLibraryPath is where the loader looks for an x86-64 binary's
// libraries when nothing else is configured.
var defaultLibraryPath = []string{"/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib", "/usr/local/lib"}

// rootHomeBlocked are the directories of userLocalBin that keep uid 1000
// from its server.
var rootHomeBlocked = []Dir{{Path: "/root", Mode: fs.ModeDir | 0o700}, {Path: "/root/.local", Mode: fs.ModeDir | 0o700}}

type startWant struct {
	problems  []Problem
	unchecked []string
	notTaken  []NotTaken
}

// startWants are what each of startCases finds, by case name.
var startWants = map[string]startWant{
	"no-command":           {problems: []Problem{{Kind: NotFound, Reason: NoCommand}}},
	"missing":              {problems: []Problem{{Kind: NotFound, Reason: Missing, Path: "/nope"}}},
	"missing-parent":       {problems: []Problem{{Kind: NotFound, Reason: MissingParent, Path: "/opt/app/serve", At: "/opt"}}},
	"parent-not-directory": {problems: []Problem{{Kind: NotFound, Reason: ParentNotDirectory, Path: "/etc/passwd/serve", At: "/etc/passwd"}}},
	"symlink-loop":         {problems: []Problem{{Kind: NotFound, Reason: SymlinkLoop, Path: "/loop", At: "/loop"}}},
	"directory":            {problems: []Problem{{Kind: NotFound, Reason: IsDirectory, Path: "/usr/bin", Layer: inLayer}}},
	"fifo": {problems: []Problem{{Kind: NotExecutable, Reason: NotRegularFile, Path: "/run/pipe", Layer: inLayer,
		Type: rootfs.FIFO}}},
	"parent-not-searchable": {problems: []Problem{{Kind: NotExecutable, Reason: ParentNotSearchable, Path: "/srv/serve", Layer: inLayer,
		At: "/srv", Mode: fs.ModeDir | 0o700, Blocked: []Dir{{Path: "/srv", Mode: fs.ModeDir | 0o700}}, User: appUser}}},
	"parents-not-searchable": {problems: []Problem{{Kind: NotExecutable, Reason: ParentNotSearchable, Path: "/root/.local/bin/serve",
		Layer: inLayer, At: "/root", Mode: fs.ModeDir | 0o700, Blocked: rootHomeBlocked, User: appUser}}},
	"no-execute-bit": {problems: []Problem{{Kind: NotExecutable, Reason: NoExecuteBit, Path: "/usr/local/bin/serve -> /app/serve.sh",
		Layer: inLayer, Mode: 0o644, User: rootUser}}},
	"not-in-path": {problems: []Problem{{Kind: NotFound, Reason: NotInPath, Path: "serve", PathValue: testPath}}},
	"in-path-not-executable": {problems: []Problem{{Kind: NotExecutable, Reason: InPathNotExecutable, Path: "/usr/local/bin/serve",
		Layer: inLayer, User: appUser, Candidates: []Candidate{{Path: "/usr/local/bin/serve", Mode: 0o644},
			{Path: "/usr/bin/serve", Mode: 0o700, UID: 7, GID: 8}}}}},
	"empty-file":     {problems: []Problem{{Kind: InterpreterMissing, Reason: EmptyFile, Path: "/app/serve", Layer: inLayer}}},
	"unknown-format": {problems: []Problem{{Kind: InterpreterMissing, Reason: UnknownFormat, Path: "/app/serve", Layer: inLayer}}},
	"empty-shebang":  {problems: []Problem{{Kind: InterpreterMissing, Reason: EmptyShebang, Path: "/app/serve", Layer: inLayer}}},
	"crlf-shebang": {problems: []Problem{{Kind: InterpreterMissing, Reason: CRLFShebang, Path: "/app/start.sh", Layer: inLayer,
		Interpreter: "/bin/sh\r"}}},
	"crlf-env-shebang": {problems: []Problem{{Kind: InterpreterMissing, Reason: CRLFShebang, Path: "/app/start.py", Layer: inLayer,
		Interpreter: "python3\r"}}},
	// s1 → s2 → s3 → s4 are followed; s5 would be the fifth.
	"too-many-interpreters": {problems: []Problem{{Kind: InterpreterMissing, Reason: TooManyInterpreters, Path: "/app/s5", Layer: inLayer}}},
	"interpreter-missing": {problems: []Problem{{Kind: InterpreterMissing, Reason: MissingParent, Path: "/opt/bash", At: "/opt",
		Relation: ShebangInterpreter, Of: "/app/run.sh"}}},
	"interpreter-not-executable": {problems: []Problem{{Kind: InterpreterMissing, Reason: NoExecuteBit, Path: "/app/interp", Layer: inLayer,
		Mode: 0o644, User: rootUser, Relation: ShebangInterpreter, Of: "/app/run"}}},
	// env reports what it cannot run as a missing interpreter, whatever
	// the lookup found.
	"env-lookup-missing": {problems: []Problem{{Kind: InterpreterMissing, Reason: NotInPath, Path: "python3", PathValue: testPath,
		Relation: EnvLookup, Of: "/app/serve"}}},
	"env-lookup-not-executable": {problems: []Problem{{Kind: InterpreterMissing, Reason: InPathNotExecutable, Path: "/usr/bin/python3",
		Layer: inLayer, User: rootUser, Candidates: []Candidate{{Path: "/usr/bin/python3", Mode: 0o644}},
		Relation: EnvLookup, Of: "/app/serve"}}},
	"machine-mismatch": {problems: []Problem{{Kind: ArchMismatch, Reason: MachineMismatch, Path: "/app/serve", Layer: inLayer,
		Machine: elf.EM_AARCH64, Arch: "amd64"}}},
	"wrapper-not-in-path": {problems: []Problem{{Kind: NotFound, Reason: NotInPath, Path: "serve", PathValue: testPath,
		ByShell: true, Name: "serve", Via: []Hop{{Script: "/entrypoint.sh", Line: 2, Program: "serve", Exec: true}}}}},
	"wrapper-no-execute-bit": {problems: []Problem{{Kind: NotExecutable, Reason: NoExecuteBit, Path: "/usr/local/bin/serve", Layer: inLayer,
		Mode: 0o644, User: rootUser, ByShell: true, Name: "serve",
		Via: []Hop{{Script: "/entrypoint.sh", Line: 2, Program: "serve", Exec: true}}}}},
	"wrapper-parent-not-searchable": {problems: []Problem{{Kind: NotExecutable, Reason: ParentNotSearchable,
		Path: "/root/.local/bin/serve", Layer: inLayer, At: "/root", Mode: fs.ModeDir | 0o700, Blocked: rootHomeBlocked,
		User: appUser, ByShell: true, Name: "serve", Via: []Hop{{Script: "/entrypoint.sh", Line: 2, Program: "serve", Exec: true}}}}},
	"wrapper-no-execute-bit-after-unreachable": {problems: []Problem{{Kind: NotExecutable, Reason: NoExecuteBit,
		Path: "/usr/local/bin/serve", Layer: inLayer, Mode: 0o644, User: appUser, ByShell: true, Name: "serve",
		Via: []Hop{{Script: "/entrypoint.sh", Line: 2, Program: "serve", Exec: true}}}}},
	"shell-script-missing": {problems: []Problem{{Kind: NotFound, Reason: ShellScriptMissing, Path: "/app/start.sh", ByShell: true,
		Name: "start.sh"}}},
	// The script file sh is given is read, #! line or not, and followed.
	"shell-script-file": {},
	"shell-script-directory": {problems: []Problem{{Kind: NotFound, Reason: ShellScriptMissing, Path: "/app/start.sh", ByShell: true,
		Name: "start.sh"}}},
	"branch-not-taken": {notTaken: []NotTaken{{Script: "/entrypoint.sh", Problem: Problem{Kind: NotFound, Reason: NotInPath,
		Path: "debug-server", PathValue: testPath, ByShell: true, Name: "debug-server",
		Via: []Hop{{Script: "/entrypoint.sh", Line: 3, Program: "debug-server", Exec: true}}}}}},
	"branch-not-taken-nested": {
		unchecked: []string{"/app/big.sh: a shell script larger than 64 KiB, not followed to the program it runs"},
		notTaken: []NotTaken{{Script: "/app/inner.sh", Problem: Problem{Kind: NotFound, Reason: NotInPath,
			Path: "debug-server", PathValue: testPath, ByShell: true, Name: "debug-server",
			Via: []Hop{{Script: "/entrypoint.sh", Line: 3, Program: "/app/inner.sh", Exec: true},
				{Script: "/app/inner.sh", Line: 3, Program: "debug-server", Exec: true}}}}},
	},
	"branch-not-taken-after-unchecked": {
		unchecked: []string{"/entrypoint.sh: line 4: $SERVER is not set"},
		notTaken: []NotTaken{{Script: "/entrypoint.sh", AfterUnchecked: 1, Problem: Problem{Kind: InterpreterMissing,
			Reason: InPathNotExecutable, Path: "/usr/bin/python3", Layer: inLayer, User: rootUser,
			Candidates: []Candidate{{Path: "/usr/bin/python3", Mode: 0o644}}, Relation: EnvLookup, Of: "/app/tool.py",
			Via: []Hop{{Script: "/entrypoint.sh", Line: 3, Program: "/app/tool.py", Exec: true}}}}},
	},
	"loader-missing": {problems: []Problem{{Kind: InterpreterMissing, Reason: LoaderMissing, Path: "/lib64/ld-linux-x86-64.so.2",
		Of: "/app/serve"}}},
	"glibc-loader-on-musl": {problems: []Problem{{Kind: InterpreterMissing, Reason: LoaderMissing, Path: "/lib64/ld-linux-x86-64.so.2",
		Of: "/app/serve", Loaders: []string{"/lib/ld-musl-x86_64.so.1"}}}},
	"musl-loader-on-glibc": {problems: []Problem{{Kind: InterpreterMissing, Reason: LoaderMissing, Path: "/lib/ld-musl-x86_64.so.1",
		Of: "/app/serve", Loaders: []string{"/lib64/ld-linux-x86-64.so.2"}}}},
	"library-not-found": {problems: []Problem{{Kind: LibraryMissing, Reason: LibraryNotFound, Path: "/app/serve",
		Library: "libfoo.so.1", Searched: defaultLibraryPath}}},
	"version-not-defined": {problems: []Problem{{Kind: VersionMissing, Reason: VersionNotDefined, Path: "/app/serve", Layer: inLayer,
		Library: "libc.so.6", Missing: []string{"GLIBC_2.34"}, Newest: "GLIBC_2.28",
		LibraryPath: "/lib/x86_64-linux-gnu/libc.so.6", LibraryLayer: inLayer}}},
	"library-unreadable": {unchecked: []string{"/lib/x86_64-linux-gnu/libc.so.6: ELF: unknown byte order 3"}},
	"no-version-defined": {problems: []Problem{{Kind: VersionMissing, Reason: VersionNotDefined, Path: "/app/serve", Layer: inLayer,
		Library: "libc.so.6", Missing: []string{"GLIBC_2.2.5", "GLIBC_2.34"},
		LibraryPath: "/lib/x86_64-linux-gnu/libc.so.6", LibraryLayer: inLayer}}},
}

func TestStartProblems(t *testing.T) {
	for _, sc := range startCases {
		t.Run(sc.name, func(t *testing.T) {
			want, ok := startWants[sc.name]
			if !ok {
				t.Fatal("no entry in startWants")
			}
			analysis, img := sc.replay(t)
			if got := inOneLayer(t, img, analysis.Problems); !reflect.DeepEqual(got, want.problems) {
				t.Errorf("problems:\n got %+v\nwant %+v", got, want.problems)
			}
			if !reflect.DeepEqual(analysis.Unchecked, want.unchecked) {
				t.Errorf("unchecked:\n got %q\nwant %q", analysis.Unchecked, want.unchecked)
			}
			var notTaken []NotTaken
			for _, branch := range analysis.NotTaken {
				branch.Problem = inOneLayer(t, img, []Problem{branch.Problem})[0]
				notTaken = append(notTaken, branch)
			}
			if !reflect.DeepEqual(notTaken, want.notTaken) {
				t.Errorf("not taken:\n got %+v\nwant %+v", notTaken, want.notTaken)
			}
		})
	}
}

// TestEveryReasonFound keeps startCases covering every Reason, so each
// has its data checked.
func TestEveryReasonFound(t *testing.T) {
	found := map[Reason]bool{}
	for _, want := range startWants {
		for _, p := range want.problems {
			found[p.Reason] = true
		}
	}
	for reason := NoCommand; reason <= MachineMismatch; reason++ {
		if !found[reason] {
			t.Errorf("no start case finds Reason %d", reason)
		}
	}
}

// inOneLayer checks the problems name the image's layer by its real
// digest, and writes it as inLayer.
func inOneLayer(t *testing.T, img *image.Image, problems []Problem) []Problem {
	t.Helper()
	name, digest := img.LayerName(0), img.Layers[0].DiffID
	var out []Problem
	for _, p := range problems {
		if p.Layer != "" {
			if p.Layer != name || p.LayerDigest != digest {
				t.Errorf("%s: layer %q (%s), want %q (%s)", p.Path, p.Layer, p.LayerDigest, name, digest)
			}
			p.Layer, p.LayerDigest = inLayer, ""
		} else if p.LayerDigest != "" {
			t.Errorf("%s: a layer digest %s without its layer", p.Path, p.LayerDigest)
		}
		if p.LibraryLayer != "" {
			if p.LibraryLayer != name {
				t.Errorf("%s: library layer %q, want %q", p.Path, p.LibraryLayer, name)
			}
			p.LibraryLayer = inLayer
		}
		out = append(out, p)
	}
	return out
}

// TestFindLibrary checks where the loader looks for a library: DT_RPATH
// only without DT_RUNPATH, and the directories ld.so.conf names through
// its includes.
func TestFindLibrary(t *testing.T) {
	amd64 := func(info elfinfo.Info) *elfinfo.Info {
		info.Class, info.Machine = elf.ELFCLASS64, elf.EM_X86_64
		return &info
	}
	cases := []struct {
		name     string
		files    []layerFile
		info     *elfinfo.Info
		found    string
		searched []string
	}{
		{name: "rpath without runpath", info: amd64(elfinfo.Info{RPath: []string{"/opt/rpath"}}),
			files: []layerFile{regular("opt/rpath/libfoo.so.1", 0o644, "x")}, found: "/opt/rpath/libfoo.so.1"},
		{name: "rpath beside runpath is ignored", info: amd64(elfinfo.Info{RPath: []string{"/opt/rpath"}, RunPath: []string{"/opt/runpath"}}),
			files:    []layerFile{regular("opt/rpath/libfoo.so.1", 0o644, "x")},
			searched: append([]string{"/opt/runpath"}, defaultLibraryPath...)},
		{name: "ld.so.conf include", info: amd64(elfinfo.Info{}), files: []layerFile{
			regular("etc/ld.so.conf", 0o644, "include /etc/ld.so.conf.d/*.conf\n"),
			regular("etc/ld.so.conf.d/cuda.conf", 0o644, "/opt/conf # from cuda\n"),
			regular("opt/conf/libfoo.so.1", 0o644, "x"),
		}, found: "/opt/conf/libfoo.so.1"},
		// Includes are followed four deep.
		{name: "ld.so.conf nested includes", info: amd64(elfinfo.Info{}), files: []layerFile{
			regular("etc/ld.so.conf", 0o644, "include ld.so.conf.d/a.conf\n"),
			regular("etc/ld.so.conf.d/a.conf", 0o644, "include b.conf\n"),
			regular("etc/ld.so.conf.d/b.conf", 0o644, "include c.conf\n"),
			regular("etc/ld.so.conf.d/c.conf", 0o644, "include d.conf\n"),
			regular("etc/ld.so.conf.d/d.conf", 0o644, "/opt/deep\ninclude e.conf\n"),
			regular("etc/ld.so.conf.d/e.conf", 0o644, "/opt/deeper\n"),
		}, searched: append([]string{"/opt/deep"}, defaultLibraryPath...)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := withArgv("/bin/sh")
			_, img := startCase{name: "library", spec: spec, files: tc.files}.replay(t)
			c := &checker{img: img, fs: img.FS(), spec: spec, analysis: &Analysis{}}
			node, searched := c.findLibrary("libfoo.so.1", tc.info, "/app/serve")
			found := ""
			if node != nil {
				found = node.Path()
			}
			if found != tc.found || !reflect.DeepEqual(searched, tc.searched) {
				t.Errorf("found %q searched %q, want %q searched %q", found, searched, tc.found, tc.searched)
			}
		})
	}
}
