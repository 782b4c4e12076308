package rules

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/gpu"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/rootfs"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/model"
	"github.com/modellint/modellint/lint/server"
)

const skipNoLink = "no serving container is linked to a model dir (see the links in the report)"

// linkedModels returns the links of the target that found a model dir.
func linkedModels(pass *lint.Pass) []*lint.Link {
	var links []*lint.Link
	for _, link := range pass.Target.Links {
		if link.Model != nil {
			links = append(links, link)
		}
	}
	if len(links) == 0 {
		pass.Skip(skipNoLink)
	}
	return links
}

// servedBytes is what the server loads of a model: the resident version
// dirs (what TF Serving's estimator counts), else exact weight bytes from
// headers, else every file.
func servedBytes(m *model.Model) (int64, string) {
	switch {
	case m.ResidentBytes > 0 && len(m.Versions) == 0:
		return m.ResidentBytes, m.Dir
	case m.ResidentBytes > 0:
		versions := m.Resident()
		names := make([]string, 0, len(versions))
		for _, v := range versions {
			names = append(names, v.Name)
		}
		return m.ResidentBytes, fmt.Sprintf("%s, version %s resident", m.Dir, strings.Join(names, ", "))
	case m.WeightBytes > 0:
		return m.WeightBytes, m.Dir + ", weights"
	}
	return m.Bytes, m.Dir
}

// linkField is the manifest field that sets the server's model path.
func linkField(link *lint.Link) string {
	if link.ServerPath.Field == "" {
		return link.Container.Path + ".image" // the image's own entrypoint chose the path
	}
	return link.Container.Path + "." + link.ServerPath.Field
}

var memoryBelowModel = &lint.Rule{
	ID: "MDL401", Name: "memory-below-model", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest, lint.FactModel}, Fixes: lint.FixSafe,
	Doc: lint.Doc{
		Summary: "The memory limit is below what the server needs to hold the linked model.",
		Why: "A model server holds the model in memory. TF Serving reserves 1.2× the bytes of each version dir before it " +
			"loads it, keeps the resident versions loaded, and during a version swap loads the new version before it " +
			"unloads the old one. When the limit is lower, the kernel OOM-kills the server while it loads " +
			"(`OOMKilled`, exit code 137), the pod restarts and loads again, forever (CrashLoopBackOff).\n\n" +
			"The estimate is: model bytes × memoryFactor (1.2) × model copies (workers) + baselineMiB (256 MiB, the " +
			"server without a model). Model bytes are the resident version dirs for TF Serving and Triton, else the " +
			"exact weight bytes from safetensors/ONNX headers, else all files. A limit that holds the model but not a " +
			"version swap (one more version) is a warning. A server that loads several models at start in one process " +
			"(every model of TF Serving's --model_config_file, every model of a Triton repository unless " +
			"--model-control-mode=explicit) is held to all of them together, with one baseline. Tune `estimates:` in " +
			".modellint.yaml. vLLM and TGI with an accelerator request are not checked: their weights live in its memory " +
			"(nvidia.com/gpu or the configured GPU resource, a MIG slice nvidia.com/mig-<profile>, amd.com/gpu, " +
			"habana.ai/gaudi, google.com/tpu).\n\n" +
			"LLM servers on the CPU hold a KV cache beside the weights, added to the estimate. llama.cpp (no accelerator " +
			"requested, -c set; -c 0 is the GGUF header's context_length) allocates 2 × layers × KV heads × head dim × " +
			"bytes of --cache-type-k/-v (f16: 2, q8_0: 34 per 32) × -c tokens, which the -np slots share, and writes all " +
			"of it at start. It memory-maps the weights: page cache, charged to the container but reclaimed at the limit, " +
			"so a limit below weights + cache makes the server re-read the weights from disk for every token (a warning), " +
			"but for the matrices its CPU backend repacks into its own memory for the CPU's vector instructions (Q4_0, " +
			"Q4_K, Q2_K, IQ4_NL, Q8_0, MXFP4, as the CPU allows; not with --no-repack): a limit below those and the cache " +
			"likely OOMKills it (a warning, as the node's CPU is not known); " +
			"with --no-mmap (or LLAMA_ARG_MMAP=false) it reads them into its own memory. A limit below what the server " +
			"certainly holds once started, the cache and the weights read with --no-mmap, is an error: it is OOMKilled as it " +
			"starts. Without -c the cache is not counted (the default was 512, then 4096, now the model's, which --fit may " +
			"lower), nor for sliding-window, latent-attention or hybrid (state-space) models; it is certain only for architectures " +
			"whose every layer caches the whole context (llama, qwen2, qwen3, gemma, phi3, granite, command-r and a few more), " +
			"an estimate for others. vLLM's CPU backend (no accelerator requested) allocates " +
			"VLLM_CPU_KVCACHE_SPACE GiB (4 when unset) per tensor-parallel worker. Ollama is not checked: it pulls its " +
			"models at run time.",
		Bad:  "resources:\n  requests: {memory: 1Gi}\n  limits: {memory: 1Gi}\n---\n" + docResnet2GiB,
		Good: "resources:\n  requests: {memory: 6Gi}\n  limits: {memory: 6Gi}   # 2.0 GiB × 1.2, twice during a version swap, + 256 MiB\n---\n" + docResnet2GiB,
		Fix:  "Raise resources.limits.memory (and requests.memory) to at least the estimate, or serve a smaller model.",
		References: []string{
			"https://github.com/tensorflow/serving/blob/master/tensorflow_serving/servables/tensorflow/util.cc",
			"https://github.com/tensorflow/serving/issues/2017",
			"https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/",
			"https://github.com/ggml-org/llama.cpp/blob/master/src/llama-kv-cache.cpp",
			"https://github.com/ggml-org/llama.cpp/blob/master/src/llama-context.cpp",
			"https://github.com/ggml-org/llama.cpp/blob/master/common/arg.cpp",
			"https://github.com/vllm-project/vllm/blob/main/vllm/platforms/cpu.py",
			"https://docs.kernel.org/admin-guide/cgroup-v2.html#memory-interface-files",
		},
	},
	Check: checkMemoryBelowModel,
}

// docResnet2GiB is the model dir of MDL401's examples: a SavedModel of
// 2.0 GiB.
const docResnet2GiB = "# model dir\nmodels/resnet/\n  1/\n    saved_model.pb\n    variables/\n" +
	"      variables.data-00000-of-00001 (2.0 GiB)\n      variables.index"

