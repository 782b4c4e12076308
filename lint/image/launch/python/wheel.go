package python

import (
	"bufio"
	"bytes"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint/image/rootfs"
)

// Wheel is an installed distribution with compiled code whose wheel tags
// (its dist-info WHEEL file) say which C library it was built for.
type Wheel struct {
	// Dist and Version are from the dist-info directory name; Path is its
	// WHEEL file.
	Dist, Version, Path string
	// Tag is the Tag: line the requirement comes from
	// ("cp311-cp311-manylinux_2_28_x86_64").
	Tag string
	// Glibc is the oldest glibc any of its manylinux tags runs on ("2.28");
	// Musl the oldest musl of its musllinux tags ("1.2"). A wheel with both
	// runs on either libc.
	Glibc, Musl string
	// Machines are the CPU architectures its Linux tags are built for, as
	// the tags write them ("x86_64", "aarch64").
	Machines []string
	// Modules are the top-level modules it provides (top_level.txt, else
	// its name); Imported says the app imports one of them.
	Modules  []string
	Imported bool
}

// Libc is the C library of the image.
type Libc struct {
	// Glibc is the newest GLIBC_ version libc.so.6 defines ("2.24"); Musl
	// says the image has musl's loader and no glibc. Path is the file that
	// says so (libc.so.6 as the loader names it, whatever it links to).
	Glibc string
	Musl  bool
	Path  string
}

var (
	manylinuxTag = lazyregexp.New(`^(manylinux|musllinux)_(\d+)_(\d+)_([a-z0-9_]+)$`)
	legacyTag    = lazyregexp.New(`^manylinux(1|2010|2014)_([a-z0-9_]+)$`)
	libcFileName = lazyregexp.New(`^libc-(\d+\.\d+)\.so$`)
)

// legacyGlibc are the glibc versions of the manylinux tags before PEP 600.
var legacyGlibc = map[string]string{"1": "2.5", "2010": "2.12", "2014": "2.17"}

// maxWheels bounds the distributions of one site dir read for tags.
const maxWheels = 4096

// wheels records the compiled wheels installed for an interpreter, and
// the image's C library they are judged against.
func (c *checker) wheels(in *Interpreter) {
	if c.analysis.Libc == nil {
		c.analysis.Libc = c.libc()
	}
	for _, site := range in.Site {
		node, err := c.r.fs.Stat(site)
		if err != nil || node.Type != rootfs.Dir {
			continue
		}
		names := node.Children()
		slices.Sort(names)
		read := 0
		for _, child := range names {
			m := distInfo.FindStringSubmatch(child)
			if m == nil {
				continue
			}
			if read++; read > maxWheels {
				c.unchecked(0, "%s: more than %d distributions; the wheel tags of the rest are not read", site, maxWheels)
				break
			}
			file := path.Join(site, child, "WHEEL")
			data, exists, ok := c.r.text(file)
			if !exists || !ok {
				continue // installed without a wheel (an egg, a source build), or asked for
			}
			wheel, compiled := parseWheel(data)
			if !compiled {
				continue
			}
			wheel.Dist, wheel.Version, wheel.Path = m[1], m[2], file
			wheel.Modules = c.topLevel(path.Join(site, child), m[1])
			if !slices.ContainsFunc(c.analysis.Wheels, func(w Wheel) bool { return w.Path == file }) {
				c.analysis.Wheels = append(c.analysis.Wheels, wheel)
			}
		}
	}
}

// parseWheel reads a WHEEL file's Tag: lines (PEP 427: python-abi-platform,
// one a line). compiled is false for pure wheels (platform any), wheels
// built on the machine (linux_x86_64: against whatever libc it had), and
// those of other systems.
func parseWheel(data []byte) (wheel Wheel, compiled bool) {
	scanner := bufio.NewScanner(bytes.NewReader(data))
	for scanner.Scan() {
		key, value, ok := strings.Cut(scanner.Text(), ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), "Tag") {
			continue
		}
		tag := strings.TrimSpace(value)
		parts := strings.Split(tag, "-")
		if len(parts) != 3 {
			continue
		}
		for _, platform := range strings.Split(parts[2], ".") {
			var family, version, machine string
			if m := manylinuxTag.FindStringSubmatch(platform); m != nil {
				family, version, machine = m[1], m[2]+"."+m[3], m[4]
			} else if m := legacyTag.FindStringSubmatch(platform); m != nil {
				family, version, machine = "manylinux", legacyGlibc[m[1]], m[2]
			} else if strings.HasPrefix(platform, "linux_") {
				return Wheel{}, false
			} else {
				continue
			}
			compiled = true
			if !slices.Contains(wheel.Machines, machine) {
				wheel.Machines = append(wheel.Machines, machine)
			}
			switch {
			case family == "manylinux" && (wheel.Glibc == "" || VersionBefore(version, wheel.Glibc)):
				wheel.Glibc = version
				wheel.Tag = tag
			case family == "musllinux" && (wheel.Musl == "" || VersionBefore(version, wheel.Musl)):
				wheel.Musl = version
				if wheel.Glibc == "" {
					wheel.Tag = tag
				}
			}
		}
	}
	return wheel, compiled
}

