package rules

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/internal/redact"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/image"
	"github.com/modellint/modellint/lint/image/cuda"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/launch/python"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

// tritonCUDA122 is the image of MDL306's examples: a Triton built on a CUDA
// 12.2 base, whose NVIDIA_REQUIRE_CUDA the container toolkit enforces.
const tritonCUDA122 = "# docker build -t registry.example.com/serving/triton:23.08-py3 .\nFROM scratch\n" +
	"COPY server /opt/tritonserver/bin/tritonserver\nENV CUDA_VERSION=12.2.1 NVIDIA_REQUIRE_CUDA=cuda>=12.2\n" +
	"ENTRYPOINT [\"/opt/tritonserver/bin/tritonserver\"]\n"

var cudaDriverTooOld = &lint.Rule{
	ID: "MDL306", Name: "cuda-driver-too-old", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "The image's CUDA toolkit needs a newer NVIDIA driver than the GPU nodes have (cluster.nvidiaDriver, or the --cluster nodes' labels).",
		Why: "NVIDIA's base images declare NVIDIA_REQUIRE_CUDA (\"cuda>=12.2 brand=tesla,driver>=470,driver<471 …\"); the " +
			"NVIDIA container toolkit compares it with the node's driver and refuses to create the container: " +
			"\"nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.2, please update your driver\". An image " +
			"that only carries CUDA_VERSION, a com.nvidia.cuda.version label or /usr/local/cuda/version.json starts, then fails " +
			"at the first CUDA call (\"CUDA driver version is insufficient for CUDA runtime version\") when the driver is older " +
			"than its CUDA major's minor-version-compatibility floor; between that floor and the toolkit's own minimum it runs " +
			"with limited features (warning). The minimum drivers are NVIDIA's published table (CUDA Toolkit release notes, " +
			"Table 3). An image without a toolkit of its own (a plain python base with pip's torch) is judged by the newest CUDA " +
			"a framework its Python imports was built with, since the wheel carries its CUDA runtime: torch/version.py " +
			"(cuda = '12.1'), TensorFlow's tensorflow/python/platform/build_info.py (cuda_version), onnxruntime's " +
			"capi/build_and_package_info.py (cuda_version), jax's jax_cuda12_plugin/jax_cuda12_pjrt wheels (CUDA 12), or " +
			"NVIDIA's CUDA wheels (nvidia_cuda_runtime_cu12-12.1.105.dist-info: CUDA 12.1). A framework built for a newer " +
			"CUDA than the base image's toolkit (torch cu121 on a CUDA 11.8 image) is judged by its own CUDA, after the " +
			"image's NVIDIA_REQUIRE_CUDA let the container start. When torch brings an older CUDA than a base image's toolkit " +
			"that no NVIDIA_REQUIRE_CUDA names (torch cu117 over /usr/local/cuda 12.4) and the driver runs torch's, a driver " +
			"too old for the toolkit is a warning: the toolkit fails the pod only if something in the image loads it. " +
			"The check runs for containers that request NVIDIA GPUs (MIG slices among them). The driver is " +
			"cluster.nvidiaDriver, else the oldest among the --cluster nodes the pod may land on (GPU Feature Discovery's nvidia.com/cuda.driver.major, " +
			".minor and .rev labels); the check is skipped when neither says." + offlineNote,
		Bad: "# .modellint.yaml\ncluster: {nvidiaDriver: \"525.60.13\"}\n---\n" + tritonCUDA122 +
			"---\nimage: registry.example.com/serving/triton:23.08-py3\nresources:\n  limits: {nvidia.com/gpu: 1}",
		Good: "# .modellint.yaml\ncluster: {nvidiaDriver: \"535.104.05\"}\n---\n" + tritonCUDA122 +
			"---\nimage: registry.example.com/serving/triton:23.08-py3\nresources:\n  limits: {nvidia.com/gpu: 1}",
		Fix:        "Upgrade the GPU nodes' driver to at least the version the message names, or use an image built for the CUDA version the driver supports.",
		References: []string{"https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/", "https://docs.nvidia.com/deploy/cuda-compatibility/", "https://github.com/NVIDIA/nvidia-container-toolkit/blob/main/internal/config/image/cuda_image.go"},
	},
	Check: checkCUDADriver,
}

