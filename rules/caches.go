package rules

import (
	"fmt"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

var downloadCacheMisplaced = &lint.Rule{
	ID: "MDL220", Name: "download-cache-misplaced", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A server downloads its model from the Hugging Face Hub into a cache on the container's writable layer while a volume is mounted for it, onto a read-only root filesystem, or where an ephemeral-storage limit or emptyDir sizeLimit below the model gets the pod evicted; or writes its own state at start onto a read-only root.",
		Why: "vLLM, SGLang, TGI and KServe's Hugging Face server download a hub model id through huggingface_hub into " +
			"HF_HUB_CACHE, else HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub (vLLM's " +
			"--download-dir wins, and TGI's --huggingface-hub-cache unless HF_HUB_CACHE is set; TGI's own image sets " +
			"HF_HOME=/data, HUGGINGFACE_HUB_CACHE=/data before 2.3, and KServe's Hugging Face server's HF_HOME=/tmp/huggingface, " +
			"which are assumed when the image is not read, as warnings). KServe's Hugging Face server downloads its --model_id " +
			"even beside a storageUri: it loads --model_dir (/mnt/models, where the storage initializer puts the storageUri) " +
			"only without one. HOME is the image's ENV or the manifest's, else what runc sets: the home of the uid's " +
			"/etc/passwd entry, or / when the uid has none, so the cache becomes /.cache/huggingface/hub (runc reads the " +
			"/etc/passwd the container sees: with a volume mounted over it HOME is not known, and the check is skipped). When that " +
			"directory is not on a volume the whole model lands on the container's writable layer: it counts against " +
			"the node's ephemeral storage (eviction under DiskPressure), and a restarted container starts with an empty " +
			"layer and downloads it again, while the volume mounted for the weights stays empty (a warning, with the " +
			"size when the name gives it). With readOnlyRootFilesystem: true and no writable mount there, huggingface_hub " +
			"cannot create the cache and the server exits with \"OSError: [Errno 30] Read-only file system\" (an error). " +
			"When a model dir is linked to the hub id, its weights (the tensors of its safetensors files, which the server " +
			"downloads at the least) are held against the limits the kubelet evicts on (eviction_manager.go, " +
			"localStorageEviction): into an emptyDir whose sizeLimit is smaller, the pod is evicted (\"Usage of EmptyDir volume " +
			"... exceeds the limit\"); into the writable layer or a disk emptyDir while the pod's ephemeral-storage limit, the " +
			"sum of its containers' limits.ephemeral-storage, is smaller, likewise (\"Pod ephemeral local storage usage exceeds " +
			"the total limit of containers\"). Both are errors, every new pod starting the download over; the pod's limit is a " +
			"warning when a container writes none (a LimitRange may give it one) or a platform adds containers. The container's " +
			"own limit counts its writable layer only on nodes without a separate image filesystem: a warning. A hub model's " +
			"size is never guessed for this: without a linked dir whose weights are known, nothing is said. " +
			"vLLM also writes its torch.compile cache under VLLM_CACHE_ROOT (~/.cache/vllm) at start unless " +
			"--enforce-eager is given, and its processes talk over ZMQ ipc sockets it creates under VLLM_RPC_BASE_PATH, else " +
			"Python's tempfile.gettempdir(), which raises \"No usable temporary directory found\" when none of TMPDIR, TEMP, TMP, " +
			"/tmp, /var/tmp, /usr/tmp and the working dir is writable; on a read-only root each is a warning. TorchServe's torchserve launcher names its pid file in " +
			"tempfile.gettempdir() before it starts the frontend (ts/model_server.py): with none of those dirs writable it exits " +
			"(an error); the frontend's workers bind their Unix sockets and unpack .mar archives in java.io.tmpdir (TEMP, else " +
			"/tmp), and log4j2 writes its logs and metrics under LOG_LOCATION and METRICS_LOCATION, else logs/ in the working " +
			"dir, dropping what it cannot create (warnings). `ollama serve` writes before it listens, and " +
			"exits when it cannot: its key pair ~/.ollama/id_ed25519 when the file is missing (cmd/cmd.go, initializeKeypair), " +
			"then its model store OLLAMA_MODELS (else ~/.ollama/models)/blobs when that dir is missing (server/routes.go, " +
			"Serve); on a read-only root with neither in the image nor a volume mounted there, that is an error (a " +
			"read-only volume there, such as a Secret with the key pair, may hold the files and is not reported). Python's __pycache__ is not reported: " +
			"Python skips it when it cannot write.",
		Bad: "containers:\n  - name: vllm\n    image: vllm/vllm-openai:v0.8.5\n    args: [--model, meta-llama/Llama-3.1-8B-Instruct]\n" +
			"    env: [{name: HOME, value: /home/vllm}]   # cache: /home/vllm/.cache/huggingface/hub\n" +
			"    volumeMounts: [{name: weights, mountPath: /models}]\nvolumes:\n  - name: weights\n    persistentVolumeClaim: {claimName: llama-weights}",
		Good: "containers:\n  - name: vllm\n    image: vllm/vllm-openai:v0.8.5\n    args: [--model, meta-llama/Llama-3.1-8B-Instruct]\n" +
			"    env: [{name: HF_HOME, value: /models}]\n" +
			"    volumeMounts: [{name: weights, mountPath: /models}]\nvolumes:\n  - name: weights\n    persistentVolumeClaim: {claimName: llama-weights}",
		Fix: "Set HF_HOME (or HF_HUB_CACHE, vLLM's --download-dir, TGI's --huggingface-hub-cache) to the volume mounted for the weights; with " +
			"readOnlyRootFilesystem, mount an emptyDir or the weights volume where the server writes its caches; raise " +
			"limits.ephemeral-storage and emptyDir.sizeLimit above the model plus headroom, or download onto a PersistentVolumeClaim.",
		References: []string{
			"https://github.com/huggingface/huggingface_hub/blob/main/src/huggingface_hub/constants.py",
			"https://huggingface.co/docs/huggingface_hub/package_reference/environment_variables",
			"https://github.com/opencontainers/runc/blob/main/libcontainer/env.go",
			"https://github.com/vllm-project/vllm/blob/main/vllm/envs.py",
			"https://docs.python.org/3/library/tempfile.html#tempfile.gettempdir",
			"https://github.com/huggingface/text-generation-inference/blob/main/Dockerfile",
			"https://github.com/huggingface/text-generation-inference/blob/main/launcher/src/main.rs",
			"https://github.com/kserve/kserve/blob/master/python/huggingfaceserver/huggingfaceserver/__main__.py",
			"https://github.com/kserve/kserve/blob/master/python/huggingface_server.Dockerfile",
			"https://github.com/pytorch/serve/blob/master/ts/model_server.py",
			"https://github.com/pytorch/serve/blob/master/frontend/server/src/main/resources/log4j2.xml",
			"https://github.com/ollama/ollama/blob/main/cmd/cmd.go",
			"https://github.com/ollama/ollama/blob/main/server/routes.go",
			"https://kubernetes.io/docs/concepts/storage/ephemeral-storage/",
			"https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage",
			"https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/eviction/eviction_manager.go",
		},
	},
	Check: checkDownloadCache,
}

