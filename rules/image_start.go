package rules

import (
	"fmt"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/launch/python"
)

// imageReferences are cited by the start-path rules.
var startReferences = []string{
	"https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/#notes",
	"https://github.com/opencontainers/runc/blob/main/libcontainer/standard_init_linux.go",
	"https://man7.org/linux/man-pages/man2/execve.2.html",
}

// offlineNote is how every image rule's doc states what happens when the
// image cannot be read.
const offlineNote = " When the image is not read (--offline without a mapping, or a registry that cannot be reached), " +
	"the rule is reported as skipped with the reason, never as passed."

var entrypointNotFound = &lint.Rule{
	ID: "MDL301", Name: "entrypoint-not-found", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "argv[0] — the manifest's command, else the image's ENTRYPOINT, else CMD — is not in the image.",
		Why: "The runtime looks argv[0] up inside the image (PATH from the image and pod env, symlinks resolved inside the " +
			"image root) just before exec. When it is missing the container never starts: \"exec: \\\"serve\\\": executable " +
			"file not found in $PATH\" or \"no such file or directory\" (exit 127/128), and the pod sits in CrashLoopBackOff " +
			"or RunContainerError. modellint resolves the path the same way in the image's merged layers: whiteouts, opaque " +
			"directories and symlinked parents (/bin -> usr/bin) included. Wrapper scripts are followed to the programs they " +
			"run, and process supervisors to theirs: supervisord's programs, runit's and s6's service dirs, whose run scripts " +
			"may be execline (#!/command/execlineb -P, read when they are plain words and \"quoted strings\", the " +
			"chain-loaders with-contenv, s6-setuidgid, s6-envdir, s6-notifyoncheck, fdmove, fdclose, fdswap, redirfd, cd, " +
			"export, umask and exec peeled off); a program one of them cannot find fails the same way, reported by the " +
			"shell or the execline program that execs it." + offlineNote,
		Bad: "# docker build -t registry.example.com/serving/app:1.4.0 .\nFROM scratch\nCOPY server /opt/server/bin/serve\n" +
			"---\ncontainers:\n  - name: server\n    image: registry.example.com/serving/app:1.4.0\n" +
			"    command: [\"/usr/local/bin/serve\"]",
		Good: "# docker build -t registry.example.com/serving/app:1.4.0 .\nFROM scratch\nCOPY server /opt/server/bin/serve\n" +
			"---\ncontainers:\n  - name: server\n    image: registry.example.com/serving/app:1.4.0\n" +
			"    command: [\"/opt/server/bin/serve\"]",
		Fix:        "Point command (or the Dockerfile's ENTRYPOINT) at a file the image has, or add the file to the image.",
		References: startReferences,
	},
	Check: checkStart(launch.NotFound),
}