func checkCUDADriver(pass *lint.Pass) {
	configured := pass.Config.Cluster.NVIDIADriver
	var driver cuda.Version
	var ok bool
	switch {
	case configured != "":
		if driver, ok = cuda.ParseVersion(configured); !ok {
			pass.Skip("cluster.nvidiaDriver " + strconv.Quote(configured) + " is not a version like 535.104.05")
			return
		}
	case pass.Cluster != nil:
		// configured becomes "535.104.05 (from the cluster's nodes: …)" for the messages.
		if driver, configured, ok = clusterDriver(pass); !ok {
			pass.Skip("the config does not set cluster.nvidiaDriver and no node of the cluster the pod may land on " +
				"has GPU Feature Discovery's driver labels (" + cluster.LabelDriverMajor + " …)")
			return
		}
	default:
		pass.Skip("the config does not set cluster.nvidiaDriver, the GPU nodes' driver version")
		return
	}
	var coverage lint.Coverage
	for _, c := range imageChecks(pass, false) {
		if c.container != nil {
			if _, nvidia := requestsNVIDIA(pass, c.container); !nvidia {
				continue
			}
		}
		toolkit, found := imageCUDA(c)
		coverage.Checked()
		if !found {
			continue // not a CUDA image: MDL405 judges GPU requests without CUDA
		}
		location := lint.ImageLocation{Reference: c.img.Reference}
		if strings.HasPrefix(toolkit.From, "/") {
			location.Path, _, _ = strings.Cut(toolkit.From, ", ")
		}
		full, knownFull, fullText := fullDriver(toolkit)
		driverCUDA, _ := cuda.DriverCUDA(driver)
		if toolkit.Require != "" && !toolkit.RequireDisabled {
			satisfied, err := cuda.Satisfied(toolkit.Require, driver, pass.Config.Cluster.GPUBrand)
			if err != nil {
				pass.Skip(err.Error())
				continue
			}
			if !satisfied {
				pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: c.field(), Image: location, Message: fmt.Sprintf("%s: the image requires %q (NVIDIA_REQUIRE_CUDA) but the nodes' driver %s supports CUDA %s: the NVIDIA "+
					"container toolkit refuses to start the container (\"requirement error: unsatisfied condition: cuda>=%s\") %s; "+
					"upgrade the GPU nodes to driver %s or newer, or use an image built for CUDA %s", c.label(), toolkit.Require, configured, orUnknown(driverCUDA), toolkit.Version, where(c.img, "", ""), fullText, orUnknown(driverCUDA))})
				continue
			}
		}
		// A framework wheel built for a newer CUDA than the base image's
		// brings that CUDA's runtime, and it meets the driver at the
		// first CUDA call whatever NVIDIA_REQUIRE_CUDA let start.
		if newer, ok := newerFrameworkCUDA(c, toolkit); ok {
			toolkit = newer
			location.Path, _, _ = strings.Cut(toolkit.From, ", ")
			full, knownFull, fullText = fullDriver(toolkit)
		} else if toolkit.Require != "" && !toolkit.RequireDisabled {
			continue // the container toolkit checked it
		}
		floor, knownFloor := cuda.MinorCompatibleDriver(toolkit.Version)
		switch {
		case knownFloor && driver.Compare(floor) < 0:
			severity, unless := pass.Rule.Severity, ""
			if framework, ok := olderBundledCUDA(c, toolkit, driver); ok {
				severity = lint.Warning
				unless = fmt.Sprintf(" if anything in the image loads the base image's CUDA libraries (%s %s brings its own CUDA %s runtime, "+
					"which this driver runs)", framework.Name, framework.Version, framework.CUDA)
			}
			pass.Report(lint.Diagnostic{Severity: severity, Path: c.field(), Image: location, Message: fmt.Sprintf("%s: the image's CUDA %s (from %s) needs NVIDIA driver %s or newer (%s at the least, with minor-version "+
				"compatibility) but the nodes run %s: the first CUDA call fails with \"CUDA driver version is insufficient for "+
				"CUDA runtime version\"%s %s; upgrade the GPU nodes' driver or use an image built for CUDA %s", c.label(), toolkit.Version, toolkit.From, fullText, floor.DriverString(), configured, unless, where(c.img, "", location.Path), orUnknown(driverCUDA))})
		case knownFull && driver.Compare(full) < 0:
			pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: c.field(), Image: location, Message: fmt.Sprintf("%s: the image's CUDA %s (from %s) needs NVIDIA driver %s for full functionality but the nodes run %s: it runs "+
				"under minor-version compatibility, where PTX JIT of code newer than CUDA %s fails %s; upgrade the driver to %s", c.label(), toolkit.Version, toolkit.From, full.DriverString(), configured, orUnknown(driverCUDA), where(c.img, "", location.Path), full.DriverString())})
		}
	}
	coverage.SkipIfNone(pass, "no container requests an NVIDIA GPU ("+pass.Config.GPUResourceName()+", or a MIG slice)")
}

// fullDriver is the driver a toolkit needs for full functionality, and
// how messages name it.
func fullDriver(toolkit cuda.Toolkit) (cuda.Version, bool, string) {
	full, known := cuda.MinimumDriver(toolkit.Version)
	if known {
		return full, true, full.DriverString()
	}
	return full, false, "a driver for CUDA " + toolkit.Version.MajorMinor().String()
}

func orUnknown(v cuda.Version) string {
	if v == nil {
		return "(older than CUDA 10.0)"
	}
	return v.String()
}

// imageCUDA finds the CUDA toolkit an image was built with: the env and
// labels NVIDIA's base images set, else the toolkit's version file, else
// the newest CUDA a framework wheel the container's Python imports was
// built with (torch's version.py, TensorFlow's and onnxruntime's build
// info, jax's and NVIDIA's CUDA wheels), which brings its own CUDA runtime.
func imageCUDA(c *imageCheck) (cuda.Toolkit, bool) {
	toolkit, found := cuda.FromEnv(c.img.Env(), configLabels(c))
	if found {
		return toolkit, true
	}
	for _, file := range []string{"/usr/local/cuda/version.json", "/usr/local/cuda/version.txt"} {
		if data, ok := c.img.ReadText(file); ok {
			toolkit.Version, found = cuda.FromVersionJSON(data)
			toolkit.From = file
			return toolkit, found
		}
	}
	if framework, ok := newestFrameworkCUDA(c); ok {
		version, _ := cuda.ParseVersion(framework.CUDA)
		toolkit.Version, toolkit.From = version, strings.TrimSpace(framework.Path+", "+framework.Name+" "+framework.Version)
		toolkit.FromFramework = true
		return toolkit, true
	}
	return toolkit, false
}