func checkMemoryBelowModel(pass *lint.Pass) {
	estimates := pass.Config.Estimates()
	for _, link := range linkedModels(pass) {
		c := link.Container
		limit, ok := c.Resources.Limits[corev1.ResourceMemory]
		if !ok {
			continue // no limit at all is MDL205
		}
		need, judged := servingMemory(pass, link)
		if !judged {
			continue
		}
		bytes, what, copies := need.model, need.what, need.copies
		field := c.Path + ".resources.limits.memory"
		if limit.Value() < need.Bytes {
			// The fix covers a version swap too, which would be the next finding.
			fix := fixMemoryLimit(pass, c, limit, max(need.Bytes, swapBytes(estimates, link.Model, c, bytes, copies)))
			switch {
			case limit.Value() < need.certain && need.kv.certain:
				// What llama.cpp writes at start is no estimate.
				reportFixed(pass, fix, field, "%s: memory limit %s is below the %s the server holds in its own memory "+
					"once started: %s; the server is OOMKilled (exit 137) as it starts, and restarts forever; raise "+
					"limits.memory to at least %s (%s)%s", describe(c), limit.String(), humanBytes(need.certain),
					need.certainText(), quantityCeil(need.Bytes), need.briefFormula(), need.smallerKV())
			case limit.Value() < need.certain:
				// Below the model's own bytes no estimate is involved.
				reportFixed(pass, fix, field, "%s: memory limit %s is below the %s model itself (%s%s): the server is "+
					"OOMKilled (exit 137) while it loads the model, and restarts forever; raise limits.memory to at least "+
					"%s (%s)", describe(c), limit.String(), humanBytes(bytes), what, copiesText(copies),
					quantityCeil(need.Bytes), need.Formula())
			case need.mapped && limit.Value() < need.certain+need.repacked:
				// Which types the CPU backend repacks depends on the node's CPU.
				pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Fix: fix, Message: fmt.Sprintf(
					"%s: memory limit %s is below the %s the server likely holds in its own memory once started: the %s "+
						"of %s weight matrices its CPU backend repacks out of the mapped file (%s) into buffers of its own "+
						"on AVX2, AVX-512 and NEON CPUs, which --no-repack leaves mapped%s; the server is likely OOMKilled "+
						"(exit 137) as it starts, and restarts forever; raise limits.memory to at least %s (%s)",
					describe(c), limit.String(), humanBytes(need.certain+need.repacked), humanBytes(need.repacked),
					strings.Join(need.repackedTypes, ", "), what, need.kvAlso(), quantityCeil(need.Bytes), need.briefFormula())})
			case need.mapped && limit.Value() < need.certain+bytes:
				pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Fix: fix, Message: fmt.Sprintf(
					"%s: memory limit %s is below the %s model the server memory-maps (%s) with the %s it holds beside "+
						"it: the mapped weights are page cache, which the kernel reclaims at the limit rather than "+
						"killing the server, so it likely runs but reads the weights from disk again for every token "+
						"(thrashing), and is OOMKilled (exit 137) once its own buffers reach the limit; raise "+
						"limits.memory to at least %s (%s)", describe(c), limit.String(), humanBytes(bytes), what,
					need.besideText(), quantityCeil(need.Bytes), need.Formula())})
			default:
				pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Fix: fix, Message: fmt.Sprintf(
					"%s: memory limit %s holds the %s model (%s) but is below the estimated %s the server needs with it "+
						"(%s, the server's overhead and buffers assumed; tune them under estimates: in .modellint.yaml): the "+
						"server is likely OOMKilled (exit 137) while it loads the model or under load; raise limits.memory to "+
						"at least %s", describe(c), limit.String(), humanBytes(bytes), what, humanBytes(need.Bytes),
					need.Formula(), quantityCeil(need.Bytes))})
			}
			continue
		}
		if swap := swapBytes(estimates, link.Model, c, bytes, copies); limit.Value() < swap {
			pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: field, Fix: fixMemoryLimit(pass, c, limit, swap), Message: fmt.Sprintf("%s: memory limit %s holds the %s model (estimated %s) but not a "+
				"version swap, when TF Serving loads the next version before it unloads this one (estimated %s: %s): "+
				"the pod is OOMKilled when a new version is published; raise limits.memory to %s, or serve new "+
				"versions with a rollout instead of in place", describe(c), limit.String(), humanBytes(bytes), humanBytes(need.Bytes), humanBytes(swap), estimateMemory(estimates, bytes+largestResidentVersion(link.Model), 1, copies).Formula(), quantityCeil(swap))})
		}
	}
	checkModelsTogether(pass)
}

// hostMemoryNeed is what a serving container needs in host memory for its
// linked model: the estimate (weights × factor × copies + baseline) plus a
// KV cache when the server serves from the CPU, and the part of it the
// server certainly holds in its own, unreclaimable memory once started.
type hostMemoryNeed struct {
	memoryEstimate
	model  int64  // the weights' bytes
	what   string // where they come from
	copies int
	kv     hostKV
	// mapped says the weights are page cache of a memory-mapped file;
	// unmappedBy is the setting that read them into memory instead.
	mapped     bool
	unmappedBy string
	// repacked are the mapped weights the CPU backend copies into its own
	// memory, at most: which types it repacks depends on the CPU.
	repacked      int64
	repackedTypes []string
	// certain is the weights' bytes (unless mapped) plus the KV cache when
	// the server writes it at start.
	certain int64
}

// servingMemory computes a container's need for its linked model; false
// when MDL401 does not judge it (its weights go to an accelerator).
func servingMemory(pass *lint.Pass, link *lint.Link) (hostMemoryNeed, bool) {
	c := link.Container
	bytes, what, judged := hostModelBytes(pass, link)
	if !judged {
		return hostMemoryNeed{}, false
	}
	need := hostMemoryNeed{model: bytes, what: what, copies: link.Invocation.CopiesCount()}
	need.memoryEstimate = estimateMemory(pass.Config.Estimates(), bytes, 1, need.copies)
	need.certain = bytes * int64(need.copies)
	host := c.Runtime.Host
	if host == nil || requestsAccelerator(pass, c) {
		// With an accelerator (a MIG slice, an AMD GPU, a Gaudi, a TPU
		// chip as much as a whole NVIDIA GPU) the cache goes there, with
		// the layers offloaded to it.
		return need, true
	}
	args := serverArgs(pass, c)
	if host.MapsWeights {
		need.mapped, need.unmappedBy = weightsMapped(host, args)
		if need.mapped {
			need.certain = 0
		}
	}
	var kv hostKV
	var sized bool
	if host.ContextLength.Name() != "" {
		if ggufs, problem := ggufFor(link); problem.kind == ggufFine && len(ggufs) > 0 {
			kv, sized = llamaCPUKV(host, args, ggufs[0].Header, path.Base(ggufs[0].Path))
			if need.mapped {
				need.repacked, need.repackedTypes = repackedBytes(host, args, ggufs)
			}
		}
	} else if host.KVCacheGiB.Name() != "" {
		workers := int64(1)
		if engineGPU(c) != nil {
			if value, ok := args.Value(engineGPU(c).TensorParallel); ok {
				if n, err := strconv.ParseInt(value.Value, 10, 64); err == nil && n > 1 {
					workers = n
				}
			}
		}
		kv, sized = fixedKV(host, args, workers)
	}
	if sized {
		need.kv = kv
		need.KV, need.KVFormula = kv.bytes, kv.formula
		need.Bytes += kv.bytes
		if kv.certain {
			need.certain += kv.bytes
		}
	}
	return need, true
}

