package python

import (
	"fmt"
	"slices"
	"testing"

	"github.com/modellint/modellint/lint/image/launch"
)

func TestParseWheel(t *testing.T) {
	cases := []struct {
		name, data       string
		compiled         bool
		glibc, musl, tag string
	}{
		{name: "manylinux_2_28", data: "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.43.0)\nRoot-Is-Purelib: false\nTag: cp311-cp311-manylinux_2_28_x86_64\n",
			compiled: true, glibc: "2.28", tag: "cp311-cp311-manylinux_2_28_x86_64"},
		{name: "manylinux2014 and its PEP 600 alias", data: "Wheel-Version: 1.0\nTag: cp311-cp311-manylinux_2_17_x86_64\nTag: cp311-cp311-manylinux2014_x86_64\n",
			compiled: true, glibc: "2.17", tag: "cp311-cp311-manylinux_2_17_x86_64"},
		{name: "the oldest tag wins", data: "Tag: cp39-cp39-manylinux_2_28_x86_64\nTag: cp39-cp39-manylinux1_x86_64\n",
			compiled: true, glibc: "2.5", tag: "cp39-cp39-manylinux1_x86_64"},
		{name: "manylinux2010", data: "Tag: cp38-cp38-manylinux2010_x86_64\n", compiled: true, glibc: "2.12", tag: "cp38-cp38-manylinux2010_x86_64"},
		{name: "compressed tag set", data: "Tag: cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64\n",
			compiled: true, glibc: "2.17", tag: "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64"},
		{name: "musllinux", data: "Tag: cp312-cp312-musllinux_1_2_x86_64\n", compiled: true, musl: "1.2", tag: "cp312-cp312-musllinux_1_2_x86_64"},
		{name: "the oldest musl wins", data: "Tag: cp312-cp312-musllinux_1_2_x86_64\nTag: cp312-cp312-musllinux_1_1_x86_64\n",
			compiled: true, musl: "1.1", tag: "cp312-cp312-musllinux_1_1_x86_64"},
		{name: "both libcs", data: "Tag: cp312-cp312-musllinux_1_1_x86_64\nTag: cp312-cp312-manylinux_2_17_x86_64\n",
			compiled: true, glibc: "2.17", musl: "1.1", tag: "cp312-cp312-manylinux_2_17_x86_64"},
		{name: "pure", data: "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
		{name: "built on the machine", data: "Tag: cp311-cp311-linux_x86_64\n"},
		{name: "other system", data: "Tag: cp311-cp311-macosx_11_0_arm64\n"},
		{name: "malformed", data: "Tag: manylinux_2_28_x86_64\nTag\n\x00\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wheel, compiled := parseWheel([]byte(tc.data))
			if compiled && !wheel.RunsOn("amd64") {
				t.Errorf("an x86_64 wheel does not run on amd64: %+v", wheel)
			}
			if compiled && wheel.RunsOn("arm64") {
				t.Errorf("an x86_64 wheel runs on arm64: %+v", wheel)
			}
			if compiled != tc.compiled || wheel.Glibc != tc.glibc || wheel.Musl != tc.musl || wheel.Tag != tc.tag {
				t.Errorf("parseWheel = %+v, %v; want glibc %q musl %q tag %q compiled %v", wheel, compiled, tc.glibc, tc.musl, tc.tag, tc.compiled)
			}
		})
	}
}