// newerFrameworkCUDA is the CUDA of a framework the container's Python
// imports when it is newer than the base image's toolkit: a torch cu121
// wheel on a CUDA 11.8 base image brings the CUDA 12.1 runtime, and that
// is what the driver must support.
func newerFrameworkCUDA(c *imageCheck, toolkit cuda.Toolkit) (cuda.Toolkit, bool) {
	if toolkit.FromFramework {
		return cuda.Toolkit{}, false
	}
	framework, ok := newestFrameworkCUDA(c)
	if !ok {
		return cuda.Toolkit{}, false
	}
	version, _ := cuda.ParseVersion(framework.CUDA)
	if toolkit.Version != nil && version.Compare(toolkit.Version.MajorMinor()) <= 0 {
		return cuda.Toolkit{}, false
	}
	from := strings.TrimSpace(framework.Path + ", " + framework.Name + " " + framework.Version)
	if toolkit.Version != nil {
		from += fmt.Sprintf(", over the base image's CUDA %s from %s", toolkit.Version, toolkit.From)
	}
	return cuda.Toolkit{Version: version, From: from, FromFramework: true}, true
}

// olderBundledCUDA is the framework whose own CUDA runtime the
// container's Python loads, when that CUDA is older than the base image's
// and the driver runs it: torch wheels bring theirs (inside the wheel or
// as NVIDIA's runtime wheel), so the base image's CUDA, which no
// NVIDIA_REQUIRE_CUDA made the container toolkit check, matters only if
// something else in the image loads it. The finding on it is then a
// warning.
func olderBundledCUDA(c *imageCheck, toolkit cuda.Toolkit, driver cuda.Version) (python.Framework, bool) {
	if toolkit.FromFramework || toolkit.Version == nil {
		return python.Framework{}, false
	}
	framework, ok := newestFrameworkCUDA(c)
	if !ok || framework.Name != "torch" && !framework.Runtime {
		return python.Framework{}, false
	}
	version, _ := cuda.ParseVersion(framework.CUDA)
	floor, known := cuda.MinorCompatibleDriver(version)
	if version.Compare(toolkit.Version.MajorMinor()) >= 0 || !known || driver.Compare(floor) < 0 {
		return python.Framework{}, false
	}
	return framework, true
}

// frameworkCUDA is the first framework the container's Python has.
func frameworkCUDA(c *imageCheck) (python.Framework, bool) {
	if c.bundle == nil || c.bundle.Program == nil || len(c.bundle.Program.Frameworks) == 0 {
		return python.Framework{}, false
	}
	return c.bundle.Program.Frameworks[0], true
}

// newestFrameworkCUDA is the framework built with the newest CUDA among
// those the container's Python has (the first of equals): its runtime is
// the one that needs the newest driver.
func newestFrameworkCUDA(c *imageCheck) (python.Framework, bool) {
	if c.bundle == nil || c.bundle.Program == nil {
		return python.Framework{}, false
	}
	frameworks := c.bundle.Program.Frameworks
	cpuBuild, cudaBuild := false, false
	for _, framework := range frameworks {
		cpuBuild = cpuBuild || framework.CPUEvidence != ""
		cudaBuild = cudaBuild || !framework.Runtime && framework.CUDA != ""
	}
	var newest python.Framework
	var newestVersion cuda.Version
	for _, framework := range frameworks {
		if framework.Runtime && cpuBuild && !cudaBuild {
			continue // NVIDIA's libraries beside a CPU torch: nothing calls them
		}
		version, ok := cuda.ParseVersion(framework.CUDA)
		if ok && (newestVersion == nil || version.Compare(newestVersion) > 0) {
			newest, newestVersion = framework, version
		}
	}
	return newest, newestVersion != nil
}

func configLabels(c *imageCheck) map[string]string {
	if c.img.Config == nil {
		return nil
	}
	return c.img.Config.Config.Labels
}