// certainText says what the server certainly holds: the weights read into
// memory and the KV cache written at start.
func (n hostMemoryNeed) certainText() string {
	var parts []string
	if !n.mapped {
		read := "read into memory"
		if n.unmappedBy != "" {
			read = "that " + n.unmappedBy + " reads into memory instead of mapping them"
		}
		parts = append(parts, fmt.Sprintf("the %s of weights %s (%s)", humanBytes(n.model), read, n.what))
	}
	if n.kv.certain {
		parts = append(parts, fmt.Sprintf("the %s KV cache it allocates and writes in full at start (%s)",
			humanBytes(n.kv.bytes), n.kv.formula))
	}
	return strings.Join(parts, " and ")
}

// briefFormula is the estimate's arithmetic without the KV cache's, for
// a message that gives that already.
func (n hostMemoryNeed) briefFormula() string {
	brief := n.memoryEstimate
	brief.KVFormula = "above"
	return brief.Formula()
}

// kvAlso adds the KV cache the server writes at start to a list of what
// it holds.
func (n hostMemoryNeed) kvAlso() string {
	if !n.kv.certain {
		return ""
	}
	return fmt.Sprintf(", and the %s KV cache it allocates and writes in full at start (%s)", humanBytes(n.kv.bytes), n.kv.formula)
}

// besideText names what a server holds besides its mapped weights.
func (n hostMemoryNeed) besideText() string {
	if n.kv.bytes > 0 {
		return fmt.Sprintf("%s KV cache (%s)", humanBytes(n.kv.bytes), n.kv.formula)
	}
	return "memory"
}

// smallerKV suggests a smaller llama.cpp KV cache when it is 16-bit.
func (n hostMemoryNeed) smallerKV() string {
	if !n.kv.certain || !strings.HasPrefix(n.kv.formula, "f16 K/V") {
		return ""
	}
	return ", or shrink the KV cache: a smaller -c, or --cache-type-k q8_0 --cache-type-v q8_0 (about half)"
}

// swapBytes is what TF Serving needs while it loads a new version beside
// the largest resident one; 0 for other servers.
func swapBytes(estimates lint.EstimateConfig, m *model.Model, c *manifest.Container, bytes int64, copies int) int64 {
	largest := largestResidentVersion(m)
	if !c.Runtime.VersionSwap || largest == 0 {
		return 0
	}
	return estimateMemory(estimates, bytes+largest, 1, copies).Bytes
}

// hostModelBytes is what of the linked model the server holds in host
// memory, and where that figure comes from; false for the servers whose
// weights go to an accelerator (vLLM and TGI with one, llama.cpp with every
// layer offloaded), which MDL401 does not judge.
func hostModelBytes(pass *lint.Pass, link *lint.Link) (int64, string, bool) {
	c := link.Container
	if engineGPU(c) != nil && engineGPU(c).AllWeightsOnGPU && requestsAccelerator(pass, c) {
		return 0, "", false
	}
	bytes, what := servedBytes(link.Model)
	if ggufs, problem := ggufFor(link); problem.kind == ggufFine && len(ggufs) > 0 {
		// The dir may hold other quantizations: the server loads the file it is given.
		bytes, what = ggufWeights(ggufs).bytes, link.Model.Dir+"/"+ggufs[0].Path
		if requestsAccelerator(pass, c) && allLayersOnGPU(pass, c) {
			return 0, "", false // the weights are copied to the GPU; host memory keeps only the file's page cache
		}
	}
	return bytes, what, true
}

// modelMemoryNeed is the memory limit MDL401 asks of a container for its
// linked model, the version swap included; false when none is linked or
// MDL401 does not judge it.
func modelMemoryNeed(pass *lint.Pass, c *manifest.Container) (int64, bool) {
	estimates := pass.Config.Estimates()
	for _, link := range linkedModels(pass) {
		if link.Container != c {
			continue
		}
		need, judged := servingMemory(pass, link)
		if !judged {
			return 0, false
		}
		return max(need.Bytes, swapBytes(estimates, link.Model, c, need.model, need.copies)), true
	}
	return 0, false
}

// fixMemoryLimit raises limits.memory to the estimate, and the request
// with it when it equalled the limit (a Guaranteed pod stays Guaranteed).
func fixMemoryLimit(pass *lint.Pass, c *manifest.Container, limit resource.Quantity, need int64) *lint.Fix {
	if !fixable(c) {
		return nil
	}
	value := memoryToWrite(need)
	object := pass.Workload().Object
	edits, suggestion := setField(object, c.Path+".resources.limits.memory", value, sameQuantity(limit))
	if request, ok := c.Resources.Requests[corev1.ResourceMemory]; ok && request.Cmp(limit) == 0 && len(edits) > 0 {
		requestEdits, requestSuggestion := setField(object, c.Path+".resources.requests.memory", value, sameQuantity(request))
		if len(requestEdits) == 0 {
			edits = nil
		}
		edits = append(edits, requestEdits...)
		suggestion = "limits:\n  " + suggestion + "requests:\n  " + requestSuggestion
	}
	return lint.EditFix("raise the memory limit to "+value+", the estimate rounded up", suggestion, edits...)
}

func largestResidentVersion(m *model.Model) int64 {
	var largest int64
	for _, v := range m.Resident() {
		largest = max(largest, v.Bytes)
	}
	return largest
}

// quantityCeil writes bytes as the smallest whole Mi or Gi quantity above them.
func quantityCeil(bytes int64) string {
	if bytes >= 10<<30 {
		return strconv.FormatInt(int64(math.Ceil(float64(bytes)/(1<<30))), 10) + "Gi"
	}
	return strconv.FormatInt(int64(math.Ceil(float64(bytes)/(1<<20))), 10) + "Mi"
}

var startupBudgetBelowLoad = &lint.Rule{
	ID: "MDL402", Name: "startup-budget-below-load", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest, lint.FactModel}, Fixes: lint.FixSafe,
	Doc: lint.Doc{
		Summary: "The probes kill the container before the linked model can have loaded.",
		Why: "The kubelet restarts a container whose startupProbe (or, without one, livenessProbe) fails for " +
			"initialDelaySeconds + periodSeconds × failureThreshold. A large model takes longer than that to read " +
			"from its volume, so the server is killed just before it finishes, every time (CrashLoopBackOff), and " +
			"never serves.\n\nThe load time is estimated as model bytes ÷ loadMiBPerSecond (100 MiB/s) + startupSeconds " +
			"(10 s); tune both under `estimates:` in .modellint.yaml. The rate is an assumption, so a budget below the " +
			"estimate is a warning; one below the load at 2 GiB/s (a local NVMe disk), which no volume beats, is an error. Containers with neither probe are not checked " +
			"(nothing kills them while they load).\n\nA CPU limit below one core stretches the CPU-bound share of the load: " +
			"the kernel's CFS quota lets the loader run limit × 100 ms of each 100 ms. That share is the model bytes at the rate " +
			"one core deserialises its format (MiB per CPU-second: 4000 for bytes read or mapped into memory, as TF's " +
			"tensor bundle, ONNX, safetensors and GGUF; 1600 for torch.load of .bin, .pt and .mar), taking 1/limit as " +
			"long; a limit of a core or more changes nothing, as loaders deserialise on one core. Start-up is not " +
			"stretched. The error's floor is stretched too: those rates are the fast end of what loaders reach. " +
			"docs/performance.md gives the rates and what they rest on.",
		Bad: "livenessProbe:\n  tcpSocket: {port: 8500}\n  initialDelaySeconds: 5\n  periodSeconds: 10\n  failureThreshold: 3\n---\n" +
			docResnet20GiB,
		Good: "startupProbe:\n  tcpSocket: {port: 8500}\n  periodSeconds: 10\n  failureThreshold: 30   # 300s ≥ 215s estimated\n" +
			"livenessProbe:\n  tcpSocket: {port: 8500}\n---\n" + docResnet20GiB,
		Fix: "Add a startupProbe (or raise its failureThreshold) so that periodSeconds × failureThreshold covers the load time.",
		References: []string{
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/",
			"https://docs.kernel.org/scheduler/sched-bwc.html",
			"https://huggingface.co/docs/safetensors/speed",
		},
	},
	Check: checkStartupBudget,
}