// kserveProvisionVolume is the emptyDir KServe's storage initializer
// downloads storageUri into, mounted at /mnt/models.
const kserveProvisionVolume = "kserve-provision-location"

// hubRuntimes download a hub model id through huggingface_hub.
var hubRuntimes = map[string]bool{"vllm": true, "sglang": true, "tgi": true, "kserve-huggingface": true}

func checkDownloadCache(pass *lint.Pass) {
	var coverage lint.Coverage
	for _, b := range pass.Target.Bundles {
		c := b.Container
		if c == nil || c.Init || c.Runtime == nil {
			continue
		}
		p := &b.Process
		if download, ok := hubDownloadOf(c); ok && hubRuntimes[c.Runtime.Name] {
			dir, from, known := p.HubCache()
			assumed := ""
			switch c.Runtime.Name {
			case "vllm":
				// vLLM's argparse keeps the last --download-dir given.
				if flag, _ := server.NewArgs(b.Server.Argv, nil, nil).Flag("--download-dir"); flag != "" {
					dir, from, known = flag, "--download-dir", strings.HasPrefix(flag, "/")
				}
			case "tgi":
				dir, from, known = tgiHubCache(b, p, dir, from, known)
			}
			dir, from, known, assumed = imageHubCache(b, p, dir, from, known)
			switch {
			case !known && p.PasswdMount != nil:
				coverage.Missed(fmt.Sprintf("%s: its Hugging Face cache depends on HOME, which runc takes from the /etc/passwd "+
					"of volume %q mounted at %s", describe(c), p.PasswdMount.Volume, p.PasswdMount.Path))
			case !known && p.Read && p.User.Unresolved != "":
				coverage.Missed(fmt.Sprintf("%s: its Hugging Face cache depends on HOME, which %s sets for %s", describe(c), p.User.Via, p.User))
			case !known:
				coverage.Missed(describe(c) + ": its Hugging Face cache depends on HOME, and the image was not read")
			default:
				coverage.Checked()
				reportHubCache(pass, c, p, download, dir, cacheOrigin(p, from), assumed)
			}
		}
		if c.Runtime.Name == "vllm" && p.ReadOnlyRoot {
			coverage.Checked()
			reportCompileCache(pass, b, p)
			reportTempDir(pass, b, p)
		}
		if c.Runtime.Name == "torchserve" && p.ReadOnlyRoot {
			if !p.Read {
				coverage.Missed(describe(c) + ": where TorchServe writes at start depends on the image's ENV and WORKDIR, which were not read")
			} else {
				coverage.Checked()
				reportTorchServeStart(pass, b, p)
			}
		}
		if c.Runtime.Name == "ollama" && p.ReadOnlyRoot {
			if !p.Read || p.Home == "" || b.Image == nil || b.Image.FS() == nil {
				coverage.Missed(describe(c) + ": where Ollama writes at start depends on HOME and the image's files, which were not read")
			} else {
				coverage.Checked()
				reportOllamaStart(pass, b, p)
			}
		}
	}
	coverage.SkipIfNone(pass, "no container downloads from the Hugging Face Hub or runs vLLM, TorchServe or Ollama on a read-only root")
}