var shellFormArgsDropped = &lint.Rule{
	ID: "MDL307", Name: "shell-form-args-dropped", Severity: lint.Warning,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "The image's ENTRYPOINT is in shell form (/bin/sh -c \"…\") and the container passes args it silently ignores.",
		Why: "`ENTRYPOINT serve --port 8500` is stored as [\"/bin/sh\", \"-c\", \"serve --port 8500\"]. Args from the manifest " +
			"(or the image's CMD) are appended after the script, where the shell takes them as $0, $1 … — a script that does not " +
			"use \"$@\" drops them: --model_name or --port never reach the server, which starts with its defaults and answers " +
			"404 for the model. An image without /bin/sh (distroless) cannot run a shell-form entrypoint at all; MDL301 reports " +
			"that." + offlineNote,
		Bad: "# docker build -t registry.example.com/serving/tf:2.19.0 .\nFROM scratch\nCOPY server /bin/sh\n" +
			"COPY server /usr/bin/tensorflow_model_server\nENV PATH=/usr/bin:/bin\n" +
			"ENTRYPOINT tensorflow_model_server --rest_api_port=8501\n" +
			"---\nimage: registry.example.com/serving/tf:2.19.0\nargs: [\"--model_name=resnet\"]",
		Good: "# docker build -t registry.example.com/serving/tf:2.19.0-1 .\nFROM scratch\nCOPY server /bin/sh\n" +
			"COPY server /usr/bin/tensorflow_model_server\nENV PATH=/usr/bin:/bin\n" +
			"ENTRYPOINT [\"tensorflow_model_server\", \"--rest_api_port=8501\"]\n" +
			"---\nimage: registry.example.com/serving/tf:2.19.0-1\nargs: [\"--model_name=resnet\"]",
		Fix:        "Use the exec form of ENTRYPOINT (a JSON array), or end the shell-form script with `exec … \"$@\"`, or set the whole command in the manifest's command.",
		References: []string{"https://docs.docker.com/reference/dockerfile/#entrypoint", "https://docs.docker.com/reference/dockerfile/#understand-how-cmd-and-entrypoint-interact"},
	},
	Check: func(pass *lint.Pass) {
		for _, c := range imageChecks(pass, false) {
			if !c.spec.ShellForm || len(c.spec.DroppedArgs) == 0 {
				continue
			}
			field := c.field()
			from := "the image's CMD"
			if c.spec.ArgsFrom == "args" {
				from = "the manifest's args"
				if c.container != nil {
					field = c.container.Path + ".args"
				}
			}
			pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: field, Image: lint.ImageLocation{Reference: c.img.Reference}, Message: fmt.Sprintf("%s: the image's ENTRYPOINT is shell form (%q) and ignores %s %q, which the shell receives as $0 … without "+
				"using them %s; use an exec-form ENTRYPOINT (a JSON array), end the script with `exec … \"$@\"`, or give the "+
				"whole command in the manifest's command", c.label(), strings.Join(c.img.Config.Config.Entrypoint, " "), from, c.spec.DroppedArgs, where(c.img, "", ""))})
		}
	},
}

// tritonUser is the image of MDL308's examples: it runs as a user named in
// its /etc/passwd.
const tritonUser = "# docker build -t registry.example.com/serving/triton:24.08-py3 .\nFROM scratch\n" +
	"COPY server /opt/tritonserver/bin/tritonserver\nCOPY <<EOF /etc/passwd\nroot:x:0:0:root:/root:/bin/sh\n" +
	"triton-server:x:1000:1000::/home/triton-server:/bin/sh\nEOF\nUSER triton-server\n" +
	"ENTRYPOINT [\"/opt/tritonserver/bin/tritonserver\"]\n"

var userInvalid = &lint.Rule{
	ID: "MDL308", Name: "user-invalid", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "The image's USER names no entry in its /etc/passwd (or /etc/group), runAsNonRoot meets a root or non-numeric user, a wrapper (gosu, su-exec, setpriv, runuser, chroot --userspec, s6-setuidgid, supervisord's user=) cannot switch to its user, or vLLM runs as a uid with no /etc/passwd entry.",
		Why: "runc resolves a named USER through the image's /etc/passwd; a name that is not there stops every start with " +
			"\"unable to find user app: no matching entries in passwd file\". With runAsNonRoot: true the kubelet must prove " +
			"the uid is not 0 before it starts anything: an image that runs as root (no USER, USER root or 0) fails with " +
			"\"container has runAsNonRoot and image will run as root\", and a named USER without runAsUser fails with " +
			"\"container has runAsNonRoot and image has non-numeric user (app), cannot verify user is non-root\" " +
			"(CreateContainerConfigError).\n\n" +
			"An entrypoint that starts as root often drops to a user before it execs the server (`exec gosu app server`, " +
			"su-exec, setpriv --reuid, runuser -u, chroot --userspec=app:app /, s6-setuidgid in an s6 run script, a supervisord " +
			"program's user=), or the " +
			"container's own command does (`command: [gosu, app, serve]`, ENTRYPOINT [\"su-exec\", \"app\", \"serve\"]); what " +
			"runs after it is checked as that " +
			"user (MDL302 names it: \"uid 1000 (app, via gosu)\"). The wrapper exits, and the container with it, when the " +
			"name it is given is not in the image's /etc/passwd (gosu: \"unable to find user app: no matching entries in " +
			"passwd file\"; a number needs no entry: gosu 1000, su-exec 1000:1000, s6-setuidgid 1000:1000, though chroot " +
			"given a uid without a group looks it up for the gid) or when the " +
			"container does not run as root: switching needs CAP_SETUID and CAP_SETGID, so with " +
			"runAsUser 1000 gosu fails with \"error: failed switching to \\\"app\\\": operation not permitted\" (a " +
			"setuid-root wrapper is let through). A user named by a variable set at run time, or looked up after a script " +
			"followed may add it (useradd, usermod, writes to /etc/passwd, a supervisor's init scripts), is not judged.\n\n" +
			"A numeric runAsUser (or USER) needs no entry to start, but some servers ask for the user's name. vLLM 0.22 and " +
			"later import torch._dynamo as `import vllm` runs, and torch before 2.13 names its Inductor cache dir " +
			"(/tmp/torchinductor_NAME, in torch/_inductor/runtime/cache_dir_utils.py) with Python's getpass.getuser(), which " +
			"reads LOGNAME, USER, LNAME and USERNAME and then asks pwd.getpwuid(): for a uid the image's /etc/passwd does not " +
			"list (OpenShift's arbitrary uids, a runAsUser picked by policy) the server exits before it listens with " +
			"\"KeyError: 'getpwuid(): uid not found: 1001'\" (an OSError on Python 3.13). TORCHINDUCTOR_CACHE_DIR does not " +
			"help: torch._inductor.codecache calls default_cache_dir() at import. modellint reports it when the uid has no " +
			"entry and none of those four variables is set (image ENV, env, or a ConfigMap's envFrom): an error when the image " +
			"tag says vLLM 0.22 or later, the image's torch is older than 2.13, and the image's /etc/passwd is writable by " +
			"the uid's group or others (OpenShift-ready images make it so); a warning when either version is unknown, or when " +
			"/etc/passwd is not writable: CRI-O then writes an entry for the uid (server/container_create.go " +
			"setupContainerUser) and the server starts, while containerd adds none. A volume mounted over /etc/passwd (a " +
			"ConfigMap or Secret at /etc/passwd through subPath, or at /etc) is the file getpwuid() reads instead, so the " +
			"uid's account is not known and this is not reported." + offlineNote,
		Bad: tritonUser + "---\nimage: registry.example.com/serving/triton:24.08-py3\nsecurityContext:\n  runAsNonRoot: true",
		Good: tritonUser + "---\nimage: registry.example.com/serving/triton:24.08-py3\nsecurityContext:\n" +
			"  runAsNonRoot: true\n  runAsUser: 1000",
		Fix: "Use a numeric USER in the Dockerfile (USER 1000:1000), or set runAsUser (and runAsGroup) in the securityContext; create the user in the image if the name is meant. For a wrapper that switches the user, create the account it names, or run the container as root and let the wrapper drop privileges (or drop the wrapper and set runAsUser). For vLLM under a uid without an account, set env USER (any name), add the uid to the image's /etc/passwd, or run as a uid the image has.",
		References: []string{"https://kubernetes.io/docs/tasks/configure-pod-container/security-context/", "https://github.com/kubernetes/kubernetes/issues/56503",
			"https://github.com/pytorch/pytorch/blob/main/torch/_inductor/runtime/cache_dir_utils.py",
			"https://github.com/pytorch/pytorch/issues/140765", "https://github.com/pytorch/pytorch/pull/184208",
			"https://github.com/vllm-project/vllm/issues/44548", "https://docs.python.org/3/library/getpass.html#getpass.getuser",
			"https://github.com/cri-o/cri-o/blob/main/utils/utils.go", "https://github.com/tianon/gosu",
			"https://skarnet.org/software/s6/s6-setuidgid.html"},
	},
	Check: checkUserInvalid,
}

