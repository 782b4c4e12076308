package rootfs

import (
	"archive/tar"
	"errors"
	"strings"
	"testing"
)

func file(name string, mode uint32) Entry {
	return Entry{Name: name, Type: Regular, Mode: mode, Size: 1}
}
func dir(name string) Entry { return Entry{Name: name, Type: Dir, Mode: 0o755} }
func link(name, target string) Entry {
	return Entry{Name: name, Type: Symlink, Mode: 0o777, Link: target}
}

func build(t *testing.T, layers ...[]Entry) *FS {
	t.Helper()
	fs := New()
	for i, layer := range layers {
		if err := fs.Apply(i, layer); err != nil {
			t.Fatalf("layer %d: %v", i, err)
		}
	}
	return fs
}

func exists(fs *FS, name string) bool {
	_, err := fs.Stat(name)
	return err == nil
}

func TestMerge(t *testing.T) {
	fs := build(t,
		[]Entry{link("bin", "usr/bin"), link("lib", "usr/lib"), file("usr/bin/sh", 0o755), file("usr/bin/serve", 0o755),
			file("opt/app/old", 0o755), file("opt/app/keep", 0o755), dir("etc"), file("etc/passwd", 0o644)},
		[]Entry{{Name: "usr/bin/serve", Type: Whiteout}, {Name: "opt/app", Type: Opaque}, file("opt/app/new", 0o755),
			file("lib/x86_64-linux-gnu/libc.so.6", 0o755), {Name: "etc/passwd-link", Type: Hardlink, Link: "etc/passwd"}},
		[]Entry{dir("lib")},
	)
	cases := map[string]bool{
		"/bin/sh":                             true,  // through the bin -> usr/bin symlink
		"/usr/bin/serve":                      false, // whited out
		"/bin/serve":                          false,
		"/opt/app/old":                        false, // hidden by the opaque marker
		"/opt/app/keep":                       false,
		"/opt/app/new":                        true,  // the opaque layer's own entry
		"/usr/lib/x86_64-linux-gnu/libc.so.6": true,  // landed behind lib -> usr/lib
		"/lib/x86_64-linux-gnu/libc.so.6":     false, // the upper lib/ dir replaced the symlink
		"/etc/passwd-link":                    true,
	}
	for name, want := range cases {
		if got := exists(fs, name); got != want {
			t.Errorf("%s exists = %v, want %v", name, got, want)
		}
	}
	hard, err := fs.Stat("/etc/passwd-link")
	if err != nil || hard.OriginName != "etc/passwd" || hard.OriginLayer != 0 || hard.Layer != 1 {
		t.Errorf("hard link: %+v %v, want content of etc/passwd from layer 0", hard, err)
	}
}

func TestResolveErrors(t *testing.T) {
	fs := build(t, []Entry{link("a", "b"), link("b", "a"), link("abs", "/etc/../../../../etc/hostname"), file("etc/hostname", 0o644),
		link("self", "."), file("f", 0o644)})
	if _, err := fs.Stat("/a"); !errors.Is(err, ErrLoop) {
		t.Errorf("loop: %v", err)
	}
	if node, err := fs.Stat("/abs"); err != nil || node.Path() != "/etc/hostname" {
		t.Errorf("absolute target climbing above the root: %v %v", node, err)
	}
	if _, err := fs.Stat("/f/x"); !errors.Is(err, ErrNotDir) {
		t.Errorf("file as a directory: %v", err)
	}
	if _, err := fs.Stat("/self/self/self/f"); err != nil {
		t.Errorf("self links: %v", err)
	}
	var pathErr *PathError
	if _, err := fs.Stat("/missing/x"); !errors.As(err, &pathErr) || pathErr.At != "/missing" {
		t.Errorf("missing: %v", err)
	}
}