// docResnet20GiB is the model dir of MDL402's examples: a SavedModel of
// 20 GiB.
const docResnet20GiB = "# model dir\nmodels/resnet/\n  1/\n    saved_model.pb\n    variables/\n" +
	"      variables.data-00000-of-00001 (20 GiB)\n      variables.index"

func checkStartupBudget(pass *lint.Pass) {
	estimates := pass.Config.Estimates()
	for _, link := range linkedModels(pass) {
		c := link.Container
		bytes, what := servedBytes(link.Model)
		estimate := estimateLoad(pass, link, bytes)
		recordStart(pass, link, bytes, what, estimate)
		kind, probe := "startupProbe", c.StartupProbe
		if probe == nil {
			kind, probe = "livenessProbe", c.LivenessProbe
		}
		if probe == nil {
			continue
		}
		load := estimate.Seconds
		budget := float64(probeBudget(probe))
		if budget >= load {
			continue
		}
		period := orDefault(probe.PeriodSeconds, defaultPeriodSeconds)
		threshold := int32(math.Ceil((load - float64(probe.InitialDelaySeconds)) / float64(period)))
		field := c.Path + "." + kind + ".failureThreshold"
		// The load rate is assumed: only a budget below the fastest load
		// fails for certain. The CPU limit throttles even that load: the
		// format's rate per core is the fast end of what loaders reach.
		fastest := fastestLoadSeconds(estimates, bytes) + estimate.Throttled
		throttled := ""
		if estimate.Throttled >= 0.5 {
			throttled = " under the same CPU limit"
		}
		severity, kills := lint.Warning, "the kubelet likely kills the container before the model is loaded, every time (CrashLoopBackOff)"
		if budget < fastest {
			severity, kills = lint.Error, "the kubelet kills the container before the model is loaded, every time (CrashLoopBackOff)"
		}
		pass.Report(lint.Diagnostic{Severity: severity, Path: field, Fix: fixStartupBudget(pass, c, kind, probe, load),
			Message: fmt.Sprintf("%s: %s allows %.0fs (initialDelaySeconds %d + periodSeconds %d × failureThreshold %d) but "+
				"loading the %s model (%s) takes an estimated %.0fs at an assumed %g MiB/s from its volume%s (%.0fs even at "+
				"%d MiB/s from a local disk%s; %.0fs start-up each): %s; %s",
				describe(c), kind, budget, probe.InitialDelaySeconds, period, orDefault(probe.FailureThreshold, defaultFailureThreshold),
				humanBytes(bytes), what, load, estimates.LoadMiBPerSecond, estimate.throttleText(), fastest, fastLoadMiBPerSecond,
				throttled, estimates.StartupSeconds, kills, budgetFix(kind, threshold))})
	}
}

// recordStart records the start this rule judges, for the reports to
// draw: the pull of the image when it was read (its stored bytes at the
// download rate), the load as estimated above, and the probes.
func recordStart(pass *lint.Pass, link *lint.Link, bytes int64, what string, estimate loadEstimate) {
	estimates := pass.Config.Estimates()
	c := link.Container
	start := lint.StartEstimate{
		Container: c.Name, Model: what, ModelBytes: bytes,
		LoadSeconds: estimate.Seconds, StartupSeconds: estimates.StartupSeconds, LoadMiBPerSecond: estimates.LoadMiBPerSecond,
		ThrottledSeconds: estimate.Throttled, CPULimit: estimate.CPULimit, MinStartupSeconds: pass.Config.MinStartupSeconds(),
	}
	if img := pass.Target.Images[c.Image]; img != nil && len(img.Layers) > 0 {
		for _, layer := range img.Layers {
			start.ImageBytes += layer.Size
		}
		start.PullMiBPerSecond = estimates.DownloadMiBPerSecond
		start.PullSeconds = float64(start.ImageBytes) / (estimates.DownloadMiBPerSecond * (1 << 20))
	}
	for _, kind := range []string{"startupProbe", "livenessProbe", "readinessProbe"} {
		if probe := containerProbe(c, kind); probe != nil {
			start.Probes = append(start.Probes, lint.ProbeTiming{Kind: kind, InitialDelaySeconds: probe.InitialDelaySeconds,
				PeriodSeconds:    orDefault(probe.PeriodSeconds, defaultPeriodSeconds),
				FailureThreshold: orDefault(probe.FailureThreshold, defaultFailureThreshold)})
		}
	}
	pass.EstimateStart(start)
}

// addStartupProbe fixes a container that has only a livenessProbe with a
// startupProbe on the same handler (the process-health endpoint the
// server answers), at its period, allowing seconds to start.
func addStartupProbe(pass *lint.Pass, c *manifest.Container, liveness *corev1.Probe, seconds float64) *lint.Fix {
	if !fixable(c) {
		return nil
	}
	if pass.FixesCounted {
		if !pass.Workload().Object.CanAddFields(c.Path) {
			return nil
		}
		return lint.FixableOnly(pass.Rule.Fixes)
	}
	period := orDefault(liveness.PeriodSeconds, defaultPeriodSeconds)
	startup := corev1.Probe{ProbeHandler: liveness.ProbeHandler, PeriodSeconds: period,
		FailureThreshold: int32(math.Ceil(seconds / float64(period)))}
	block := probeBlock("startupProbe", startup)
	return lint.EditFix(fmt.Sprintf("add a startupProbe on the livenessProbe's handler with failureThreshold %d (%ds at periodSeconds %d)",
		startup.FailureThreshold, startup.FailureThreshold*period, period), block, addBlock(pass.Workload().Object, c.Path, block)...)
}