var entrypointNotExecutable = &lint.Rule{
	ID: "MDL302", Name: "entrypoint-not-executable", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "argv[0] is a file without an execute bit for the user the container runs as.",
		Why: "execve needs an execute bit for the process's user: the owner's bits when it owns the file, the group's when " +
			"it is in the group, else everyone's (root needs any one). A script copied without its mode, or rebuilt on a " +
			"machine that lost it, fails with \"exec: \\\"/entrypoint.sh\\\": permission denied\" (exit 126) on every " +
			"start. A bare name whose only match in PATH is not executable fails as \"executable file not found in $PATH\". " +
			"The user is runAsUser/runAsGroup from the securityContext, else the image's USER resolved through its " +
			"/etc/passwd and /etc/group, whose memberships count unless the pod's supplementalGroupsPolicy is Strict (then only runAsGroup, supplementalGroups and fsGroup do); directories above the file must be searchable by that user too: a program " +
			"`pip install --user` put in /root/.local/bin has its execute bits, but root's 0700 /root keeps every other " +
			"uid out, and the finding then names that directory rather than asking for an execute bit. A shell " +
			"wrapper (a #!/bin/sh or #!/bin/bash entrypoint, or `sh -c \"…\"`) is followed to the program it runs last " +
			"or execs, with \"$@\" and ${VAR} filled in from the container's args and env, and that program is checked " +
			"the same way: the official TF Serving image starts tf_serving_entrypoint.sh, which runs " +
			"tensorflow_model_server, and a server without its execute bit fails there with \"Permission denied\" (exit " +
			"126). A wrapper that switches the user on the way (`exec gosu app server`, su-exec, setpriv --reuid, runuser " +
			"-u, chroot --userspec, s6-setuidgid), in a script or at the head of the container's own command (`command: [gosu, app, serve]`), " +
			"makes the program run as that user, and it is checked as that user: a root container that " +
			"drops to app before it execs a server under /root fails although root alone would not (see MDL308 for a " +
			"switch that itself fails). A command the script builds at run time cannot be followed: the check is then " +
			"skipped, with the reason." + offlineNote,
		Bad: "# docker build -t registry.example.com/serving/tf:2.19.0-gpu .\nFROM scratch\nCOPY server /bin/sh\n" +
			"COPY server /usr/bin/tensorflow_model_server\n" +
			"COPY <<EOF /usr/bin/tf_serving_entrypoint.sh\n#!/bin/sh\nexec /usr/bin/tensorflow_model_server \"$@\"\nEOF\n" +
			"ENTRYPOINT [\"/usr/bin/tf_serving_entrypoint.sh\"]\n---\nimage: registry.example.com/serving/tf:2.19.0-gpu",
		Good: "# docker build -t registry.example.com/serving/tf:2.19.0-gpu-1 .\nFROM scratch\nCOPY server /bin/sh\n" +
			"COPY server /usr/bin/tensorflow_model_server\n" +
			"COPY --chmod=0755 <<EOF /usr/bin/tf_serving_entrypoint.sh\n#!/bin/sh\nexec /usr/bin/tensorflow_model_server \"$@\"\nEOF\n" +
			"ENTRYPOINT [\"/usr/bin/tf_serving_entrypoint.sh\"]\n---\nimage: registry.example.com/serving/tf:2.19.0-gpu-1",
		Fix:        "Give the file an execute bit in the image (`COPY --chmod=0755`, or `RUN chmod 0755 FILE` in the same stage), or run as a user allowed to execute it; when a directory above it keeps the user out, give that directory the search bit or install the program outside it.",
		References: startReferences,
	},
	Check: checkStart(launch.NotExecutable),
}

var interpreterMissing = &lint.Rule{
	ID: "MDL303", Name: "interpreter-missing", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "The entrypoint's #! interpreter, the program /usr/bin/env looks up, or the ELF loader (PT_INTERP) is not in the image, or the #! line ends in CR.",
		Why: "The kernel runs a script's #! interpreter and a dynamic binary's loader (/lib64/ld-linux-x86-64.so.2 for glibc, " +
			"/lib/ld-musl-x86_64.so.1 for musl). When either is missing, exec fails with \"no such file or directory\" although " +
			"the entrypoint exists — the classic glibc binary on an Alpine image, or a script saved with Windows line " +
			"endings whose interpreter becomes \"/bin/bash\\r\". A file that is neither ELF nor a #! script fails with " +
			"\"exec format error\"." + offlineNote,
		Bad: "# docker build -t registry.example.com/serving/app:1.0 .\nFROM scratch\n# a shell, but no bash\nCOPY server /bin/sh\n" +
			"COPY server /opt/app/serve\nCOPY --chmod=0755 <<EOF /entrypoint.sh\n#!/bin/bash\nexec /opt/app/serve \"$@\"\nEOF\n" +
			"ENTRYPOINT [\"/entrypoint.sh\"]\n---\nimage: registry.example.com/serving/app:1.0",
		Good: "# docker build -t registry.example.com/serving/app:1.1 .\nFROM scratch\nCOPY server /bin/sh\n" +
			"COPY server /opt/app/serve\nCOPY --chmod=0755 <<EOF /entrypoint.sh\n#!/bin/sh\nexec /opt/app/serve \"$@\"\nEOF\n" +
			"ENTRYPOINT [\"/entrypoint.sh\"]\n---\nimage: registry.example.com/serving/app:1.1",
		Fix:        "Install the interpreter, point the #! line at one the image has, convert the script to LF line endings, or build the binary for the image's libc (or statically).",
		References: append([]string{"https://man7.org/linux/man-pages/man8/ld.so.8.html"}, startReferences...),
	},
	Check: checkStart(launch.InterpreterMissing),
}

