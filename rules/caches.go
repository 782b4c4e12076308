package rules

import (
	"fmt"
	"strings"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

var downloadCacheMisplaced = &lint.Rule{
	ID: "MDL220", Name: "download-cache-misplaced", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A server downloads its model from the Hugging Face Hub into a cache on the container's writable layer while a volume is mounted for it, or onto a read-only root filesystem.",
		Why: "vLLM, SGLang, TGI and KServe's Hugging Face server download a hub model id through huggingface_hub into " +
			"HF_HUB_CACHE, else HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub (vLLM's " +
			"--download-dir wins). HOME is the image's ENV or the manifest's, else what runc sets: the home of the uid's " +
			"/etc/passwd entry, or / when the uid has none, so the cache becomes /.cache/huggingface/hub (runc reads the " +
			"/etc/passwd the container sees: with a volume mounted over it HOME is not known, and the check is skipped). When that " +
			"directory is not on a volume the whole model lands on the container's writable layer: it counts against " +
			"the node's ephemeral storage (eviction under DiskPressure), and a restarted container starts with an empty " +
			"layer and downloads it again, while the volume mounted for the weights stays empty (a warning, with the " +
			"size when the name gives it). With readOnlyRootFilesystem: true and no writable mount there, huggingface_hub " +
			"cannot create the cache and the server exits with \"OSError: [Errno 30] Read-only file system\" (an error). " +
			"vLLM also writes its torch.compile cache under VLLM_CACHE_ROOT (~/.cache/vllm) at start unless " +
			"--enforce-eager is given; on a read-only root that is a warning. Python's __pycache__ is not reported: " +
			"Python skips it when it cannot write.",
		Bad: "containers:\n  - name: vllm\n    image: vllm/vllm-openai:v0.8.5\n    args: [--model, meta-llama/Llama-3.1-8B-Instruct]\n" +
			"    env: [{name: HOME, value: /home/vllm}]   # cache: /home/vllm/.cache/huggingface/hub\n" +
			"    volumeMounts: [{name: weights, mountPath: /models}]\nvolumes:\n  - name: weights\n    persistentVolumeClaim: {claimName: llama-weights}",
		Good: "containers:\n  - name: vllm\n    image: vllm/vllm-openai:v0.8.5\n    args: [--model, meta-llama/Llama-3.1-8B-Instruct]\n" +
			"    env: [{name: HF_HOME, value: /models}]\n" +
			"    volumeMounts: [{name: weights, mountPath: /models}]\nvolumes:\n  - name: weights\n    persistentVolumeClaim: {claimName: llama-weights}",
		Fix: "Set HF_HOME (or HF_HUB_CACHE, or vLLM's --download-dir) to the volume mounted for the weights; with " +
			"readOnlyRootFilesystem, mount an emptyDir or the weights volume where the server writes its caches.",
		References: []string{
			"https://github.com/huggingface/huggingface_hub/blob/main/src/huggingface_hub/constants.py",
			"https://huggingface.co/docs/huggingface_hub/package_reference/environment_variables",
			"https://github.com/opencontainers/runc/blob/main/libcontainer/env.go",
			"https://github.com/vllm-project/vllm/blob/main/vllm/envs.py",
			"https://kubernetes.io/docs/concepts/storage/ephemeral-storage/",
		},
	},
	Check: checkDownloadCache,
}

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
			// vLLM's argparse keeps the last --download-dir given.
			flag, _ := server.NewArgs(b.Server.Argv, nil, nil).Flag("--download-dir")
			if flag != "" && c.Runtime.Name == "vllm" {
				dir, from, known = flag, "--download-dir", strings.HasPrefix(flag, "/")
			}
			switch {
			case !known && p.PasswdMount != nil:
				coverage.Missed(fmt.Sprintf("%s: its Hugging Face cache depends on HOME, which runc takes from the /etc/passwd "+
					"of volume %q mounted at %s", describe(c), p.PasswdMount.Volume, p.PasswdMount.Path))
			case !known:
				coverage.Missed(describe(c) + ": its Hugging Face cache depends on HOME, and the image was not read")
			default:
				coverage.Checked()
				reportHubCache(pass, c, p, download, dir, cacheOrigin(p, from))
			}
		}
		if c.Runtime.Name == "vllm" && p.ReadOnlyRoot {
			coverage.Checked()
			reportCompileCache(pass, b, p)
		}
	}
	coverage.SkipIfNone(pass, "no container downloads from the Hugging Face Hub or runs vLLM on a read-only root")
}

// cacheOrigin says what put a cache where it is.
func cacheOrigin(p *launch.Process, from string) string {
	switch {
	case from != "HOME":
		return "from " + from
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

func reportHubCache(pass *lint.Pass, c *manifest.Container, p *launch.Process, download hubDownload, dir, origin string) {
	size := "size unknown"
	if download.bytes > 0 {
		size = humanBytes(download.bytes) + ", " + download.size
	}
	storage, mount := p.Where(dir)
	switch storage {
	case launch.ReadOnly:
		field, why := readOnlyCause(c, mount)
		pass.Report(lint.Diagnostic{Severity: lint.Error, Path: field, Message: fmt.Sprintf("%s downloads %s (%s) from the Hugging Face "+
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
		pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Message: fmt.Sprintf("%s downloads %s (%s) from the Hugging Face "+
			"Hub into %s (%s), on the container's writable layer, while volume %q (%s) is mounted at %s: the model counts "+
			"against the node's ephemeral storage (eviction under DiskPressure) and is lost with the container, so every "+
			"restart downloads it again; set env HF_HOME=%s (or HF_HUB_CACHE) so the cache lands on the volume",
			describe(c), download.id.Value, size, dir, origin, weights.Volume, weights.Kind, weights.Path, weights.Path)})
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