// fixStartupBudget raises the startupProbe's failureThreshold to cover the
// load, or adds a startupProbe on the liveness probe's handler (the
// process-health endpoint the server already answers) that does.
func fixStartupBudget(pass *lint.Pass, c *manifest.Container, kind string, probe *corev1.Probe, load float64) *lint.Fix {
	if !fixable(c) {
		return nil
	}
	object := pass.Workload().Object
	period := orDefault(probe.PeriodSeconds, defaultPeriodSeconds)
	if kind == "startupProbe" {
		threshold := int32(math.Ceil((load - float64(probe.InitialDelaySeconds)) / float64(period)))
		var matches func(string) bool
		if probe.FailureThreshold != 0 {
			matches = sameInt(int64(probe.FailureThreshold))
		}
		edits, suggestion := setField(object, c.Path+".startupProbe.failureThreshold", strconv.Itoa(int(threshold)), matches)
		return lint.EditFix(fmt.Sprintf("raise the startupProbe's failureThreshold to %d (%ds at periodSeconds %d)", threshold, threshold*period, period),
			suggestion, edits...)
	}
	// As MDL203 sizes it, so the two fixes add the same probe.
	return addStartupProbe(pass, c, probe, max(load, float64(pass.Config.MinStartupSeconds())))
}

func budgetFix(kind string, threshold int32) string {
	if kind == "livenessProbe" {
		return fmt.Sprintf("add a startupProbe with failureThreshold ≥ %d (at the same period) so liveness starts after the load", threshold)
	}
	return fmt.Sprintf("raise failureThreshold to at least %d", threshold)
}

var modelPathMismatch = &lint.Rule{
	ID: "MDL403", Name: "model-path-mismatch", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "The server's model path is not mounted and not in the image, or the model found there is broken.",
		Why: "The server reads its model from the path its flags, env or image give it (--model_base_path, a model " +
			"config file's base_path, --model-repository, MODEL_ID, KServe's /mnt/models). When no volumeMount covers that " +
			"path and the image does not contain it, the server finds nothing: TF Serving logs \"No versions of servable " +
			"… found under base path\" forever and never becomes Ready, Triton exits with \"failed to stat file\". When " +
			"the path is covered and a model dir is linked to it, every error modellint finds in that dir (MDL1xx) is " +
			"repeated here, at the line that points the server at it, with the dir named. A model baked into the image " +
			"(the path is under no volumeMount and the image holds it) is read from the image's layers and linted the " +
			"same way; its findings name the image, the layer and the in-image path.\n\nLinks come from " +
			"`models:` in .modellint.yaml, `--model DIR:MOUNTPATH`, the `modellint.dev/model-path` annotation, or a " +
			"model dir with the same name as the server's path; the report lists which link was used.",
		Bad:  "args: [--model_base_path=/models/resnet]\nvolumeMounts:\n  - {name: model, mountPath: /model}",
		Good: "args: [--model_base_path=/models/resnet]\nvolumeMounts:\n  - {name: model, mountPath: /models/resnet}",
		Fix: "Mount the model volume at the path the server reads (or point the flag at the mount), and fix the " +
			"model dir's own findings.",
		References: []string{
			"https://www.tensorflow.org/tfx/serving/serving_config",
			"https://github.com/triton-inference-server/server/blob/main/docs/user_guide/model_repository.md",
		},
	},
	Check: checkModelPath,
}

func checkModelPath(pass *lint.Pass) {
	var coverage lint.Coverage
	var unknown []string // paths no mount covers, in images that were not read
	for _, link := range pass.Target.Links {
		if !lint.LocalPath(link.ServerPath.Value) {
			continue
		}
		coverage.Checked()
		c := link.Container
		if link.Mount == nil && !c.FromServingRuntime && pass.Workload().Platform != "kserve" {
			img := pass.Target.Images[c.Image]
			switch {
			case img == nil || img.FS() == nil:
				if link.Model != nil {
					reportAtLink(pass, link, "%s: the server reads its model from %s (%s) but no volumeMount covers it, while "+
						"model dir %s is linked to it (%s): mount the model's volume at %s, or bake the model into the image",
						describe(c), link.ServerPath.Value, link.ServerPath.From, link.Model.Dir, link.How, link.ServerPath.Value)
				} else {
					unknown = append(unknown, link.ServerPath.Value)
				}
			default:
				if _, err := img.FS().Stat(link.ServerPath.Value); err != nil {
					reportAtLink(neverReady(pass), link, "%s: the server reads its model from %s (%s) but no volumeMount covers it and image "+
						"%s does not contain it: the server finds no model and never becomes Ready; mount the model "+
						"volume at %s (volumeMounts[].mountPath) or point the flag at the mount", describe(c),
						link.ServerPath.Value, link.ServerPath.From, img.Reference, link.ServerPath.Value)
				}
			}
		}
		if link.Model == nil {
			continue
		}
		if layout := c.Runtime.Model.Layout; layout != "" && string(link.Model.Layout) != layout {
			reportAtLink(neverReady(pass), link, "%s: %s points %s at model dir %s (%s), which is a %s layout, not a TF Serving "+
				"base path (<base>/<version>/saved_model.pb): the server finds no versions and never becomes Ready",
				describe(c), link.ServerPath.From, c.Runtime.Title, link.Model.Dir, link.How, link.Model.Layout)
		}
		for _, finding := range link.ModelFindings {
			if finding.Severity != lint.Error || finding.Suppressed() {
				continue
			}
			reportAtLink(pass, link, "%s: the model at %s (%s, linked by %s) fails %s %s: %s", describe(c),
				link.ServerPath.Value, finding.Location.File, link.How, finding.RuleID, finding.RuleName, finding.Message)
		}
	}
	switch {
	case !coverage.Any():
		pass.Skip("no serving container names a local model path")
	case len(unknown) > 0:
		pass.Skip("no volumeMount covers " + joinAnd(unknown) + " and the image was not read, so whether it holds the model is not known")
	}
}

var probeTargetMismatch = &lint.Rule{
	ID: "MDL404", Name: "probe-target-mismatch", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest}, Fixes: lint.FixUnsafe,
	Doc: lint.Doc{
		Summary: "A readiness or startup probe asks for another model than the server serves, or sends HTTP to its gRPC port.",
		Why: "TF Serving answers /v1/models/NAME only for the --model_name it serves (default \"model\" in its image); " +
			"the V2 protocol answers /v2/models/NAME/ready only for loaded models. A probe that names another model " +
			"gets 404 forever, so the pod never becomes Ready and a rollout never completes. An HTTP probe on the gRPC " +
			"port (TF Serving --port, default 8500; Triton 8001) fails the same way.",
		Bad:  "args: [--model_name=resnet, --rest_api_port=8501]\nreadinessProbe:\n  httpGet: {path: /v1/models/resnet50, port: 8501}",
		Good: "args: [--model_name=resnet, --rest_api_port=8501]\nreadinessProbe:\n  httpGet: {path: /v1/models/resnet, port: 8501}",
		Fix:  "Use the served model's name in the probe path and the REST port (TF Serving --rest_api_port, Triton --http-port).",
		References: []string{
			"https://www.tensorflow.org/tfx/serving/api_rest#model_status_api",
			"https://kserve.github.io/website/latest/modelserving/data_plane/v2_protocol/",
		},
	},
	Check: checkProbeTarget,
}

// modelInPath finds the model name in /v1/models/NAME[...] or /v2/models/NAME/...
var modelInPath = lazyregexp.New(`^/v[12]/models/([^/:?]+)`)