func TestWheels(t *testing.T) {
	const site = "/usr/local/lib/python3.11/site-packages"
	wheel := func(dist, tag string) string {
		return fmt.Sprintf(`{path: %s/%s.dist-info/WHEEL, content: "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: %s\n"}`, site, dist, tag)
	}
	cases := []struct {
		name, files string
		argv        []string // python3 /app/main.py when nil
		libc        string
		want        []string
	}{
		{name: "Debian 9 libc by its file name",
			files: `[{path: /lib/x86_64-linux-gnu/libc-2.24.so, elf: stub-amd64}, {path: /lib/x86_64-linux-gnu/libc.so.6, symlink: libc-2.24.so}, ` +
				wheel("numpy-2.1.0", "cp311-cp311-manylinux_2_28_x86_64") + `, ` + wheel("requests-2.32.3", "py3-none-any") + `, ` +
				wheel("orjson-3.10.7", "cp311-cp311-manylinux_2_17_x86_64") + `, {path: /app/main.py, content: "import numpy\nimport json\n"}]`,
			libc: "glibc 2.24 /lib/x86_64-linux-gnu/libc.so.6",
			want: []string{"numpy 2.1.0 glibc=2.28 musl= [numpy] imported", "orjson 3.10.7 glibc=2.17 musl= [orjson]"}},
		{name: "top_level.txt names the module",
			files: `[{path: /lib64/libc-2.17.so, elf: stub-amd64}, {path: /lib64/libc.so.6, symlink: libc-2.17.so}, ` +
				wheel("opencv_python_headless-4.10.0.84", "cp37-abi3-manylinux_2_17_x86_64") +
				`, {path: ` + site + `/opencv_python_headless-4.10.0.84.dist-info/top_level.txt, content: "cv2\n"}, {path: ` + site + `/cv2/__init__.py, content: ""}, {path: /app/main.py, content: "import cv2\n"}]`,
			libc: "glibc 2.17 /lib64/libc.so.6",
			want: []string{"opencv_python_headless 4.10.0.84 glibc=2.17 musl= [cv2] imported"}},
		{name: "glibc version from libc.so.6's version definitions",
			files: `[{path: /lib/x86_64-linux-gnu/libc.so.6, elf: old-libc}, ` + wheel("tokenizers-0.20.0", "cp39-abi3-manylinux_2_34_x86_64") + `, {path: /app/main.py, content: "import numpy\n"}]`,
			libc:  "glibc 2.28 /lib/x86_64-linux-gnu/libc.so.6",
			want:  []string{"tokenizers 0.20.0 glibc=2.34 musl= [tokenizers]"}},
		{name: "musl image",
			files: `[{path: /lib/ld-musl-x86_64.so.1, elf: stub-amd64}, ` + wheel("numpy-2.1.0", "cp311-cp311-manylinux_2_17_x86_64") + `, {path: /app/main.py, content: "import numpy\n"}]`,
			libc:  "musl /lib/ld-musl-x86_64.so.1",
			want:  []string{"numpy 2.1.0 glibc=2.17 musl= [numpy] imported"}},
		{name: "the package python -m runs is imported",
			files: `[{path: /lib/x86_64-linux-gnu/libc-2.36.so, elf: stub-amd64}, {path: /lib/x86_64-linux-gnu/libc.so.6, symlink: libc-2.36.so}, ` +
				wheel("numpy-2.1.0", "cp311-cp311-manylinux_2_17_x86_64") + `, {path: ` + site + `/numpy/__main__.py, content: ""}]`,
			argv: []string{"python3", "-m", "numpy"}, libc: "glibc 2.36 /lib/x86_64-linux-gnu/libc.so.6",
			want: []string{"numpy 2.1.0 glibc=2.17 musl= [numpy] imported"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			argv := tc.argv
			if argv == nil {
				argv = []string{"python3", "/app/main.py"}
			}
			_, a := openImage(t, tc.files, launch.Spec{Argv: argv}, nil)
			var got []string
			for _, w := range a.Wheels {
				line := fmt.Sprintf("%s %s glibc=%s musl=%s %v", w.Dist, w.Version, w.Glibc, w.Musl, w.Modules)
				if w.Imported {
					line += " imported"
				}
				got = append(got, line)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("wheels:\n got %q\nwant %q", got, tc.want)
			}
			libc := ""
			if a.Libc != nil {
				libc = "glibc " + a.Libc.Glibc + " " + a.Libc.Path
				if a.Libc.Musl {
					libc = "musl " + a.Libc.Path
				}
			}
			if libc != tc.libc {
				t.Errorf("libc = %q, want %q", libc, tc.libc)
			}
		})
	}
}

func FuzzParseWheel(f *testing.F) {
	for _, seed := range []string{"Wheel-Version: 1.0\nTag: cp311-cp311-manylinux_2_28_x86_64\n", "Tag: py3-none-any\n",
		"Tag: cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64\nTag: cp312-cp312-musllinux_1_2_x86_64\n", "Tag: cp311-cp311-linux_x86_64\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		wheel, compiled := parseWheel(data)
		if !compiled && (wheel.Glibc != "" || wheel.Musl != "") {
			t.Fatalf("%q: a wheel that is not compiled has a libc %+v", data, wheel)
		}
		if compiled && wheel.Glibc == "" && wheel.Musl == "" {
			t.Fatalf("%q: a compiled wheel without a libc", data)
		}
		if wheel.Glibc != "" && wheel.Tag == "" {
			t.Fatalf("%q: glibc %s without the tag it comes from", data, wheel.Glibc)
		}
	})
}