// cacheOrigin says what put a cache where it is.
func cacheOrigin(p *launch.Process, from string) string {
	switch {
	case from != "HOME":
		return "from " + from
	case p.HomeKept && p.StartUser != nil && p.HomeFrom != "env":
		return fmt.Sprintf("HOME=%s, which runc sets for %s, the user the container starts as, and %s keeps when it switches to %s",
			p.Home, *p.StartUser, p.User.Via, p.User)
	case p.HomeFrom == "no account" && p.CRIOAccount:
		return fmt.Sprintf("HOME=/, which runc sets because %s has no /etc/passwd entry; on CRI-O, which adds one, HOME is %s",
			p.User, p.CRIOHome)
	case p.HomeFrom == "no account":
		return fmt.Sprintf("HOME=/, which runc sets because %s has no /etc/passwd entry", p.User)
	case p.HomeFrom == "passwd":
		return fmt.Sprintf("HOME=%s, %s's home in /etc/passwd", p.Home, p.User)
	}
	return "HOME=" + p.Home
}

// tgiHubCache is where text-generation-launcher has its model downloaded:
// --huggingface-hub-cache (env HUGGINGFACE_HUB_CACHE), which the launcher
// hands to `text-generation-server download-weights` as
// HUGGINGFACE_HUB_CACHE (launcher/src/main.rs, download_convert_model),
// under an HF_HUB_CACHE, which huggingface_hub reads first.
func tgiHubCache(b *lint.Bundle, p *launch.Process, dir, from string, known bool) (string, string, bool) {
	if flag, _ := server.NewArgs(b.Server.Argv, nil, nil).Flag("--huggingface-hub-cache"); flag != "" && !p.IsSet("HF_HUB_CACHE") {
		return flag, "--huggingface-hub-cache", path.IsAbs(flag)
	}
	return dir, from, known
}

// imageHubCache is where a project's own image, whose ENV was not read,
// puts the hub cache when the manifest does not move it: TGI's under /data
// (Dockerfile: ENV HF_HOME=/data since 2.3.0, HUGGINGFACE_HUB_CACHE=/data
// before), KServe's Hugging Face server's under /tmp/huggingface
// (python/huggingface_server.Dockerfile: ENV HF_HOME=/tmp/huggingface).
// assumed names the image, "" when nothing is assumed.
func imageHubCache(b *lint.Bundle, p *launch.Process, dir, from string, known bool) (string, string, bool, string) {
	c := b.Container
	imageRead := b.Image != nil && b.Image.Config != nil
	if known || imageRead || p.EnvUnknown != "" || from != "HOME" && from != "XDG_CACHE_HOME" || server.ByImage(c.Image) != c.Runtime {
		return dir, from, known, ""
	}
	env := "the ENV of " + c.Runtime.Title + "'s image"
	switch c.Runtime.Name {
	case "tgi":
		if m := servingTag.FindStringSubmatch(c.Image); m != nil && (atoi(m[1]) < 2 || atoi(m[1]) == 2 && atoi(m[2]) < 3) {
			return "/data", "HUGGINGFACE_HUB_CACHE=/data in " + env, true, c.Image
		}
		return "/data/hub", "HF_HOME=/data in " + env, true, c.Image
	case "kserve-huggingface":
		return "/tmp/huggingface/hub", "HF_HOME=/tmp/huggingface in " + env, true, c.Image
	}
	return dir, from, known, ""
}

