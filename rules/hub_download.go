package rules

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

// hubDownload is a model a server downloads from a model hub when it
// starts, and what is known of its size.
type hubDownload struct {
	id    server.Value
	bytes int64 // 0 when the size is unknown
	// size says where bytes come from: an estimate from the name.
	size string
}

// hubID matches a Hugging Face repo id, org/name, with llama.cpp's
// optional :QUANT tag (-hf org/name:Q4_K_M).
var hubID = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*(:[A-Za-z0-9_.-]+)?$`)

// offlineEnv are the env vars that make the Hugging Face libraries read
// only their cache: the model was put there before.
var offlineEnv = []string{"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"}

// onlineValues are the values of offlineEnv that leave the libraries
// online. huggingface_hub's constants.py goes offline only for 1, ON, YES
// and TRUE (_is_true), other readers for fewer; a value none of them
// reads as false counts as offline, so that no download is alleged.
var onlineValues = []string{"", "0", "false", "no", "off"}

// hubDownloadOf finds the model a container's server downloads at start:
// a model path that is a hub id (vLLM --model or vllm serve ID, TGI
// --model-id or MODEL_ID, SGLang --model-path, llama.cpp --hf-repo, KServe's
// Hugging Face server --model_id), unless
// the env puts the Hugging Face libraries offline.
func hubDownloadOf(c *manifest.Container) (hubDownload, bool) {
	inv := c.Invocation()
	if inv == nil {
		return hubDownload{}, false
	}
	env := envValues(c)
	for _, name := range offlineEnv {
		if value := strings.ToLower(strings.TrimSpace(env[name])); !slices.Contains(onlineValues, value) {
			return hubDownload{}, false
		}
	}
	for _, path := range inv.ModelPaths {
		if !hubID.MatchString(path.Value) || strings.HasPrefix(path.Value, ".") {
			continue
		}
		download := hubDownload{id: path}
		download.bytes, download.size = sizeFromName(path.Value, c.Runtime.HubQuantizedFiles)
		return download, true
	}
	return hubDownload{}, false
}

// parameterTag is a model name's parameter count: 8B, 0.5B, 8x7B, 350M.
var parameterTag = lazyregexp.New(`(?i)(?:^|[-_./])(?:(\d+)x)?(\d+(?:\.\d+)?)([bm])(?:$|[-_.:])`)

// sizeFromName estimates a model's download from the parameter count in
// its name and the precision the name says (AWQ, GPTQ, FP8, a GGUF
// quant); 0 when the name has no count. quantizedFile says the server
// downloads one quantized GGUF of the repository (llama.cpp's -hf).
func sizeFromName(id string, quantizedFile bool) (int64, string) {
	name := id[strings.Index(id, "/")+1:]
	match := parameterTag.FindStringSubmatch(name)
	if match == nil {
		return 0, ""
	}
	count, err := strconv.ParseFloat(match[2], 64)
	if err != nil || count <= 0 {
		return 0, ""
	}
	unit := 1e9
	if strings.EqualFold(match[3], "m") {
		unit = 1e6
	}
	experts := 1.0
	tag := match[2] + strings.ToUpper(match[3])
	if match[1] != "" {
		experts, _ = strconv.ParseFloat(match[1], 64)
		tag = match[1] + "x" + tag
	}
	params := experts * count * unit
	perParameter, precision := 2.0, "16-bit"
	lower := strings.ToLower(id)
	switch {
	case quantizedFile && strings.Contains(lower, ":q8"):
		perParameter, precision = 1.06, "Q8_0"
	case quantizedFile && (strings.Contains(lower, ":f16") || strings.Contains(lower, ":bf16")):
		perParameter, precision = 2, "F16"
	case quantizedFile:
		perParameter, precision = 0.6, "Q4_K_M, the -hf default"
	case containsAny(lower, "awq", "gptq", "int4", "4bit", "w4a16", "nf4"):
		perParameter, precision = 0.5, "4-bit"
	case containsAny(lower, "fp8", "int8", "8bit", "w8a8"):
		perParameter, precision = 1, "8-bit"
	}
	bytes := int64(params * perParameter)
	return bytes, fmt.Sprintf("an estimate from the name's %s: %s params × %s bytes (%s)", tag,
		humanCount(int64(params)), strconv.FormatFloat(perParameter, 'g', -1, 64), precision)
}

func containsAny(s string, words ...string) bool {
	for _, word := range words {
		if strings.Contains(s, word) {
			return true
		}
	}
	return false
}

// hubCacheDirs are where the Hugging Face libraries keep downloads in the
// servers' images, besides HF_HOME and HF_HUB_CACHE.
var hubCacheDirs = []string{"/root/.cache/huggingface", "/root/.cache", "/home/ray/.cache/huggingface", "/data"}

// cacheClaim names the PersistentVolumeClaim the container's Hugging Face
// cache is on, "" when the cache is not on one: then every restart starts
// the download over.
func cacheClaim(pass *lint.Pass, c *manifest.Container) string {
	env := envValues(c)
	dirs := append([]string{env["HF_HUB_CACHE"], env["HF_HOME"], env["HUGGINGFACE_HUB_CACHE"]}, hubCacheDirs...)
	w := pass.Workload()
	for _, mount := range c.VolumeMounts {
		if !slices.Contains(dirs, strings.TrimRight(mount.MountPath, "/")) {
			continue
		}
		if volume, _ := findVolume(w, mount.Name); volume != nil && volume.PersistentVolumeClaim != nil {
			return volume.PersistentVolumeClaim.ClaimName
		}
	}
	return ""
}

// unknownDownloadBytes is the model size used when the name gives none:
// the smallest multi-GB model, 1B parameters in 16 bits.
const unknownDownloadBytes = 2 << 30

// downloadSeconds is the time to download and then load a model at start.
func downloadSeconds(e lint.EstimateConfig, bytes int64) float64 {
	return float64(bytes)/(e.DownloadMiBPerSecond*(1<<20)) + estimateLoadSeconds(e, bytes)
}

// checkHubDownloadBudget reports a server without a startupProbe whose
// liveness budget is shorter than the download and load of the model it
// fetches at start; false when it is not.
func checkHubDownloadBudget(pass *lint.Pass, c *manifest.Container, download hubDownload) bool {
	estimates := pass.Config.Estimates()
	liveness := c.LivenessProbe
	budget := probeBudget(liveness)
	bytes, size := download.bytes, download.size
	if bytes == 0 {
		bytes = unknownDownloadBytes
	}
	need := downloadSeconds(estimates, bytes)
	if float64(budget) >= need {
		return false
	}
	period := orDefault(liveness.PeriodSeconds, defaultPeriodSeconds)
	threshold := int32(math.Ceil(need / float64(period)))
	arithmetic := fmt.Sprintf("%s ÷ %.0f MiB/s download + %s ÷ %.0f MiB/s load + %.0fs start-up",
		humanBytes(bytes), estimates.DownloadMiBPerSecond, humanBytes(bytes), estimates.LoadMiBPerSecond, estimates.StartupSeconds)
	what := fmt.Sprintf("downloading and loading the model takes an estimated %.0fs (%s, %s: %s)", need, humanBytes(bytes), size, arithmetic)
	if download.bytes == 0 {
		what = fmt.Sprintf("the download size is unknown, and the budget is too short for any multi-GB model: %s alone "+
			"takes an estimated %.0fs (%s)", humanBytes(bytes), need, arithmetic)
	}
	// The download rate is assumed: only a budget below the fastest
	// download and load fails for certain.
	fastest := float64(bytes)/(fastDownloadMiBPerSecond*(1<<20)) + fastestLoadSeconds(estimates, bytes)
	what += fmt.Sprintf("; %.0fs even at %d MiB/s down and %d MiB/s load", fastest, fastDownloadMiBPerSecond, fastLoadMiBPerSecond)
	severity, kills := lint.Warning, "the kubelet likely kills it mid-download, every time (CrashLoopBackOff)"
	if float64(budget) < fastest && download.bytes > 0 {
		severity, kills = lint.Error, "the kubelet kills it mid-download, every time (CrashLoopBackOff)"
	}
	if claim := cacheClaim(pass, c); claim != "" && float64(budget) >= estimateLoadSeconds(estimates, bytes) {
		// Once the cache on the claim holds the model, a start only loads it,
		// which the budget covers.
		severity = lint.Warning
		kills = fmt.Sprintf("the kubelet kills it mid-download until the cache on PersistentVolumeClaim %q holds the "+
			"model, each restart resuming the download after a longer back-off (CrashLoopBackOff)", claim)
	}
	pass.Report(lint.Diagnostic{Severity: severity, Path: c.Path + ".startupProbe", Message: fmt.Sprintf("%s downloads %s from the Hugging Face Hub at start (%s) and "+
		"has no startupProbe: its livenessProbe restarts it after %ds (initialDelaySeconds %d + periodSeconds %d × "+
		"failureThreshold %d), but %s: %s; add a startupProbe with periodSeconds %d × failureThreshold ≥ %d, or "+
		"download the model to a volume before the server starts", describe(c), download.id.Value, download.id.From, budget, liveness.InitialDelaySeconds, period, orDefault(liveness.FailureThreshold, defaultFailureThreshold), what, kills, period, threshold)})
	return true
}