var glibcTooOld = &lint.Rule{
	ID: "MDL304", Name: "glibc-too-old", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "A binary on the start path needs a GLIBC_x.y (or other symbol version) newer than the image's library defines; (warning) a needed shared library is not found.",
		Why: "A binary built on a newer distribution records the symbol versions it needs (.gnu.version_r, e.g. GLIBC_2.34). " +
			"The loader checks them against the versions the image's libc.so.6 defines (.gnu.version_d) and stops with " +
			"\"version `GLIBC_2.34' not found (required by /app)\" before main runs. modellint replays that check from the " +
			"ELF tables of the start path's binaries (argv[0] or its interpreter) and of the libraries they need, found as " +
			"ld.so searches (RPATH, LD_LIBRARY_PATH, RUNPATH, ld.so.conf, default dirs). A DT_NEEDED library that is in none " +
			"of those directories is a warning (\"cannot open shared object file\"); the NVIDIA driver libraries the container " +
			"toolkit mounts at run time (libcuda.so.1, libnvidia-*) are not expected in the image.\n\n" +
			"Python wheels with compiled extensions record the libc they were built for in their dist-info WHEEL file " +
			"(Tag: cp311-cp311-manylinux_2_28_x86_64; manylinux1 = glibc 2.5, manylinux2010 = 2.12, manylinux2014 = 2.17; " +
			"musllinux_1_2 = musl). pip on the image itself would pick a matching build, but a venv or site-packages " +
			"copied from a build stage on a newer distribution keeps wheels the image's libc cannot load: the import fails " +
			"with \"version `GLIBC_2.28' not found\". A wheel whose glibc is newer than the image's libc.so.6 (its newest " +
			"GLIBC_ version), or that is built for the other libc (musllinux on glibc, manylinux on Alpine), is an error " +
			"when the app imports it and a warning otherwise; pure wheels (py3-none-any) and wheels built on the machine " +
			"(linux_x86_64) are not judged." + offlineNote,
		Bad: "# docker build -t registry.example.com/serving/app:1.0 .\nFROM scratch\n" +
			"COPY glibc/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2\n# the runtime's libc is older than the one /app was built against\n" +
			"COPY glibc-2.28/libc.so.6 /lib/x86_64-linux-gnu/libc.so.6\nCOPY server-glibc /app\nENTRYPOINT [\"/app\"]\n" +
			"---\nimage: registry.example.com/serving/app:1.0",
		Good: "# docker build -t registry.example.com/serving/app:1.1 .\nFROM scratch\n" +
			"COPY glibc/ld-linux-x86-64.so.2 /lib64/ld-linux-x86-64.so.2\n" +
			"COPY glibc/libc.so.6 /lib/x86_64-linux-gnu/libc.so.6\nCOPY server-glibc /app\nENTRYPOINT [\"/app\"]\n" +
			"---\nimage: registry.example.com/serving/app:1.1",
		Fix:        "Build the binary (or pip install the wheels) in a stage with the same (or an older) glibc than the runtime image, or move the runtime image to a newer distribution.",
		References: []string{"https://man7.org/linux/man-pages/man8/ld.so.8.html", "https://refspecs.linuxfoundation.org/LSB_5.0.0/LSB-Core-generic/LSB-Core-generic/symversion.html"},
	},
	Check: func(pass *lint.Pass) {
		for _, c := range imageChecks(pass, true) {
			analysis := c.analyze(pass)
			reportProblems(pass, c, analysis, pass.Rule.Severity, launch.VersionMissing)
			reportProblems(pass, c, analysis, lint.Warning, launch.LibraryMissing)
			reportWheels(pass, c)
		}
	},
}