// reportHubCache reports a hub download whose cache has no room. assumed
// names an image whose ENV, not read, is taken to have put the cache
// there: its findings are warnings.
func reportHubCache(pass *lint.Pass, c *manifest.Container, p *launch.Process, download hubDownload, dir, origin, assumed string) {
	size := "size unknown"
	if download.bytes > 0 {
		size = humanBytes(download.bytes) + ", " + download.size
	}
	storage, mount := p.Where(dir)
	if storage != launch.ReadOnly && reportEviction(pass, c, p, download, dir, origin, assumed, mount) {
		return
	}
	switch storage {
	case launch.ReadOnly:
		field, why := readOnlyCause(c, mount)
		severity := lint.Error
		if assumed != "" {
			severity, why = lint.Warning, why+fmt.Sprintf(" (unless image %s, which was not read, sets another cache)", assumed)
		}
		pass.Report(lint.Diagnostic{Severity: severity, Path: field, Message: fmt.Sprintf("%s downloads %s (%s) from the Hugging Face "+
			"Hub into %s (%s), but %s: huggingface_hub cannot create the cache and the server exits with \"OSError: [Errno 30] "+
			"Read-only file system\"; mount a writable volume (an emptyDir, or the one for the weights) at %s, or set HF_HOME to "+
			"a writable mount", describe(c), download.id.Value, size, dir, origin, why, dir)})
	case launch.OnLayer:
		weights := weightsMount(p)
		if weights == nil {
			return
		}
		field := c.Path
		if download.id.Field != "" {
			field = c.Path + "." + download.id.Field
		}
		fix := fmt.Sprintf("set env HF_HOME=%s (or HF_HUB_CACHE) so the cache lands on the volume", weights.Path)
		if c.Runtime.Name == "kserve-huggingface" && weights.Volume == kserveProvisionVolume {
			// load_model takes --model_id over --model_dir: what the
			// storage initializer put in /mnt/models is not loaded.
			fix = fmt.Sprintf("the storage initializer fills %s from storageUri, which the server loads only without "+
				"--model_id: drop --model_id, or %s", weights.Path, fix)
		}
		pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Message: fmt.Sprintf("%s downloads %s (%s) from the Hugging Face "+
			"Hub into %s (%s), on the container's writable layer, while volume %q (%s) is mounted at %s: the model counts "+
			"against the node's ephemeral storage (eviction under DiskPressure) and is lost with the container, so every "+
			"restart downloads it again; %s",
			describe(c), download.id.Value, size, dir, origin, weights.Volume, weights.Kind, weights.Path, fix)})
	}
}

// reportCompileCache reports vLLM on a read-only root whose torch.compile
// cache has nowhere to go.
func reportCompileCache(pass *lint.Pass, b *lint.Bundle, p *launch.Process) {
	c := b.Container
	// "--enforce-eager, --no-enforce-eager": the last one given decides
	// (https://docs.vllm.ai/en/latest/configuration/engine_args.html).
	_, eager, _ := server.NewArgs(b.Server.Argv, nil, nil).Switch([]string{"--enforce-eager"}, []string{"--no-enforce-eager"})
	if eager || strings.TrimSpace(envOr(p, "VLLM_DISABLE_COMPILE_CACHE")) == "1" {
		return
	}
	root, from, known := p.VLLMCacheRoot()
	if !known {
		return
	}
	storage, mount := p.Where(root)
	if storage != launch.ReadOnly {
		return
	}
	field, why := readOnlyCause(c, mount)
	pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Message: fmt.Sprintf("%s runs vLLM, which writes its torch.compile "+
		"cache under %s/torch_compile_cache (%s) while it starts, but %s: the compile step fails with \"Read-only file system\" "+
		"(assuming compilation is on: no --enforce-eager); mount an emptyDir at %s or set VLLM_CACHE_ROOT to a writable mount",
		describe(c), root, cacheOrigin(p, from), why, root)})
}

