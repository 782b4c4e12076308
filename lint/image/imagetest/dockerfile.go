package imagetest

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// contextELF is the build context a Dockerfile read by ParseDockerfile
// copies from: file name → ELF kind, "stub" being the stub executable for
// the image's architecture (docs/rules.md lists them for readers). Its
// files have mode 0755; every other file a COPY names is written in the
// Dockerfile as a heredoc (COPY <<EOF DEST), mode 0644 unless --chmod says
// otherwise.
var contextELF = map[string]string{
	"server":                     "stub",     // a static executable
	"server-glibc":               "dynamic",  // linked against glibc, needs GLIBC_2.34
	"server-musl":                "musl",     // its loader is /lib/ld-musl-x86_64.so.1
	"glibc/ld-linux-x86-64.so.2": "loader",   // the host's glibc loader
	"glibc/libc.so.6":            "libc",     // the host's glibc (2.34 or newer)
	"glibc-2.28/libc.so.6":       "old-libc", // defines GLIBC_2.2.5 … GLIBC_2.28 only
}

// base is an image a Dockerfile may start FROM.
type base struct {
	files []FileSpec
	env   []string
}

// bases are the images FROM may name: scratch, and a stand-in for the
// official Python image with what modellint reads of it: a shell, the
// interpreter, the stdlib's landmark (os.py) and an empty site-packages,
// and the image's PATH.
var bases = map[string]base{
	"scratch": {},
	"python:3.11-slim": {
		files: []FileSpec{
			{Path: "/bin", Symlink: "usr/bin"},
			{Path: "/usr", Dir: true}, {Path: "/usr/bin", Dir: true},
			{Path: "/usr/bin/sh", ELF: "stub-amd64"},
			{Path: "/usr/local", Dir: true}, {Path: "/usr/local/bin", Dir: true},
			{Path: "/usr/local/bin/python3.11", ELF: "stub-amd64"},
			{Path: "/usr/local/bin/python3", Symlink: "python3.11"},
			{Path: "/usr/local/lib", Dir: true}, {Path: "/usr/local/lib/python3.11", Dir: true},
			{Path: "/usr/local/lib/python3.11/os.py", Content: "import abc\n"},
			{Path: "/usr/local/lib/python3.11/lib-dynload", Dir: true},
			{Path: "/usr/local/lib/python3.11/site-packages", Dir: true},
		},
		env: []string{"PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin"},
	},
}

