package elfinfo

import (
	"debug/elf"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// hostELFs are binaries and libraries of the machine running the tests,
// real files from a real toolchain.
func hostELFs(t *testing.T) []string {
	t.Helper()
	var found []string
	for _, pattern := range []string{"/bin/ls", "/usr/bin/gcc", "/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6",
		"/lib/x86_64-linux-gnu/libstdc++.so.6", "/lib64/ld-linux-x86-64.so.2", "/usr/local/go/bin/go"} {
		if resolved, err := filepath.EvalSymlinks(pattern); err == nil {
			found = append(found, resolved)
		}
	}
	if len(found) == 0 {
		t.Skip("no host ELF files to compare with debug/elf on " + runtime.GOOS)
	}
	return found
}

// TestParseMatchesDebugELF compares the program-header parse with Go's
// debug/elf, which reads the same tables through the section headers.
func TestParseMatchesDebugELF(t *testing.T) {
	for _, file := range hostELFs(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			info, err := Parse(Full(data))
			if err != nil {
				t.Fatal(err)
			}
			reference, err := elf.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer reference.Close()
			if info.Machine != reference.Machine || info.Class != reference.Class {
				t.Errorf("machine %v/%v, debug/elf says %v/%v", info.Machine, info.Class, reference.Machine, reference.Class)
			}
			libs, _ := reference.ImportedLibraries()
			if !reflect.DeepEqual(info.Needed, libs) && !(len(info.Needed) == 0 && len(libs) == 0) {
				t.Errorf("needed %v, debug/elf says %v", info.Needed, libs)
			}
			needs, err := reference.DynamicVersionNeeds()
			if err == nil {
				var want []VersionNeed
				for _, need := range needs {
					entry := VersionNeed{File: need.Name}
					for _, dep := range need.Needs {
						entry.Versions = append(entry.Versions, dep.Dep)
					}
					want = append(want, entry)
				}
				if !reflect.DeepEqual(info.VersionNeeds, want) {
					t.Errorf("version needs\n got %v\nwant %v", info.VersionNeeds, want)
				}
			}
			defs, err := reference.DynamicVersions()
			if err == nil {
				var want []string
				for _, def := range defs {
					if def.Flags&elf.VER_FLG_BASE == 0 {
						want = append(want, def.Name)
					}
				}
				if !reflect.DeepEqual(info.VersionDefs, want) {
					t.Errorf("version defs\n got %v\nwant %v", info.VersionDefs, want)
				}
			}
			for _, prog := range reference.Progs {
				if prog.Type == elf.PT_INTERP {
					data := make([]byte, prog.Filesz)
					prog.ReadAt(data, 0)
					if want := string(data[:len(data)-1]); info.Interp != want {
						t.Errorf("interp %q, want %q", info.Interp, want)
					}
				}
			}
		})
	}
}

// TestParseFromCapturedRanges checks the capture protocol: starting from a
// prefix, Wanted names the ranges still needed, and once they are added
// the parse equals the full-file parse.
func TestParseFromCapturedRanges(t *testing.T) {
	for _, file := range hostELFs(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Parse(Full(data))
			if err != nil {
				t.Fatal(err)
			}
			sparse := &Sparse{Size: int64(len(data))}
			sparse.Add(0, data[:min(len(data), 512)])
			rounds := 0
			for {
				ranges, err := Wanted(sparse)
				if err != nil {
					t.Fatal(err)
				}
				if len(ranges) == 0 {
					break
				}
				if rounds++; rounds > 4 {
					t.Fatalf("still wanting %v after 4 rounds", ranges)
				}
				for _, r := range ranges {
					sparse.Add(r.Offset, data[r.Offset:r.End()])
				}
			}
			got, err := Parse(sparse)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("sparse parse differs:\n got %+v\nwant %+v", got, want)
			}
			if sparse.Captured() > int64(len(data)) {
				t.Errorf("captured %d bytes of a %d-byte file", sparse.Captured(), len(data))
			}
			t.Logf("%d of %d bytes captured in %d rounds", sparse.Captured(), len(data), rounds)
		})
	}
}

func TestParseRejectsNonELF(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("#!/bin/sh\n"), []byte("\x7fELF")} {
		if _, err := Parse(Full(data)); !errors.Is(err, ErrNotELF) && err == nil {
			t.Errorf("%q: no error", data)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, file := range []string{"/bin/true", "/lib/x86_64-linux-gnu/libdl.so.2"} {
		if data, err := os.ReadFile(file); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sparse := Full(data)
		info, err := Parse(sparse)
		if err == nil && info == nil {
			t.Fatal("nil info without error")
		}
		if _, err := Wanted(sparse); errors.Is(err, ErrMissing) {
			t.Fatal("a whole file cannot miss bytes")
		}
	})
}