func TestApplyRejectsBrokenLayers(t *testing.T) {
	for name, entries := range map[string][]Entry{
		"hard link to a missing file":  {{Name: "x", Type: Hardlink, Link: "nowhere"}},
		"hard link to a directory":     {dir("d"), {Name: "x", Type: Hardlink, Link: "d"}},
		"file under a file":            {file("f", 0o644), file("f/g", 0o644)},
		"entry through a symlink loop": {link("a", "b"), link("b", "a"), file("a/x", 0o644)},
	} {
		if err := New().Apply(0, entries); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestEntryFromHeader(t *testing.T) {
	for _, name := range []string{"../etc/passwd", "a/../../b", "./../x"} {
		if _, _, err := EntryFromHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg}); err == nil || !strings.Contains(err.Error(), "climbs") {
			t.Errorf("%q: %v, want an error", name, err)
		}
	}
	entry, ok, err := EntryFromHeader(&tar.Header{Name: "/usr/./bin//x", Typeflag: tar.TypeReg, Mode: 0o104755})
	if err != nil || !ok || entry.Name != "usr/bin/x" || entry.Mode != 0o4755 {
		t.Errorf("absolute name: %+v %v %v", entry, ok, err)
	}
	entry, _, _ = EntryFromHeader(&tar.Header{Name: "etc/.wh.hosts", Typeflag: tar.TypeReg})
	if entry.Type != Whiteout || entry.Name != "etc/hosts" {
		t.Errorf("whiteout: %+v", entry)
	}
	entry, _, _ = EntryFromHeader(&tar.Header{Name: "opt/.wh..wh..opq", Typeflag: tar.TypeReg})
	if entry.Type != Opaque || entry.Name != "opt" {
		t.Errorf("opaque: %+v", entry)
	}
	if _, _, err := EntryFromHeader(&tar.Header{Name: "x", Typeflag: tar.TypeLink, Linkname: "../../etc/shadow"}); err == nil {
		t.Error("hard link climbing out: no error")
	}
}

// FuzzApply merges arbitrary entries: it must end in an error or a
// filesystem whose every path resolves without panicking.
func FuzzApply(f *testing.F) {
	f.Add("bin>usr/bin;usr/bin/sh;lib>/usr/lib;lib/x", "usr/bin/-sh;lib/")
	f.Add("a>b;b>a;a/x", "")
	f.Add("d/;d/.wh..wh..opq;d/x", "x=d/x")
	f.Fuzz(func(t *testing.T, lower, upper string) {
		fs := New()
		for i, spec := range []string{lower, upper} {
			var entries []Entry
			for _, item := range strings.Split(spec, ";") {
				entries = append(entries, parseFuzzEntry(item))
			}
			if err := fs.Apply(i, entries); err != nil {
				return
			}
		}
		fs.Walk(func(n *Node) {
			fs.Resolve(n.Path(), true)
		})
	})
}

// parseFuzzEntry reads "name" (file), "name/" (dir), "name>target"
// (symlink), "name=target" (hard link), "-name" (whiteout).
func parseFuzzEntry(item string) Entry {
	switch {
	case strings.HasPrefix(item, "-"):
		name, _ := CleanName(item[1:])
		return Entry{Name: name, Type: Whiteout}
	case strings.Contains(item, ">"):
		name, target, _ := strings.Cut(item, ">")
		name, _ = CleanName(name)
		return Entry{Name: name, Type: Symlink, Link: target}
	case strings.Contains(item, "="):
		name, target, _ := strings.Cut(item, "=")
		name, _ = CleanName(name)
		target, _ = CleanName(target)
		return Entry{Name: name, Type: Hardlink, Link: target}
	case strings.HasSuffix(item, "/"):
		name, _ := CleanName(item)
		return Entry{Name: name, Type: Dir}
	}
	name, _ := CleanName(item)
	return Entry{Name: name, Type: Regular}
}

// TestLongPaths refuses a member name or a symlink target longer than
// Linux resolves, and takes one as long.
func TestLongPaths(t *testing.T) {
	long := strings.Repeat("d/", MaxPath/2)
	for _, c := range []struct {
		header tar.Header
		ok     bool
	}{
		{tar.Header{Name: long[:MaxPath], Typeflag: tar.TypeReg}, true},
		{tar.Header{Name: long + "f", Typeflag: tar.TypeReg}, false},
		{tar.Header{Name: "link", Linkname: long + "f", Typeflag: tar.TypeSymlink}, false},
	} {
		_, _, err := EntryFromHeader(&c.header)
		if (err == nil) != c.ok || err != nil && !strings.Contains(err.Error(), "longer than the 4096 Linux resolves") {
			t.Errorf("%d bytes: %v", len(c.header.Name)+len(c.header.Linkname), err)
		}
	}
}