// reportWheels reports the compiled wheels of the container's Python that
// were built for a newer glibc than the image's, or for the other libc:
// an error for each the app imports, one warning for the others (only
// what imports them fails).
func reportWheels(pass *lint.Pass, c *imageCheck) {
	if c.bundle == nil {
		return
	}
	program := c.bundle.Program
	if program == nil || program.Libc == nil || len(program.Wheels) == 0 {
		return
	}
	libc := program.Libc
	if !libc.Musl && libc.Glibc == "" {
		if libc.Path != "" {
			pass.Skip("the wheel tags are not checked: the GLIBC versions of " + libc.Path + " were not read")
		}
		return
	}
	var failing []wheelFailure
	for _, wheel := range program.Wheels {
		failure := wheelFailure{wheel: wheel}
		switch {
		case libc.Musl && wheel.Musl == "":
			failure.need = fmt.Sprintf("glibc %s (%s)", wheel.Glibc, wheel.Tag)
			failure.symptom = fmt.Sprintf("the image has musl (%s) and no glibc: importing it fails with \"ImportError: Error loading shared library libc.so.6\"", libc.Path)
		case libc.Musl:
			continue
		case wheel.Glibc == "":
			failure.need = fmt.Sprintf("musl %s (%s)", wheel.Musl, wheel.Tag)
			failure.symptom = fmt.Sprintf("the image's libc is glibc %s (%s): importing it fails with \"ImportError: libc.musl-x86_64.so.1: cannot open shared object file\"", libc.Glibc, libc.Path)
		case python.VersionBefore(libc.Glibc, wheel.Glibc):
			failure.need = fmt.Sprintf("glibc %s or newer (%s)", wheel.Glibc, wheel.Tag)
			failure.symptom = fmt.Sprintf("the image's %s is glibc %s: importing it fails with \"ImportError: %s: version `GLIBC_%s' not found\"", libc.Path, libc.Glibc, libc.Path, wheel.Glibc)
		default:
			continue
		}
		failing = append(failing, failure)
	}
	reportWheelFailures(pass, c, failing, func(subject string, f wheelFailure) string {
		return fmt.Sprintf("%s: %s is built for %s, but %s %s; install the wheel in the image itself (pip picks the build for "+
			"its libc) instead of copying it from a build stage with a newer or other libc, or base the image on a distribution "+
			"whose libc the wheel supports", c.label(), subject, f.need, f.symptom, where(c.img, f.layer, f.wheel.Path))
	})
}

// wheelFailure is a wheel that cannot load in the image, with why.
type wheelFailure struct {
	wheel         python.Wheel
	need, symptom string
	layer         string
}

// reportWheelFailures reports an error for each failing wheel the app
// imports, and one warning, on the first of the others, naming the rest.
func reportWheelFailures(pass *lint.Pass, c *imageCheck, failing []wheelFailure, message func(subject string, f wheelFailure) string) {
	var others []wheelFailure
	for _, f := range failing {
		location := lint.ImageLocation{Reference: c.img.Reference, Path: f.wheel.Path}
		if node, err := c.img.FS().Stat(f.wheel.Path); err == nil {
			location.Layer, f.layer = c.img.LayerDigest(node), c.img.LayerOf(node)
		}
		if !f.wheel.Imported {
			others = append(others, f)
			continue
		}
		subject := "the app imports " + strings.Join(f.wheel.Modules, ", ") + ", whose wheel " + f.wheel.Dist + " " + f.wheel.Version
		pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: c.field(), Image: location, Message: message(subject, f)})
	}
	if len(others) == 0 {
		return
	}
	first := others[0]
	subject := "the installed wheel " + first.wheel.Dist + " " + first.wheel.Version
	if len(others) > 1 {
		var names []string
		for _, f := range others[1:min(len(others), 6)] {
			names = append(names, f.wheel.Dist+" "+f.wheel.Version)
		}
		if len(others) > 6 {
			names = append(names, fmt.Sprintf("%d more", len(others)-6))
		}
		subject += fmt.Sprintf(" (one of %d such wheels the app does not import itself; also %s)", len(others), strings.Join(names, ", "))
	}
	location := lint.ImageLocation{Reference: c.img.Reference, Path: first.wheel.Path}
	if node, err := c.img.FS().Stat(first.wheel.Path); err == nil {
		location.Layer = c.img.LayerDigest(node)
	}
	pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: c.field(), Image: location, Message: message(subject, first)})
}