func checkUserInvalid(pass *lint.Pass) {
	for _, c := range imageChecks(pass, false) {
		written := ""
		if c.img.Config != nil {
			written = c.img.Config.Config.User
		}
		userPart, groupPart, _ := strings.Cut(written, ":")
		_, numericErr := strconv.ParseUint(userPart, 10, 32)
		named := userPart != "" && numericErr != nil
		location := lint.ImageLocation{Reference: c.img.Reference, Path: "/etc/passwd"}
		if c.spec.RunAsUser == nil && (named || strings.Contains(written, ":")) {
			if c.img.FS() == nil {
				pass.Skip(skipNoLayers)
			} else if user := launch.ResolveUser(c.spec, c.img); user.Unknown != "" {
				// runc looks the group up only once the user is found, and
				// says which of the two it could not find.
				failure, fix := "unable to find user "+userPart+": no matching entries in passwd file", "create the account in the image"
				if strings.HasPrefix(user.Unknown, "group ") {
					location.Path = "/etc/group"
					failure, fix = "unable to find group "+groupPart+": no matching entries in group file", "create the group in the image"
				}
				pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: c.field(), Image: location, Message: fmt.Sprintf("%s: the image's USER %q cannot be resolved: %s, so the runtime fails every start with \"%s\" "+
					"%s; %s or use a numeric USER (uid:gid)", c.label(), written, user.Unknown, failure, where(c.img, "", location.Path), fix)})
				continue
			}
		}
		reportNoAccount(pass, c)
		reportSwitchFailures(pass, c)
		if !c.spec.RunAsNonRoot || c.container == nil {
			continue
		}
		field := runAsNonRootField(pass, c.container)
		switch {
		case c.spec.RunAsUser != nil && *c.spec.RunAsUser == 0:
			pass.Reportf(field, "%s: runAsNonRoot is true but runAsUser is 0: the kubelet refuses to start the container "+
				"(CreateContainerConfigError); set runAsUser to a non-zero uid", c.label())
		case c.spec.RunAsUser != nil:
		case named:
			pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: field, Image: lint.ImageLocation{Reference: c.img.Reference}, Message: fmt.Sprintf("%s: runAsNonRoot is true and the image's USER is the name %q: the kubelet cannot verify it is non-root and "+
				"refuses to start the container (\"image has non-numeric user (%s), cannot verify user is non-root\") %s; set "+
				"runAsUser to the account's uid, or use a numeric USER in the image", c.label(), userPart, userPart, where(c.img, "", ""))})
		case userPart == "" || userPart == "0":
			shown := "no USER"
			if written != "" {
				shown = "USER " + strconv.Quote(written)
			}
			pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: field, Image: lint.ImageLocation{Reference: c.img.Reference}, Message: fmt.Sprintf("%s: runAsNonRoot is true but the image runs as root (%s): the kubelet refuses to start the container "+
				"(\"container has runAsNonRoot and image will run as root\") %s; set runAsUser to a non-zero uid or add a "+
				"non-root USER to the image", c.label(), shown, where(c.img, "", ""))})
		}
	}
}