// ParseDockerfile reads an image written as a Dockerfile of a small
// subset, the form the rules' documentation shows images in:
//
//	# docker build -t registry.example.com/serving/app:1.4.0 .
//	FROM scratch
//	COPY --chmod=0755 server /opt/server/bin/serve
//	COPY <<EOF /app/main.py
//	import torch
//	EOF
//	USER 1000
//	ENTRYPOINT ["/opt/server/bin/serve"]
//
// The first line is the build command: `docker build [--platform P] -t
// REF .` for one platform (linux/amd64 by default), or `docker buildx
// build --platform P1,P2 -t REF .` for an index. Then FROM scratch (or
// python:3.11-slim, see bases), and
// COPY (from the build context or a heredoc, with --chmod and --chown), RUN
// (mkdir -p, ln -s and chmod only), ENV, USER, WORKDIR, LABEL, ENTRYPOINT
// and CMD (exec or shell form), as docker builds them. Other comment lines
// are ignored.
func ParseDockerfile(text string) (*ImageSpec, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	spec := &ImageSpec{}
	if err := parseBuildCommand(spec, lines[0]); err != nil {
		return nil, err
	}
	var files []FileSpec
	dirs := map[string]bool{}
	// addParents creates the directories above a path, as COPY does.
	addParents := func(name string) {
		var parents []string
		for dir := path.Dir(name); dir != "/" && dir != "." && !dirs[dir]; dir = path.Dir(dir) {
			parents = append(parents, dir)
		}
		for _, dir := range slices.Backward(parents) {
			dirs[dir] = true
			files = append(files, FileSpec{Path: dir, Dir: true})
		}
	}
	from := false
	for i := 1; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		instruction, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if !from && instruction != "FROM" {
			return nil, fmt.Errorf("line %d: %s before FROM", i+1, instruction)
		}
		switch instruction {
		case "FROM":
			base, ok := bases[rest]
			if from || !ok {
				return nil, fmt.Errorf("line %d: want one FROM scratch or FROM python:3.11-slim", i+1)
			}
			from = true
			for _, file := range base.files {
				if file.Dir || file.Symlink != "" {
					dirs[file.Path] = true // a COPY beneath goes through it
				}
				files = append(files, file)
			}
			spec.Config.Env = append(spec.Config.Env, base.env...)
		case "COPY":
			file, source, err := copyFlags(rest)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			switch {
			case source == "<<EOF":
				var body []string
				for i++; i < len(lines) && lines[i] != "EOF"; i++ {
					body = append(body, lines[i])
				}
				if i == len(lines) {
					return nil, fmt.Errorf("COPY <<EOF %s: no EOF line", file.Path)
				}
				file.Content = strings.Join(body, "\n") + "\n"
			case contextELF[source] != "":
				file.ELF = contextELF[source]
				if file.ELF == "stub" {
					file.ELF = "stub-" + specArch(spec)
				}
			default:
				return nil, fmt.Errorf("line %d: COPY %s: not in the build context (%s) nor a heredoc", i+1, source, contextNames())
			}
			addParents(file.Path)
			files = append(files, file)
		case "RUN":
			words := strings.Fields(rest)
			switch {
			case len(words) == 3 && words[0] == "mkdir" && words[1] == "-p" && path.IsAbs(words[2]):
				addParents(words[2] + "/x")
			case len(words) == 4 && words[0] == "ln" && words[1] == "-s" && path.IsAbs(words[3]):
				addParents(words[3])
				files = append(files, FileSpec{Path: words[3], Symlink: words[2]})
			case len(words) == 3 && words[0] == "chmod" && path.IsAbs(words[2]):
				if !chmod(files, words[2], words[1]) {
					return nil, fmt.Errorf("line %d: chmod %s: no such file", i+1, words[2])
				}
			default:
				return nil, fmt.Errorf("line %d: RUN %s: only mkdir -p DIR, ln -s TARGET LINK and chmod MODE PATH are built", i+1, rest)
			}
		case "ENV":
			for _, word := range strings.Fields(rest) {
				if !strings.Contains(word, "=") {
					return nil, fmt.Errorf("line %d: ENV %s: want NAME=VALUE", i+1, word)
				}
				spec.Config.Env = append(spec.Config.Env, word)
			}
		case "USER":
			spec.Config.User = rest
		case "WORKDIR":
			spec.Config.WorkingDir = rest
			addParents(rest + "/x")
		case "LABEL":
			key, value, ok := strings.Cut(rest, "=")
			if !ok {
				return nil, fmt.Errorf("line %d: LABEL %s: want KEY=VALUE", i+1, rest)
			}
			if spec.Config.Labels == nil {
				spec.Config.Labels = map[string]string{}
			}
			spec.Config.Labels[key] = strings.Trim(value, `"`)
		case "ENTRYPOINT", "CMD":
			var argv []string
			if strings.HasPrefix(rest, "[") {
				if err := json.Unmarshal([]byte(rest), &argv); err != nil {
					return nil, fmt.Errorf("line %d: %s %s: %w", i+1, instruction, rest, err)
				}
			} else {
				argv = []string{"/bin/sh", "-c", rest}
			}
			if instruction == "ENTRYPOINT" {
				// Docker drops an inherited CMD when ENTRYPOINT is set.
				spec.Config.Entrypoint, spec.Config.Cmd = argv, nil
			} else {
				spec.Config.Cmd = argv
			}
		default:
			return nil, fmt.Errorf("line %d: %s is not built", i+1, instruction)
		}
	}
	if !from {
		return nil, fmt.Errorf("no FROM")
	}
	spec.Layers = []LayerSpec{{Files: files}}
	return spec, nil
}