var archMismatch = &lint.Rule{
	ID: "MDL305", Name: "arch-mismatch", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "The image, or a binary on its start path, is for another CPU architecture than the nodes.",
		Why: "A node runs only its own architecture: an arm64 image on amd64 nodes (or an arm64-labelled image that holds an " +
			"x86-64 binary, a cross-build gone wrong) fails with \"exec format error\" on every start. The nodes' " +
			"architecture is the pod's kubernetes.io/arch node selector, else the config's cluster.architecture; without " +
			"either, only the binaries are compared with the image's own label. Compiled Python wheels are compared by the " +
			"architecture of their WHEEL tags (manylinux_2_17_aarch64 in an amd64 image: a venv copied from another " +
			"platform's build); an error when the app imports one, a warning otherwise." + offlineNote,
		Bad: "# docker build --platform linux/arm64 -t registry.example.com/serving/app:1.0 .\n" +
			"FROM scratch\nCOPY server /serve\nENTRYPOINT [\"/serve\"]\n" +
			"---\nimage: registry.example.com/serving/app:1.0\nnodeSelector:\n  kubernetes.io/arch: amd64",
		Good: "# docker buildx build --platform linux/amd64,linux/arm64 -t registry.example.com/serving/app:1.1 .\n" +
			"FROM scratch\nCOPY server /serve\nENTRYPOINT [\"/serve\"]\n" +
			"---\nimage: registry.example.com/serving/app:1.1\nnodeSelector:\n  kubernetes.io/arch: amd64",
		Fix:        "Build for the nodes' platform (docker buildx build --platform linux/amd64), publish a multi-platform index, or schedule the pod on matching nodes.",
		References: []string{"https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-arch", "https://docs.docker.com/build/building/multi-platform/"},
	},
	Check: checkArchMismatch,
}

func checkArchMismatch(pass *lint.Pass) {
	for _, c := range imageChecks(pass, false) {
		config := c.img.Config
		if c.arch != "" && config != nil && config.Architecture != "" && config.Architecture != c.arch {
			pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: c.field(), Image: lint.ImageLocation{Reference: c.img.Reference}, Message: fmt.Sprintf("%s: the image is built for %s but the nodes are %s: every start fails with \"exec format error\" %s; build it "+
				"for linux/%s (docker buildx build --platform linux/%s) or schedule the pod on %s nodes", c.label(), c.img.Architecture(), c.arch, where(c.img, "", ""), c.arch, c.arch, config.Architecture)})
			continue
		}
		if c.img.FS() == nil {
			pass.Skip(skipNoLayers)
			continue
		}
		analysis := c.analyze(pass)
		reportProblems(pass, c, analysis, pass.Rule.Severity, launch.ArchMismatch)
		reportWheelArch(pass, c)
	}
}

// reportWheelArch reports the compiled wheels of the container's Python
// built for another CPU than the nodes' (or the image's): a venv copied
// from a build on another platform. An error when the app imports them.
func reportWheelArch(pass *lint.Pass, c *imageCheck) {
	if c.bundle == nil || c.bundle.Program == nil {
		return
	}
	arch, from := c.arch, "the nodes are"
	if arch == "" && c.img.Config != nil {
		arch, from = c.img.Config.Architecture, "the image is built for"
	}
	var failing []wheelFailure
	for _, wheel := range c.bundle.Program.Wheels {
		if arch != "" && !wheel.RunsOn(arch) {
			failing = append(failing, wheelFailure{wheel: wheel})
		}
	}
	reportWheelFailures(pass, c, failing, func(subject string, f wheelFailure) string {
		return fmt.Sprintf("%s: %s is built for %s (%s) but %s %s: importing it fails with \"ImportError: …so: cannot open "+
			"shared object file\" %s; install the wheels in an image built for linux/%s (docker buildx build --platform "+
			"linux/%s) instead of copying them from another platform's build",
			c.label(), subject, strings.Join(f.wheel.Machines, ", "), f.wheel.Tag, from, arch, where(c.img, f.layer, f.wheel.Path), arch, arch)
	})
}

// checkStart reports the start analysis's problems of one kind, in every
// container whose image was read.
func checkStart(kind launch.Kind) func(*lint.Pass) {
	return func(pass *lint.Pass) {
		for _, c := range imageChecks(pass, true) {
			reportProblems(pass, c, c.analyze(pass), pass.Rule.Severity, kind)
		}
	}
}