// reportSwitchFailures reports the wrappers on the start path (gosu,
// su-exec, setpriv, runuser, chroot, s6-setuidgid) that cannot switch to the user
// they are given: it is not in the image's /etc/passwd, or the container
// does not run as root. The wrapper exits, and the container with it.
func reportSwitchFailures(pass *lint.Pass, c *imageCheck) {
	if c.start == nil {
		return
	}
	for _, p := range c.start.Problems {
		if p.Kind != launch.SwitchFails {
			continue
		}
		field, fix := c.field(), "create the account in the image, or give the wrapper a numeric uid:gid"
		if p.SwitchDenied {
			fix = fmt.Sprintf("only root may switch the user: run the container as root and let %s drop to the user, or "+
				"drop %s and run as that user (runAsUser, runAsGroup)", p.Path, p.Path)
			if c.container != nil && c.spec.RunAsUser != nil {
				field = runAsUserField(pass, c.container)
			}
		}
		script, chain := "", wrapperChain(p.Via)
		for i := len(p.Via) - 1; i >= 0 && script == ""; i-- {
			if !p.Via[i].Wrapper {
				script = p.Via[i].Script // the script (or configuration) that names the user, not the wrapper's binary
			}
		}
		if wrapperArgv(p.Via) {
			// The switch is written in the container's argv, not in a
			// script: the command (or ENTRYPOINT) is what names the user,
			// and the image's accounts file is what lacks it.
			script, chain = p.SwitchFile, fmt.Sprintf("argv %s (from %s): ", message.Quote(strings.Join(c.spec.Argv, " ")), argvOrigin(c))
			if !p.SwitchDenied {
				field = c.argvField()
			}
		}
		pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: field, Image: lint.ImageLocation{Reference: c.img.Reference, Path: script},
			Message: fmt.Sprintf("%s: %s%s%s %s: the container exits before the program starts; %s %s", c.label(), platformStart(c),
				chain, p.Path, reasonDetail(p), fix, where(c.img, "", script))})
	}
}

// usernameEnv are the variables Python's getpass.getuser() reads, in its
// order, before it asks the password database (Lib/getpass.py).
var usernameEnv = []string{"LOGNAME", "USER", "LNAME", "USERNAME"}

// vllmTag reads vLLM's release from its image tag (vllm/vllm-openai:v0.23.0).
var vllmTag = lazyregexp.New(`:v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+][A-Za-z0-9._-]*)?(?:@|$)`)

// reportNoAccount reports a vLLM container whose uid has no entry in the
// image's /etc/passwd, with none of getpass.getuser()'s variables set.
// vLLM 0.22 and later import torch._dynamo when `import vllm` runs; torch
// before 2.13 then names its Inductor cache dir with getpass.getuser(),
// and pwd.getpwuid() raises for a uid it does not know: the server exits
// before it listens. It is an error when the image's tag and torch say
// both versions, a warning when either is unknown.
func reportNoAccount(pass *lint.Pass, c *imageCheck) {
	b := c.bundle
	if b == nil || c.container == nil || !b.Process.AccountKnown() || b.Process.HasAccount() {
		return
	}
	if b.Server.Runtime == nil || b.Server.Runtime.Name != "vllm" {
		return
	}
	for _, name := range usernameEnv {
		if b.Process.IsSet(name) {
			return
		}
	}
	certain := b.Process.EnvUnknown == ""
	vllmVersion := ""
	// A tag is vLLM's release only on an image named for vLLM: a private
	// name's tag (team-a/assistant:2024.11.3) is the team's own version.
	if m := vllmTag.FindStringSubmatch(c.img.Reference); m != nil && server.ByImage(c.img.Reference) == b.Server.Runtime {
		major, _ := strconv.Atoi(m[1])
		minor, _ := strconv.Atoi(m[2])
		if versionBefore([2]int{major, minor}, [2]int{0, 22}) {
			return // imports torch._dynamo at start only from 0.22 (vLLM PR 37234)
		}
		vllmVersion = fmt.Sprintf("vLLM %d.%d", major, minor)
	} else {
		certain = false
	}
	torchVersion := ""
	if b.Program != nil {
		for _, framework := range b.Program.Frameworks {
			if framework.Name != "torch" {
				continue
			}
			major, minor, ok := majorMinor(framework.Version)
			if ok && !versionBefore([2]int{major, minor}, [2]int{2, 13}) {
				return // falls back to a name from the uid
			}
			torchVersion = "torch " + framework.Version
		}
	}
	if torchVersion == "" {
		certain = false
	}
	user := b.Process.User
	uid := strconv.FormatUint(uint64(user.UID), 10)
	field, set := c.field(), "the image's USER "+strconv.Quote(c.img.Config.Config.User)
	switch {
	case user.Via != "":
		set = user.Via + " switches to it on the way to the server"
	case user.From == "runAsUser":
		field, set = runAsUserField(pass, c.container), "runAsUser "+uid
	case user.From == "default":
		set = "the image's default user (no USER)"
	}
	severity, assumption, runtime := lint.Error, "", ""
	if b.Process.CRIOAccount {
		// CRI-O writes an entry for the uid; containerd does not.
		severity, runtime = lint.Warning, fmt.Sprintf(" on containerd (CRI-O adds an /etc/passwd entry for the uid, since the "+
			"image's is not writable by it, and the server starts there)")
	}
	if !certain {
		severity = lint.Warning
		var unknown []string
		if vllmVersion == "" {
			unknown = append(unknown, "vLLM 0.22 or later (the tag does not say)")
		}
		if torchVersion == "" {
			unknown = append(unknown, "torch before 2.13 (its version was not read)")
		}
		if b.Process.EnvUnknown != "" {
			unknown = append(unknown, b.Process.EnvUnknown+" (envFrom, not in the linted files) sets no USER")
		}
		assumption = " (assuming " + strings.Join(unknown, ", ") + ")"
	}
	versions := strings.Join(slices.DeleteFunc([]string{vllmVersion, torchVersion}, func(s string) bool { return s == "" }), ", ")
	if versions != "" {
		versions = " (" + versions + ")"
	}
	noEntry := "which has no entry in the image's /etc/passwd"
	if user.NoPasswd {
		noEntry = "and the image has no /etc/passwd"
	}
	pass.Report(lint.Diagnostic{Severity: severity, Path: field, Image: lint.ImageLocation{Reference: c.img.Reference, Path: "/etc/passwd"},
		Message: fmt.Sprintf("%s: vLLM runs as uid %s (%s), %s, and none of LOGNAME, USER, LNAME, USERNAME is set: `import vllm`%s "+
			"loads torch._inductor, whose default cache dir is named with getpass.getuser(), and the server exits before it listens "+
			"with \"KeyError: 'getpwuid(): uid not found: %s'\"%s%s; set env USER (any name) on the container, add uid %s to the image's "+
			"/etc/passwd, or run as a uid the image has%s %s",
			c.label(), uid, set, noEntry, versions, uid, runtime, assumption, uid, accountHint(c.img), where(c.img, "", "/etc/passwd"))})
}