// reportTempDir reports vLLM on a read-only root where Python finds no
// temporary directory: vLLM's processes talk over ZMQ ipc sockets it
// creates under VLLM_RPC_BASE_PATH, else tempfile.gettempdir()
// (vllm/envs.py; get_open_zmq_ipc_path in vllm/utils), and
// gettempdir() tries to create a file in TMPDIR, TEMP, TMP, /tmp,
// /var/tmp, /usr/tmp and the working dir in turn, raising
// FileNotFoundError ("No usable temporary directory found") when none
// takes it (Lib/tempfile.py, _get_default_tempdir). A warning: which
// sockets a release opens before it listens is not read here.
func reportTempDir(pass *lint.Pass, b *lint.Bundle, p *launch.Process) {
	c := b.Container
	if value, set := p.Getenv("VLLM_RPC_BASE_PATH"); set && value != "" || slices.Contains(p.Defined, "VLLM_RPC_BASE_PATH") {
		return // a directory chosen for the sockets
	}
	candidates, none := noTempDir(b, p)
	if !none {
		return
	}
	pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: c.Path + ".securityContext.readOnlyRootFilesystem", Message: fmt.Sprintf("%s runs "+
		"vLLM, whose processes talk over ZMQ ipc sockets it creates in Python's temporary directory as it starts, but the root "+
		"filesystem is read-only and none of %s is on a writable volume: tempfile.gettempdir() raises \"FileNotFoundError: "+
		"No usable temporary directory found\" and the server exits; mount an emptyDir at /tmp",
		describe(c), joinAnd(candidates))})
}

// noTempDir says Python's tempfile.gettempdir() finds no directory it can
// write a file in: it tries TMPDIR, TEMP, TMP, /tmp, /var/tmp, /usr/tmp and
// the working dir in turn (Lib/tempfile.py, _candidate_tempdir_list), and
// each is read-only. candidates are the dirs it tries; none is false when
// one may be writable or a variable's value is not known here.
func noTempDir(b *lint.Bundle, p *launch.Process) (candidates []string, none bool) {
	for _, name := range []string{"TMPDIR", "TEMP", "TMP"} {
		if slices.Contains(p.Defined, name) {
			return nil, false // filled in by the cluster
		}
		if value, set := p.Getenv(name); set && value != "" {
			if !path.IsAbs(value) {
				return nil, false
			}
			candidates = append(candidates, value)
		}
	}
	candidates = append(candidates, "/tmp", "/var/tmp", "/usr/tmp", b.Spec.WorkingDir)
	for _, dir := range candidates {
		if storage, _ := p.Where(dir); storage != launch.ReadOnly {
			return nil, false
		}
	}
	return slices.Compact(candidates), true
}