func checkProbeTarget(pass *lint.Pass) {
	serving := servingContainers(pass)
	if len(serving) == 0 {
		return
	}
	for _, c := range serving {
		if c.Runtime == server.Generic || c.FromServingRuntime {
			continue
		}
		invocation := c.Invocation()
		for _, kind := range []string{"readinessProbe", "startupProbe"} {
			probe := containerProbe(c, kind)
			if probe == nil || probe.HTTPGet == nil {
				continue
			}
			checkProbeModelName(pass, c, invocation, kind, probe.HTTPGet.Path)
			checkProbeGRPCPort(pass, c, kind, probe.HTTPGet.Port)
		}
	}
}

func checkProbeModelName(pass *lint.Pass, c *manifest.Container, invocation *server.Invocation, kind, probePath string) {
	if len(invocation.ModelNames) == 0 || invocation.ModelConfigFile.Value != "" {
		return // unknown, or models from a file
	}
	served := make([]string, len(invocation.ModelNames))
	for i, name := range invocation.ModelNames {
		if name.Value == "" || strings.ContainsAny(name.Value, "{}$,") {
			return // unknown, templated, or several models in one value
		}
		served[i] = name.Value
	}
	m := modelInPath.FindStringSubmatch(probePath)
	if m == nil || slices.Contains(served, m[1]) {
		return
	}
	name := served[0]
	servedModels := "model " + strconv.Quote(name)
	if len(served) > 1 {
		servedModels = "models " + joinAnd(quoteAll(served))
	}
	fixed := strings.Replace(probePath, "/models/"+m[1], "/models/"+name, 1)
	// Unsafe: which name is the mistake, the probe's or the server's, is the user's call.
	var edits []manifest.Edit
	suggestion := "path: " + fixed + "\n"
	if fixable(c) {
		edits, suggestion = setField(pass.Workload().Object, c.Path+"."+kind+".httpGet.path", fixed, sameText(probePath))
	}
	reportFixed(neverReady(pass), lint.EditFix("point the "+kind+" at the served model, "+fixed, suggestion, edits...),
		c.Path+"."+kind+".httpGet.path", "%s: %s checks %s, but the server serves %s (%s): the probe gets "+
			"404 forever and the pod never becomes Ready; use %s", describe(c), kind, probePath, servedModels,
		invocation.ModelNames[0].From, fixed)
}

func checkProbeGRPCPort(pass *lint.Pass, c *manifest.Container, kind string, port intstr.IntOrString) {
	grpc := c.Runtime.GRPC
	if grpc == nil {
		return
	}
	grpcPort := manifestArgs(c).Port(grpc.Flag, grpc.Number)
	number := port.IntVal
	if port.Type == intstr.String {
		number = 0
		for _, declared := range c.Ports {
			if declared.Name == port.StrVal {
				number = declared.ContainerPort
			}
		}
	}
	if number == 0 || number != grpcPort {
		return
	}
	neverReady(pass).Reportf(c.Path+"."+kind+".httpGet.port", "%s: %s sends HTTP to port %d, the server's gRPC port (%s): the probe "+
		"fails forever and the pod never becomes Ready; probe the REST port (%s, default %d)", describe(c), kind, number, grpc.Flag,
		grpc.HTTPFlag, grpc.HTTPNumber)
}

var gpuImageMismatch = &lint.Rule{
	ID: "MDL405", Name: "gpu-image-mismatch", Severity: lint.Warning,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest, lint.FactImage},
	Doc: lint.Doc{
		Summary: "GPUs are requested for an image without CUDA, or a CUDA image runs without a GPU.",
		Why: "A CPU build of a server (tensorflow/serving:2.x without -gpu, a CPU Triton or PyTorch image) ignores the " +
			"GPU it was scheduled on: the pod holds an expensive, scarce GPU and serves at CPU speed, or a GPU-only " +
			"model fails to load. The reverse, a CUDA image without a GPU request, is scheduled on nodes without a GPU " +
			"(or without the device mounted), where CUDA initialisation fails or the server silently falls back to CPU.\n\n" +
			"CUDA is recognised from the image config (CUDA_VERSION, NVIDIA_REQUIRE_CUDA, labels) or " +
			"/usr/local/cuda/version.json, as NVIDIA's base images write them, else from the frameworks the container's " +
			"Python imports, whose wheels carry their own CUDA runtime: torch/version.py (cuda = '12.1', or None for a CPU " +
			"build), TensorFlow's build_info.py (cuda_version, is_cuda_build), onnxruntime's build_and_package_info.py " +
			"(cuda_version; package_name 'onnxruntime' is the CPU build), jax's CUDA plugin wheels and NVIDIA's " +
			"nvidia-*-cu12 wheels (which count only when no framework beside them is a CPU build: they run what a framework " +
			"hands them). A CUDA framework without a GPU request is warned about for any container that declares " +
			"a port or a readiness probe.\n\n" +
			"A GPU request is nvidia.com/gpu (or cluster.gpuResource), nvidia.com/gpu.shared or a MIG slice " +
			"(nvidia.com/mig-<profile>). A container that requests another vendor's accelerator (amd.com/gpu, " +
			"habana.ai/gaudi, google.com/tpu) is not judged: it needs that vendor's build (ROCm, Gaudi, TPU), not CUDA.",
		Bad: "# docker build -t registry.example.com/serving/tf-serving:2.19.0 .\nFROM scratch\n" +
			"COPY server /usr/bin/tensorflow_model_server\nENTRYPOINT [\"/usr/bin/tensorflow_model_server\"]\n" +
			"---\nimage: registry.example.com/serving/tf-serving:2.19.0\nresources:\n  limits: {nvidia.com/gpu: 1}",
		Good: "# docker build -t registry.example.com/serving/tf-serving:2.19.0-gpu .\n# FROM nvidia/cuda:12.3.2-runtime, in short\n" +
			"FROM scratch\nENV CUDA_VERSION=12.3.2 NVIDIA_REQUIRE_CUDA=cuda>=12.3\n" +
			"COPY server /usr/bin/tensorflow_model_server\nENTRYPOINT [\"/usr/bin/tensorflow_model_server\"]\n" +
			"---\nimage: registry.example.com/serving/tf-serving:2.19.0-gpu\nresources:\n  limits: {nvidia.com/gpu: 1}",
		Fix: "Use the GPU build of the image for GPU requests, or drop the GPU request for a CPU image.",
		References: []string{
			"https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html",
			"https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/",
		},
	},
	Check: checkGPUImage,
}