// runAsUserField is where runAsUser is set: the container's
// securityContext, else the pod's.
func runAsUserField(pass *lint.Pass, c *manifest.Container) string {
	if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil {
		return c.Path + ".securityContext.runAsUser"
	}
	return manifest.JoinPath(manifest.JoinPath(pass.Workload().SpecPath, "securityContext"), "runAsUser")
}

// accountHint names the image's non-root accounts, for the fix: " (vllm:
// 1000)".
func accountHint(img *image.Image) string {
	data, _ := img.ReadText("/etc/passwd")
	var names []string
	for _, account := range launch.ParsePasswd(data) {
		if account.UID >= 1000 && account.UID < 65534 && len(names) < 3 {
			names = append(names, fmt.Sprintf("%s: %d", account.Name, account.UID))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// majorMinor reads "2.5.1+cu121" as 2, 5.
func majorMinor(version string) (int, int, bool) {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return major, minor, err1 == nil && err2 == nil
}

// runAsNonRootField is where runAsNonRoot is set: the container's
// securityContext, else the pod's.
func runAsNonRootField(pass *lint.Pass, c *manifest.Container) string {
	if c.SecurityContext != nil && c.SecurityContext.RunAsNonRoot != nil {
		return c.Path + ".securityContext.runAsNonRoot"
	}
	return manifest.JoinPath(manifest.JoinPath(pass.Workload().SpecPath, "securityContext"), "runAsNonRoot")
}

var secretInImage = &lint.Rule{
	ID: "MDL309", Name: "secret-in-image", Severity: lint.Warning,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "The image config's env or labels hold a secret-looking value (the value is never printed).",
		Why: "ENV and LABEL values are stored in the image config, in clear text, forever: anyone who can pull the image " +
			"reads them with `docker inspect` or `crane config`, and removing the ENV in a later build does not remove it " +
			"from the old tags. A token baked in at build time (ENV HF_TOKEN=hf_…) leaks to every registry mirror and cache. " +
			"modellint flags variables named like secrets (…_TOKEN, …_PASSWORD, …_SECRET, API_KEY …) with a literal value, " +
			"and values shaped like well-known credentials (AWS, GitHub, Hugging Face, OpenAI, private keys)." + offlineNote,
		Bad: "# docker build -t registry.example.com/serving/llm:1.0 .\nFROM scratch\nCOPY server /usr/bin/serve\n" +
			"ENV HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567\nENTRYPOINT [\"/usr/bin/serve\"]\n" +
			"---\nimage: registry.example.com/serving/llm:1.0",
		Good: "# docker build -t registry.example.com/serving/llm:1.1 .\nFROM scratch\nCOPY server /usr/bin/serve\n" +
			"ENTRYPOINT [\"/usr/bin/serve\"]\n" +
			"---\n# the token is passed at run time from a Secret\nimage: registry.example.com/serving/llm:1.1\n" +
			"env:\n  - name: HF_TOKEN\n    valueFrom:\n      secretKeyRef: {name: hf-token, key: token}",
		Fix:        "Remove the value from the Dockerfile (use build secrets: RUN --mount=type=secret), rotate the credential, and pass it at run time from a Secret.",
		References: []string{"https://docs.docker.com/build/building/secrets/", "https://kubernetes.io/docs/concepts/configuration/secret/"},
	},
	Check: checkSecretInImage,
}

func checkSecretInImage(pass *lint.Pass) {
	for _, c := range imageChecks(pass, false) {
		if c.img.Config == nil {
			continue
		}
		var found []string
		for _, entry := range c.img.Config.Config.Env {
			name, value, _ := strings.Cut(entry, "=")
			if redact.LooksSecret(name, value) {
				found = append(found, "env "+name+" ("+strconv.Itoa(len(value))+" characters)")
			}
		}
		labels := c.img.Config.Config.Labels
		names := make([]string, 0, len(labels))
		for name := range labels {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if redact.LooksSecret(name, labels[name]) {
				found = append(found, "label "+name+" ("+strconv.Itoa(len(labels[name]))+" characters)")
			}
		}
		for _, what := range found {
			pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: c.field(), Image: lint.ImageLocation{Reference: c.img.Reference}, Message: fmt.Sprintf("%s: the image config sets %s to a secret-looking value (not shown): anyone who can pull the image can read it "+
				"with `docker inspect` %s; rotate the credential, remove it from the Dockerfile (build secrets: RUN "+
				"--mount=type=secret) and pass it at run time from a Secret", c.label(), what, where(c.img, "", ""))})
		}
	}
}