// parseBuildCommand reads the reference and platforms from the comment
// line that builds the image.
func parseBuildCommand(spec *ImageSpec, line string) error {
	words := strings.Fields(line)
	wrong := fmt.Errorf("first line %q: want %q or %q", line, "# docker build [--platform P] -t REF .", "# docker buildx build --platform P1,P2 -t REF .")
	if len(words) < 4 || words[0] != "#" || words[1] != "docker" || words[len(words)-1] != "." {
		return wrong
	}
	words = words[2 : len(words)-1]
	buildx := words[0] == "buildx"
	if buildx {
		words = words[1:]
	}
	if len(words) == 0 || words[0] != "build" {
		return wrong
	}
	var platforms []string
	for i := 1; i < len(words); i++ {
		switch {
		case words[i] == "-t" && i+1 < len(words):
			spec.Ref = words[i+1]
			i++
		case words[i] == "--platform" && i+1 < len(words):
			platforms = strings.Split(words[i+1], ",")
			i++
		default:
			return wrong
		}
	}
	switch {
	case spec.Ref == "":
		return wrong
	case buildx && len(platforms) > 0:
		spec.Platforms = platforms
	case len(platforms) > 1:
		return fmt.Errorf("first line %q: docker build makes one platform; several are docker buildx build's", line)
	case len(platforms) == 1:
		osName, arch, ok := strings.Cut(platforms[0], "/")
		if !ok || osName != "linux" {
			return fmt.Errorf("first line %q: platform %s: want linux/ARCH", line, platforms[0])
		}
		spec.Config.Architecture = arch
	}
	return nil
}

// copyFlags reads COPY's flags, source and destination.
func copyFlags(rest string) (FileSpec, string, error) {
	words := strings.Fields(rest)
	var file FileSpec
	for len(words) > 0 && strings.HasPrefix(words[0], "--") {
		flag, value, _ := strings.Cut(words[0], "=")
		switch flag {
		case "--chmod":
			file.Mode = value
		case "--chown":
			user, group, _ := strings.Cut(value, ":")
			if _, err := fmt.Sscan(user, &file.UID); err != nil {
				return file, "", fmt.Errorf("COPY --chown=%s: want numeric UID[:GID]", value)
			}
			file.GID = file.UID
			if group != "" {
				if _, err := fmt.Sscan(group, &file.GID); err != nil {
					return file, "", fmt.Errorf("COPY --chown=%s: want numeric UID[:GID]", value)
				}
			}
		default:
			return file, "", fmt.Errorf("COPY %s: only --chmod and --chown are built", flag)
		}
		words = words[1:]
	}
	if len(words) != 2 || !path.IsAbs(words[1]) || strings.HasSuffix(words[1], "/") {
		return file, "", fmt.Errorf("COPY %s: want SOURCE /ABSOLUTE/FILE", rest)
	}
	file.Path = words[1]
	return file, words[0], nil
}

// chmod sets the mode of the last entry at name.
func chmod(files []FileSpec, name, mode string) bool {
	for i := len(files) - 1; i >= 0; i-- {
		if files[i].Path == name {
			files[i].Mode = mode
			return true
		}
	}
	return false
}

// specArch is the architecture the image's stub executables are built for:
// its first platform's.
func specArch(spec *ImageSpec) string {
	if len(spec.Platforms) > 0 {
		_, arch, _ := strings.Cut(spec.Platforms[0], "/")
		return arch
	}
	if spec.Config.Architecture != "" {
		return spec.Config.Architecture
	}
	return "amd64"
}

func contextNames() string {
	names := make([]string, 0, len(contextELF))
	for name := range contextELF {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