func checkGPUImage(pass *lint.Pass) {
	gpuResource := pass.Config.GPUResourceName()
	for _, c := range imageChecks(pass, false) {
		if c.container == nil || c.container.Init {
			continue
		}
		resource, _, wantsGPU := requestedAccelerator(pass, c.container)
		if wantsGPU && !gpu.IsNVIDIA(resource) {
			// An AMD GPU, a Gaudi or a TPU runs its vendor's build, not
			// CUDA's: whether the image has that is another question.
			continue
		}
		toolkit, hasCUDA := imageCUDA(c)
		framework, hasFramework := frameworkCUDA(c)
		switch {
		case wantsGPU && !hasCUDA && hasFramework:
			pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: c.container.Path + ".resources", Image: lint.ImageLocation{Reference: c.img.Reference, Path: framework.Path}, Message: fmt.Sprintf("%s requests %s but image %s has no CUDA: its %s is a CPU build (%s says %s) and the image has no "+
				"CUDA toolkit: the GPU sits idle while the app runs on CPU%s; install a CUDA build (%s) or drop the GPU request", describe(c.container), resource, c.img.Reference, strings.TrimSpace(framework.Name+" "+framework.Version), framework.Path, framework.CPUEvidence, cpuBuildSymptom[framework.Name], cudaBuildInstall(framework.Name))})
		case wantsGPU && !hasCUDA:
			pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: c.container.Path + ".resources", Image: lint.ImageLocation{Reference: c.img.Reference}, Message: fmt.Sprintf("%s requests %s but image %s has no CUDA (no CUDA_VERSION or NVIDIA_REQUIRE_CUDA in its config, no "+
				"/usr/local/cuda/version.json): the GPU sits idle while the server runs on CPU; use the image's GPU build "+
				"or drop the GPU request", describe(c.container), resource, c.img.Reference)})
		case hasCUDA && !wantsGPU && (c.container.Serving() || toolkit.FromFramework && longRunning(c.container)):
			pass.Report(lint.Diagnostic{Severity: lint.Warning, Path: c.field(), Image: lint.ImageLocation{Reference: c.img.Reference}, Message: fmt.Sprintf("%s: image %s is built for CUDA %s (from %s) but the container requests no %s: it is scheduled on "+
				"nodes without a GPU, where CUDA fails to initialise or the server falls back to CPU; request a GPU "+
				"or use the CPU build", describe(c.container), c.img.Reference, orUnknown(toolkit.Version), toolkit.From, gpuResource)})
		}
	}
}

// cpuBuildSymptom is what a framework's CPU build says when asked for
// the GPU.
var cpuBuildSymptom = map[string]string{
	"torch":       " (torch.cuda.is_available() is False)",
	"tensorflow":  " (tf.config.list_physical_devices('GPU') is empty)",
	"onnxruntime": " (CUDAExecutionProvider is not among onnxruntime.get_available_providers())",
}

// cudaBuildInstall is how a framework's CUDA build is installed.
func cudaBuildInstall(name string) string {
	switch name {
	case "torch":
		return "pip install torch --index-url https://download.pytorch.org/whl/cu124"
	case "tensorflow":
		return "pip install 'tensorflow[and-cuda]'"
	case "onnxruntime":
		return "pip uninstall onnxruntime && pip install onnxruntime-gpu"
	}
	return "the package's CUDA build"
}

// longRunning says a container serves something: it declares a port or
// a readiness probe.
func longRunning(c *manifest.Container) bool {
	return len(c.Ports) > 0 || c.ReadinessProbe != nil
}

var modelUnreadable = &lint.Rule{
	ID: "MDL406", Name: "model-unreadable", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest, lint.FactImage},
	Doc: lint.Doc{
		Summary: "The container's user cannot read the model files baked into the image, or cannot enter a directory above them.",
		Why: "A model copied into the image as root with mode 0600 (or under a 0700 directory) cannot be read by a " +
			"container that runs as another user (runAsUser, a non-root USER): the server fails with " +
			"\"Permission denied\" while loading and never becomes Ready. Every directory above the model must let the user " +
			"through too (a search bit for its class): a model under root's 0700 /root is out of reach for uid 1000 whatever " +
			"its own modes. The finding names every directory on the way that keeps the user out, topmost first, as MDL302 does: opening only the topmost leaves the server stopped at the next. Only models found in the image (the server's " +
			"path is not under a volumeMount) are checked.",
		Bad: "# docker build -t registry.example.com/resnet-serving:2.19.0 .\nFROM scratch\n" +
			"COPY server /usr/bin/tensorflow_model_server\nCOPY --chmod=600 <<EOF /models/resnet/1/saved_model.pb\nEOF\n" +
			"ENTRYPOINT [\"/usr/bin/tensorflow_model_server\"]\n---\n" + docResnetInImage,
		Good: "# docker build -t registry.example.com/resnet-serving:2.19.0 .\nFROM scratch\n" +
			"COPY server /usr/bin/tensorflow_model_server\nCOPY --chown=1000:1000 --chmod=600 <<EOF /models/resnet/1/saved_model.pb\nEOF\n" +
			"ENTRYPOINT [\"/usr/bin/tensorflow_model_server\"]\n---\n" + docResnetInImage,
		Fix:        "Make the model readable by the runtime user: chown it to that user, or give it mode 0644 (dirs 0755); give the directories above it the search bit, or move it out of a private home.",
		References: []string{"https://docs.docker.com/reference/dockerfile/#copy---chown---chmod"},
	},
	Check: checkModelReadable,
}

// docResnetInImage is the container of MDL406's examples: it runs as uid
// 1000 and loads the model its image holds, with no volume over it.
const docResnetInImage = "image: registry.example.com/resnet-serving:2.19.0\nsecurityContext: {runAsUser: 1000}\nvolumeMounts: []   # the model is in the image"

func checkModelReadable(pass *lint.Pass) {
	var coverage lint.Coverage
	for _, link := range pass.Target.Links {
		c := link.Container
		img := pass.Target.Images[c.Image]
		if link.Mount != nil || !lint.LocalPath(link.ServerPath.Value) || img == nil || img.FS() == nil {
			continue
		}
		root, err := img.FS().Stat(link.ServerPath.Value)
		if err != nil {
			continue // not in the image: MDL403
		}
		coverage.Checked()
		user := launch.ResolveUser(launch.ForContainer(c.Started(), pass.Workload().Spec, img), img)
		if bundle := pass.Target.Bundle(c); bundle != nil && bundle.Process.Read {
			user = bundle.Process.User
		}
		if blocked := launch.BlockingDirs(img.FS(), user, link.ServerPath.Value); len(blocked) > 0 {
			pass.Report(lint.Diagnostic{Severity: lint.Error, NeverReady: true, Path: linkField(link), Image: lint.ImageLocation{Reference: img.Reference, Path: blocked[0].Path},
				Message: fmt.Sprintf("%s runs as uid %d (%s) and cannot reach the model %s in image %s: %s", describe(c), user.UID, user.From,
					link.ServerPath.Value, img.Reference, modelSearchFix(user, blocked))})
			continue
		}
		var denied []string
		visit(img.FS(), root, link.ServerPath.Value, func(node *rootfs.Node, p string) {
			if len(denied) < 3 && !readable(node, user) {
				denied = append(denied, fmt.Sprintf("%s (%04o, uid %d, gid %d)", p, node.Mode&0o7777, node.UID, node.GID))
			}
		})
		if len(denied) > 0 {
			pass.Report(lint.Diagnostic{Severity: lint.Error, NeverReady: true, Path: linkField(link), Image: lint.ImageLocation{Reference: img.Reference, Path: link.ServerPath.Value}, Message: fmt.Sprintf("%s runs as uid %d (%s) and cannot read the model in image %s: %s: the server fails with "+
				"\"Permission denied\" while loading; chown the model to that user or make it world-readable "+
				"(files 0644, dirs 0755)", describe(c), user.UID, user.From, img.Reference, strings.Join(denied, ", "))})
		}
	}
	coverage.SkipIfNone(pass, "no model is baked into a read image")
}