// reportTorchServeStart reports TorchServe on a read-only root where
// what it writes as it starts has nowhere to go. The torchserve launcher
// first names its pid file in tempfile.gettempdir() (ts/model_server.py,
// start), which raises FileNotFoundError when no temporary directory is
// writable: the launcher exits before it starts the Java frontend. The
// frontend then takes java.io.tmpdir from TEMP (start passes
// -Djava.io.tmpdir=$TEMP), else /tmp: its workers bind their Unix sockets
// there (frontend/server/.../util/Connector.java, java.io.tmpdir
// "/.ts.sock." port; ts/model_service_worker.py binds it) and .mar
// archives are unpacked there (frontend/archive/.../ZipUtils.java, unzip:
// FileUtils.getTempDirectory()). Its log4j2 config writes its logs to
// LOG_LOCATION and its metrics to METRICS_LOCATION, each else logs/ under
// the working dir (frontend/server/src/main/resources/log4j2.xml,
// ${env:LOG_LOCATION:-logs}; ConfigManager sets the same), as do its
// config snapshots (FSSnapshotSerializer, LOG_LOCATION/config): log4j2
// drops an appender whose file it cannot create and the server goes on,
// so those are warnings.
func reportTorchServeStart(pass *lint.Pass, b *lint.Bundle, p *launch.Process) {
	c := b.Container
	readOnlyRoot := c.Path + ".securityContext.readOnlyRootFilesystem"
	if candidates, none := noTempDir(b, p); none {
		pass.Report(lint.Diagnostic{Severity: lint.Error, Path: readOnlyRoot, Message: fmt.Sprintf("%s runs TorchServe, whose "+
			"torchserve launcher puts its pid file in Python's temporary directory before it starts the frontend, but the root "+
			"filesystem is read-only and none of %s is on a writable volume: tempfile.gettempdir() raises \"FileNotFoundError: "+
			"No usable temporary directory found\" and the server never starts; mount an emptyDir (with a sizeLimit: .mar "+
			"archives are unpacked there too) at %s", describe(c), joinAnd(candidates), candidates[0])})
		return
	}
	if slices.Contains(p.Defined, "TEMP") {
		return
	}
	javaTemp, from := "/tmp", "Java's default, as TEMP is not set"
	if value, set := p.Getenv("TEMP"); set && value != "" {
		javaTemp, from = value, "from TEMP"
	}
	if storage, mount := p.Where(javaTemp); storage == launch.ReadOnly && path.IsAbs(javaTemp) {
		field, why := readOnlyCause(c, mount)
		pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Message: fmt.Sprintf("%s runs TorchServe, whose "+
			"frontend takes java.io.tmpdir %s (%s), where its workers bind their Unix sockets (.ts.sock.<port>) and .mar "+
			"archives are unpacked, but %s: the workers fail with \"Read-only file system\" and no model loads (assuming "+
			"the defaults: native I/O on, no -Djava.io.tmpdir in vmargs); mount an emptyDir with a sizeLimit at %s",
			describe(c), javaTemp, from, why, javaTemp)})
	}
	type logDir struct{ name, dir, files string }
	var blocked []logDir
	var cause, field string
	for _, d := range []logDir{{"LOG_LOCATION", "", "its logs (ts_log.log, access_log.log, model_log.log) and config snapshots"},
		{"METRICS_LOCATION", "", "its metrics logs (ts_metrics.log, model_metrics.log)"}} {
		if slices.Contains(p.Defined, d.name) {
			continue
		}
		d.dir = path.Join(b.Spec.WorkingDir, "logs")
		if value, set := p.Getenv(d.name); set && value != "" {
			d.dir = path.Join(b.Spec.WorkingDir, value) // an absolute value stays itself
			if path.IsAbs(value) {
				d.dir = value
			}
		}
		storage, mount := p.Where(d.dir)
		if storage != launch.ReadOnly {
			continue
		}
		if n := len(blocked); n > 0 && blocked[n-1].dir == d.dir {
			blocked[n-1].name += " and " + d.name
			blocked[n-1].files = "its logs, metrics logs and config snapshots"
			continue
		}
		blocked = append(blocked, d)
		if field == "" {
			field, cause = readOnlyCause(c, mount)
		}
	}
	if len(blocked) == 0 {
		return
	}
	var writes, dirs []string
	for _, d := range blocked {
		writes = append(writes, fmt.Sprintf("%s under %s (%s, else logs/ in the working dir %s)", d.files, d.dir, d.name, b.Spec.WorkingDir))
		dirs = append(dirs, d.dir)
	}
	pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Message: fmt.Sprintf("%s runs TorchServe, whose log4j2 "+
		"config writes %s, but %s: log4j2 reports \"Unable to create file\" and drops those appenders, so they are lost "+
		"while the server runs; mount an emptyDir with a sizeLimit at %s, or set LOG_LOCATION and METRICS_LOCATION to a "+
		"writable mount", describe(c), joinAnd(writes), cause, joinAnd(dirs))})
}

// reportOllamaStart reports `ollama serve` on a read-only root where it
// cannot write what it writes before it listens, each failure returned
// and the server exiting: its key pair, ~/.ollama/id_ed25519 and .pub,
// when the file is missing (cmd/cmd.go, RunServer calls
// initializeKeypair: os.MkdirAll of ~/.ollama, then os.WriteFile), and
// then the blobs dir of OLLAMA_MODELS, else ~/.ollama/models
// (server/routes.go, Serve calls GetBlobsPath(""): os.MkdirAll, which
// writes nothing when the dir exists). HOME is os.UserHomeDir's $HOME. A
// read-only volume over the path may hold the files: not reported.
func reportOllamaStart(pass *lint.Pass, b *lint.Bundle, p *launch.Process) {
	c := b.Container
	home := cacheOrigin(p, "HOME")
	key := path.Join(p.Home, ".ollama", "id_ed25519")
	if blocked, why, field := writeBlocked(b, p, key); blocked {
		pass.Report(lint.Diagnostic{Severity: lint.Error, Path: field, Message: fmt.Sprintf("%s runs `ollama serve`, which writes "+
			"its key pair to %s (%s) before it listens when the image has none, but %s: the server exits with \"could not create "+
			"directory mkdir %s: read-only file system\"; mount an emptyDir (or a Secret holding id_ed25519) at %s",
			describe(c), key, home, why, path.Dir(key), path.Dir(key))})
		return
	}
	models, from, known := p.OllamaModels()
	if !known {
		return
	}
	if from == "HOME" {
		from = home
	} else {
		from = "from " + from
	}
	blobs := path.Join(models, "blobs")
	if blocked, why, field := writeBlocked(b, p, blobs); blocked {
		pass.Report(lint.Diagnostic{Severity: lint.Error, Path: field, Message: fmt.Sprintf("%s runs `ollama serve`, which creates "+
			"its model store %s (%s) before it listens, but %s: the server exits with \"mkdir …: read-only file system\"; "+
			"mount a volume (an emptyDir, or a PersistentVolumeClaim to keep pulled models) at %s",
			describe(c), blobs, from, why, models)})
	}
}