// platformOrigin says, for an index read for the one architecture of the
// --cluster nodes a pod can land on, where that platform came from.
func platformOrigin(pass *lint.Pass, img *image.Image) string {
	w := pass.Workload()
	if !strings.HasPrefix(img.Unresolvable, "the index has no image for") {
		return "" // the registry has no such image at all
	}
	if pass.Cluster == nil || w.Spec.NodeSelector["kubernetes.io/arch"] != "" || pass.Config.Cluster.Architecture != "" {
		return ""
	}
	nodes := pass.Cluster.Matching(w.Spec)
	if arches := cluster.Architectures(nodes); len(arches) != 1 || arches[0] != img.Platform.Architecture {
		return ""
	}
	return fmt.Sprintf(" (%s: the architecture of the %s the pod can land on, %s)", img.Platform.Architecture,
		plural(len(nodes), "node"), pass.Cluster.Path)
}

var imageUnresolvable = &lint.Rule{
	ID: "MDL310", Name: "image-unresolvable", Severity: lint.Error,
	Artifact: lint.ArtifactImage, Needs: []lint.Fact{lint.FactImage},
	Doc: lint.Doc{
		Summary: "The manifest's image reference does not resolve in its registry, or has no image for the nodes' platform.",
		Why: "The kubelet pulls the reference as written; a tag that was never pushed (a typo, a CI job that failed before " +
			"pushing), a deleted repository, or a multi-platform index without the nodes' platform fails with ErrImagePull, then " +
			"ImagePullBackOff, and the pod never starts. modellint asks the registry with the user's docker/podman credentials. " +
			"Only a clear answer is a finding: the registry saying MANIFEST_UNKNOWN, NAME_UNKNOWN or 404, an index without the " +
			"platform, or a reference that is not a valid name (InvalidImageName, found even offline). A registry that cannot " +
			"be reached (DNS, connection, TLS, timeout, 5xx) or that denies access (401/403: credentials the cluster may have " +
			"and CI lacks) tells nothing about the image: the image rules are then skipped with a note naming the reference." + offlineNote,
		Bad: "# never pushed\nimage: registry.example.com/serving/tf:2.19.0-gpu-rc1",
		Good: "# docker build -t registry.example.com/serving/tf:2.19.0-gpu .\nFROM scratch\n" +
			"COPY server /usr/bin/tensorflow_model_server\nENTRYPOINT [\"/usr/bin/tensorflow_model_server\"]\n" +
			"---\n# pushed\nimage: registry.example.com/serving/tf:2.19.0-gpu",
		Fix:        "Push the image (or fix the tag), or build a multi-platform index that includes the nodes' platform.",
		References: []string{"https://kubernetes.io/docs/concepts/containers/images/#imagepullbackoff", "https://github.com/opencontainers/distribution-spec/blob/main/spec.md#error-codes"},
	},
	Check: func(pass *lint.Pass) {
		if pass.Target.Workload == nil {
			for _, source := range slices.Sorted(maps.Keys(pass.Target.Images)) {
				img := pass.Target.Images[source]
				if img.Unresolvable != "" {
					pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: "", Image: lint.ImageLocation{Reference: img.Reference}, Message: fmt.Sprintf("image %s: %s; the pull fails with ErrImagePull / ImagePullBackOff", img.Reference, img.Unresolvable)})
				}
			}
			return
		}
		var skipped []string
		for _, container := range pass.Workload().Containers {
			if container.Image == "" {
				continue
			}
			img := pass.Target.Images[container.Image]
			if img == nil {
				skipped = append(skipped, pass.Target.ImagesMissing)
				continue
			}
			if img.Unresolvable == "" {
				continue
			}
			pass.Report(lint.Diagnostic{Severity: pass.Rule.Severity, Path: container.Path + ".image", Image: lint.ImageLocation{Reference: img.Reference}, Message: fmt.Sprintf("%s: image %s does not resolve: %s%s; the pod fails with ErrImagePull, then ImagePullBackOff, and never starts; push "+
				"the image or fix the reference", describe(container), container.Image, img.Unresolvable, platformOrigin(pass, img))})
		}
		if len(skipped) > 0 {
			pass.Skip(lint.JoinReasons(skipped))
		}
	},
}