// modelSearchFix says which directories above a model keep the user out,
// and opens each: opening only the topmost leaves the user stopped at
// the next (as MDL302 says of a program).
func modelSearchFix(user launch.User, blocked []launch.Dir) string {
	if len(blocked) == 1 {
		dir := blocked[0]
		return fmt.Sprintf("directory %s (%s, owner %d:%d) has no search bit for it, so the server fails with \"Permission denied\" "+
			"while loading, whatever the model's own modes; give %s the search bit (chmod %s+x %s, or mode 0755) or move the model out of it",
			dir.Path, dir.Mode, dir.UID, dir.GID, dir.Path, permissionClass(user, dir.UID, dir.GID), dir.Path)
	}
	described := make([]string, len(blocked))
	for i, dir := range blocked {
		described[i] = fmt.Sprintf("%s (%s, owner %d:%d)", dir.Path, dir.Mode, dir.UID, dir.GID)
	}
	return fmt.Sprintf("directories %s have no search bit for it, so the server fails with \"Permission denied\" while loading, "+
		"whatever the model's own modes; give each the search bit (%s, or mode 0755) or move the model out of them",
		joinAnd(described), searchBitCommands(user, blocked))
}

// maxVisited bounds the walk over a model baked into an image.
const maxVisited = 100000

// visit calls fn for node and everything below it, with its path.
func visit(fs *rootfs.FS, node *rootfs.Node, p string, fn func(*rootfs.Node, string)) {
	count := 0
	var walk func(*rootfs.Node, string)
	walk = func(node *rootfs.Node, p string) {
		if count++; count > maxVisited {
			return
		}
		fn(node, p)
		if node.Type != rootfs.Dir {
			return
		}
		for _, name := range node.Children() {
			child, err := fs.Lstat(path.Join(p, name))
			if err == nil {
				walk(child, path.Join(p, name))
			}
		}
	}
	walk(node, p)
}

// readable says whether user may read a file (and list and enter a dir),
// with the permission class the kernel picks: owner, then group, then other.
func readable(node *rootfs.Node, user launch.User) bool {
	if user.UID == 0 || node.Type == rootfs.Symlink {
		return true // root bypasses permission bits; links are judged at their target
	}
	need := uint32(0o4)
	if node.Type == rootfs.Dir {
		need = 0o5
	}
	shift := 0
	switch {
	case node.UID == user.UID:
		shift = 6
	case node.GID == user.GID || containsGID(user.Groups, node.GID):
		shift = 3
	}
	return (node.Mode>>shift)&need == need
}

func containsGID(groups []uint32, gid uint32) bool {
	for _, g := range groups {
		if g == gid {
			return true
		}
	}
	return false
}

var frameworkVersionMismatch = &lint.Rule{
	ID: "MDL407", Name: "framework-version-mismatch", Severity: lint.Warning,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest, lint.FactModel},
	Doc: lint.Doc{
		Summary: "The SavedModel was written by a newer TensorFlow than the TF Serving image runs.",
		Why: "A SavedModel can use ops and attributes that older TensorFlow does not know. TF Serving built on an " +
			"older TensorFlow then fails to load it (\"Op type not registered\", \"NodeDef mentions attr … not in " +
			"Op\") and the model never becomes available. The SavedModel records the version that wrote it " +
			"(meta_info_def.tensorflow_version); the serving image's version is read from its tag (tensorflow/serving:2.11.0).",
		Bad:        "image: tensorflow/serving:2.11.0\n---\n" + docResnetTF215,
		Good:       "image: tensorflow/serving:2.15.0\n---\n" + docResnetTF215,
		Fix:        "Serve with a TF Serving release at least as new as the TensorFlow that exported the model, or export with an older TensorFlow.",
		References: []string{"https://www.tensorflow.org/guide/versions#compatibility_of_savedmodels_graphs_and_checkpoints"},
	},
	Check: checkFrameworkVersion,
}

// docResnetTF215 is the model dir of MDL407's examples: a SavedModel
// written by TensorFlow 2.15.0.
const docResnetTF215 = "# model dir\nmodels/resnet/\n  1/\n    saved_model.pb <<pbtxt\n" +
	"      meta_graphs {\n        meta_info_def { tags: \"serve\" tensorflow_version: \"2.15.0\" }\n      }\n    pbtxt"

// servingTag reads the version from a TF Serving image tag ("2.11.0-gpu").
var servingTag = lazyregexp.New(`:(\d+)\.(\d+)(?:\.\d+)?(?:-[a-z0-9.-]+)?(?:@|$)`)

func checkFrameworkVersion(pass *lint.Pass) {
	var coverage lint.Coverage
	for _, link := range linkedModels(pass) {
		c := link.Container
		if !c.Runtime.TagIsFramework {
			continue
		}
		m := servingTag.FindStringSubmatch(c.Image)
		if m == nil {
			continue
		}
		serving := [2]int{atoi(m[1]), atoi(m[2])}
		written, version := newestTensorFlow(link.Model)
		if written == "" {
			continue
		}
		coverage.Checked()
		if version[0] > serving[0] || (version[0] == serving[0] && version[1] > serving[1]) {
			pass.Reportf(c.Path+".image", "%s: model %s was written by TensorFlow %s but image %s serves with TensorFlow "+
				"%d.%d: newer ops or attributes fail to load (\"Op type not registered\"); use tensorflow/serving:%d.%d or newer",
				describe(c), link.Model.Dir, written, c.Image, serving[0], serving[1], version[0], version[1])
		}
	}
	coverage.SkipIfNone(pass, "no TF Serving container with a versioned image tag serves a linked SavedModel")
}

// newestTensorFlow is the newest TensorFlow version among the resident
// versions' SavedModels.
func newestTensorFlow(m *model.Model) (string, [2]int) {
	var newest string
	var parsed [2]int
	for _, v := range m.Resident() {
		if v.SavedModel == nil || v.SavedModel.Graph == nil {
			continue
		}
		for _, graph := range v.SavedModel.Graph.MetaGraphs {
			text := graph.TensorFlowVersion
			parts := strings.SplitN(text, ".", 3)
			if len(parts) < 2 {
				continue
			}
			version := [2]int{atoi(parts[0]), atoi(parts[1])}
			if newest == "" || version[0] > parsed[0] || (version[0] == parsed[0] && version[1] > parsed[1]) {
				newest, parsed = text, version
			}
		}
	}
	return newest, parsed
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimFunc(s, func(r rune) bool { return r < '0' || r > '9' }))
	return n
}

// copiesText says how many copies of the model the server loads, "" for one.
func copiesText(copies int) string {
	if copies <= 1 {
		return ""
	}
	return fmt.Sprintf(", loaded %d times", copies)
}