// writeBlocked says a path the server creates at start cannot be written:
// it is not in the image, and the read-only root holds it with no volume
// mounted over it. A read-only volume over it is left alone: what it
// holds is not known here.
func writeBlocked(b *lint.Bundle, p *launch.Process, name string) (bool, string, string) {
	storage, mount := p.Where(name)
	if storage != launch.ReadOnly || mount != nil {
		return false, "", ""
	}
	if _, err := b.Image.FS().Stat(name); err == nil {
		return false, "", ""
	}
	field, why := readOnlyCause(b.Container, nil)
	return true, why, field
}

// readOnlyCause is the field that makes a path read-only, and why.
func readOnlyCause(c *manifest.Container, mount *launch.Mount) (string, string) {
	if mount != nil {
		return mount.Field, fmt.Sprintf("volume %q mounted at %s is read-only", mount.Volume, mount.Path)
	}
	return c.Path + ".securityContext.readOnlyRootFilesystem", "the root filesystem is read-only (readOnlyRootFilesystem: true) and no volume is mounted there"
}

// weightsMount is the writable volume a container mounts that could hold
// the model: a claim first, then any other disk-backed volume.
func weightsMount(p *launch.Process) *launch.Mount {
	var found *launch.Mount
	for i := range p.Mounts {
		m := &p.Mounts[i]
		if m.ReadOnly || m.Path == "/dev/shm" {
			continue
		}
		switch m.Kind {
		case "persistentVolumeClaim", "ephemeral":
			return m
		case "emptyDir", "hostPath", "nfs", "csi":
			if found == nil {
				found = m
			}
		}
	}
	return found
}

func envOr(p *launch.Process, name string) string {
	value, _ := p.Getenv(name)
	return value
}

// downloadedWeights are the bytes of the weights a hub download brings for
// certain, and the model dir that says so: the tensors the server loads
// from the model dir linked to the hub id, read from their safetensors
// headers. The hub repository may hold more (other formats, an original/
// checkpoint) that the server skips, so nothing else is counted; 0 when no
// dir is linked or its weights are not known: a hub model's size is not
// guessed here.
func downloadedWeights(pass *lint.Pass, c *manifest.Container, download hubDownload) (int64, string) {
	for _, link := range pass.Target.Links {
		if link.Container == c && link.Model != nil && link.ServerPath.Value == download.id.Value && link.Model.WeightBytes > 0 {
			return link.Model.WeightBytes, link.Model.Dir
		}
	}
	return 0, ""
}

// podStorageLimit is the pod's ephemeral-storage limit as the kubelet's
// eviction manager takes it (resourcehelper.PodLimits): the sum of the
// limits its containers and sidecars write, or an init container's (with
// the sidecars) when larger. unwritten names a container that writes
// none, which a LimitRange's default may give one, raising the sum; ok is
// false when none writes one.
func podStorageLimit(w *manifest.Workload) (limit resource.Quantity, unwritten string, ok bool) {
	if w.Spec.Resources != nil {
		if _, podLevel := w.Spec.Resources.Limits[corev1.ResourceEphemeralStorage]; podLevel {
			return limit, "", false // pod-level resources: not the sum this models
		}
	}
	var sum, sidecars resource.Quantity
	var inits []resource.Quantity
	for _, c := range w.Containers {
		q, written := c.Resources.Limits[corev1.ResourceEphemeralStorage]
		if !written {
			if unwritten == "" {
				unwritten = c.Name
			}
			continue
		}
		ok = true
		sidecar := c.Init && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
		switch {
		case sidecar:
			sidecars.Add(q)
			sum.Add(q)
		case c.Init:
			inits = append(inits, q)
		default:
			sum.Add(q)
		}
	}
	limit = sum
	for _, q := range inits {
		// The sidecars started before an init container run beside it: all
		// of them are counted, which only raises the limit.
		q.Add(sidecars)
		if q.Cmp(limit) > 0 {
			limit = q
		}
	}
	return limit, unwritten, ok
}