// wheelMachines are the architecture names of wheel tags for GOARCH names.
var wheelMachines = map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686", "ppc64le": "ppc64le", "s390x": "s390x", "arm": "armv7l"}

// RunsOn says a wheel's tags include the architecture (GOARCH) given;
// true when the architecture is unknown here.
func (w Wheel) RunsOn(arch string) bool {
	machine, known := wheelMachines[arch]
	return !known || slices.Contains(w.Machines, machine)
}

// VersionBefore compares two MAJOR.MINOR versions (glibc 2.17 before 2.28).
func VersionBefore(a, b string) bool {
	majorA, minorA := splitMajorMinor(a)
	majorB, minorB := splitMajorMinor(b)
	return majorA < majorB || majorA == majorB && minorA < minorB
}

func splitMajorMinor(v string) (int, int) {
	major, minor, _ := strings.Cut(v, ".")
	m, _ := strconv.Atoi(major)
	n, _ := strconv.Atoi(minor)
	return m, n
}

// topLevel is what a distribution provides to import: its top_level.txt,
// else its name as an import name.
func (c *checker) topLevel(distInfoDir, dist string) []string {
	if data, exists, ok := c.r.text(path.Join(distInfoDir, "top_level.txt")); exists && ok {
		var modules []string
		for _, line := range strings.Fields(string(data)) {
			if line = strings.Trim(line, "/"); line != "" && !strings.Contains(line, "/") {
				modules = append(modules, line)
			}
		}
		if len(modules) > 0 {
			return modules
		}
	}
	return []string{strings.ToLower(strings.ReplaceAll(dist, "-", "_"))}
}

// libcDirs are where a glibc's libc.so.6 lives on the distributions
// images are built from.
var libcDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib"}

// libc finds the image's C library: libc.so.6 and the newest GLIBC_
// version it defines (its file name on older glibc, libc-2.24.so), or
// musl's loader.
func (c *checker) libc() *Libc {
	for _, dir := range libcDirs {
		file := path.Join(dir, "libc.so.6")
		node, resolved, err := c.r.fs.Resolve(file, true)
		if err != nil || node.Type != rootfs.Regular {
			continue
		}
		if m := libcFileName.FindStringSubmatch(path.Base(resolved)); m != nil {
			return &Libc{Glibc: m[1], Path: file}
		}
		facts := c.r.img.Facts(node)
		if facts == nil || facts.ELF == nil {
			if facts == nil || facts.ELFError == "" {
				c.r.needs = append(c.r.needs, node)
			}
			return &Libc{Path: file}
		}
		newest := ""
		for _, def := range facts.ELF.VersionDefs {
			version, ok := strings.CutPrefix(def, "GLIBC_")
			if !ok || strings.Count(version, ".") < 1 || !isDigits(strings.ReplaceAll(version, ".", "")) {
				continue
			}
			parts := strings.SplitN(version, ".", 3)
			version = parts[0] + "." + parts[1]
			if newest == "" || VersionBefore(newest, version) {
				newest = version
			}
		}
		return &Libc{Glibc: newest, Path: file}
	}
	for _, dir := range []string{"/lib", "/usr/lib"} {
		node, err := c.r.fs.Stat(dir)
		if err != nil || node.Type != rootfs.Dir {
			continue
		}
		for _, name := range node.Children() {
			if strings.HasPrefix(name, "ld-musl-") {
				return &Libc{Musl: true, Path: path.Join(dir, name)}
			}
		}
	}
	return &Libc{}
}

// markImported records the installed top-level modules the app imports,
// for the wheels they come from.
func (c *checker) markImported() {
	for i := range c.analysis.Wheels {
		wheel := &c.analysis.Wheels[i]
		for _, module := range wheel.Modules {
			if c.analysis.imported[module] {
				wheel.Imported = true
			}
		}
	}
}