// reportEviction reports a hub download the kubelet evicts the pod for
// before it ends: weights of a known size into an emptyDir whose
// sizeLimit is smaller, or into the writable layer or an emptyDir while
// the pod's (or, for the writable layer, the container's)
// ephemeral-storage limit is smaller (eviction_manager.go,
// localStorageEviction). It says whether it reported.
func reportEviction(pass *lint.Pass, c *manifest.Container, p *launch.Process, download hubDownload, dir, origin, assumed string, mount *launch.Mount) bool {
	weights, modelDir := downloadedWeights(pass, c, download)
	if weights == 0 {
		return false
	}
	w := pass.Workload()
	where := "on the container's writable layer"
	var volume *corev1.Volume
	volumeIndex := -1
	if mount != nil {
		volume, volumeIndex = findVolume(w, mount.Volume)
		if volume == nil || volume.EmptyDir == nil || volume.EmptyDir.Medium == corev1.StorageMediumMemory {
			return false // a claim or another volume the kubelet does not count; tmpfs is memory
		}
		where = fmt.Sprintf("on emptyDir volume %q mounted at %s", mount.Volume, mount.Path)
	}
	downloads := fmt.Sprintf("%s downloads %s from the Hugging Face Hub into %s (%s), %s: its weights alone are %s (%s)",
		describe(c), download.id.Value, dir, origin, where, humanBytes(weights), modelDir)
	sure := lint.Error
	if assumed != "" {
		sure = lint.Warning
		downloads += fmt.Sprintf(" (unless image %s, which was not read, sets another cache)", assumed)
	}
	onClaim := "or point HF_HOME (or HF_HUB_CACHE) at a PersistentVolumeClaim's mount, which no ephemeral-storage limit counts"
	if strings.HasSuffix(origin, "--download-dir") {
		onClaim = "or point --download-dir at a PersistentVolumeClaim's mount, which no ephemeral-storage limit counts"
	}
	if volume != nil && volume.EmptyDir.SizeLimit != nil && volume.EmptyDir.SizeLimit.Sign() > 0 && volume.EmptyDir.SizeLimit.Value() < weights {
		size := volume.EmptyDir.SizeLimit.String()
		pass.Report(lint.Diagnostic{Severity: sure, Path: volumePath(w, volumeIndex) + ".emptyDir.sizeLimit", Message: fmt.Sprintf("%s, over the volume's "+
			"sizeLimit of %s, so the kubelet evicts the pod mid-download (\"Usage of EmptyDir volume \\\"%s\\\" exceeds the limit \\\"%s\\\"\"), and "+
			"every new pod starts the download over; raise sizeLimit above %s plus room for the tokenizer and config files, %s",
			downloads, size, mount.Volume, size, humanBytes(weights), onClaim)})
		return true
	}
	limitField := resourcePath(c, "limits", corev1.ResourceEphemeralStorage)
	if podLimit, unwritten, ok := podStorageLimit(w); ok && podLimit.Value() < weights {
		severity, evicts := sure, "so the kubelet evicts the pod mid-download"
		detail := "the sum of its containers' limits"
		if unwritten != "" {
			severity, evicts = lint.Warning, "so the kubelet likely evicts the pod mid-download"
			detail += fmt.Sprintf("; container %s writes none, which a LimitRange may give it", unwritten)
		}
		if w.Platform != "" {
			severity, evicts = lint.Warning, "so the kubelet likely evicts the pod mid-download"
			detail += fmt.Sprintf("; %s may add containers of its own", w.Platform)
		}
		if _, own := c.Resources.Limits[corev1.ResourceEphemeralStorage]; !own {
			limitField = c.Path + ".resources.limits"
		}
		pass.Report(lint.Diagnostic{Severity: severity, Path: limitField, Message: fmt.Sprintf("%s, over the pod's ephemeral-storage "+
			"limit of %s (%s), %s (\"Pod ephemeral local storage usage exceeds the total limit of containers %s\"), and every new pod "+
			"starts the download over; raise limits.ephemeral-storage above %s plus room for logs and the tokenizer, %s",
			downloads, podLimit.String(), detail, evicts, podLimit.String(), humanBytes(weights), onClaim)})
		return true
	}
	own, written := c.Resources.Limits[corev1.ResourceEphemeralStorage]
	if volume != nil || !written || own.Value() >= weights {
		return false // an emptyDir counts against the pod's limit only
	}
	// The container's own limit counts its writable layer only where the
	// node keeps writable layers on the kubelet's filesystem (no dedicated
	// image filesystem).
	pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: limitField, Message: fmt.Sprintf("%s, over the container's "+
		"ephemeral-storage limit of %s: on nodes that keep writable layers on the kubelet's filesystem (no separate image "+
		"filesystem) the kubelet evicts the pod mid-download (\"Container %s exceeded its local ephemeral storage limit \\\"%s\\\"\"); "+
		"raise limits.ephemeral-storage above %s plus room for logs and the tokenizer, %s",
		downloads, own.String(), c.Name, own.String(), humanBytes(weights), onClaim)})
	return true
}
