package rules

import (
	"fmt"
	"net/url"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/image/launch"
	"github.com/modellint/modellint/lint/image/launch/shell"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

// Kubernetes' probe defaults, applied when a field is not written.
const (
	defaultPeriodSeconds    = 10
	defaultFailureThreshold = 3
	defaultTimeoutSeconds   = 1
	defaultSuccessThreshold = 1
)

var readinessProbeMissing = &lint.Rule{
	ID: "MDL201", Name: "readiness-probe-missing", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A model-server container has no readinessProbe.",
		Why: "Without a readiness probe a pod is Ready as soon as its container starts. The Service sends it " +
			"requests while the model is still loading (connection refused, 404 or 503 for every request routed there), " +
			"and a rolling update deletes the old pods as soon as the new ones start, long before they can answer. " +
			"InferenceServices and ServingRuntimes are exempt (Knative's queue-proxy adds a readiness check on the user port), " +
			"and so are Seldon workloads (the operator adds a tcpSocket readiness probe to containers that have none).",
		Bad: `containers:
  - name: tf-serving
    image: tensorflow/serving:2.19.0
    args: ["--model_name=resnet", "--model_base_path=/models/resnet"]
    ports:
      - containerPort: 8501`,
		Good: `containers:
  - name: tf-serving
    image: tensorflow/serving:2.19.0
    args: ["--model_name=resnet", "--model_base_path=/models/resnet"]
    ports:
      - containerPort: 8501
    readinessProbe:
      httpGet:
        path: /v1/models/resnet
        port: 8501
      periodSeconds: 5`,
		Fix: "Add a readinessProbe on the server's model-readiness endpoint: TF Serving /v1/models/NAME (port 8501), " +
			"Triton /v2/health/ready (8000), vLLM and TGI /health, TorchServe /ping (8080), KServe and MLServer /v2/health/ready.",
		References: []string{
			"https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/",
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/",
			"https://www.tensorflow.org/tfx/serving/api_rest#model_status_api",
		},
	},
	Check: checkReadinessProbe,
}

func checkReadinessProbe(pass *lint.Pass) {
	w := pass.Workload()
	serving := servingContainers(pass)
	if len(serving) == 0 {
		return
	}
	switch w.Platform {
	case "kserve":
		if w.Object.Kind == "LLMInferenceService" {
			pass.Skip("KServe's LLMInferenceService presets give the vLLM container its probes")
		} else {
			pass.Skip(skipKServeReadiness)
		}
		return
	case "seldon":
		// Seldon Core v1's createContainerService adds them; v2's Server
		// reconciler does not.
		switch {
		case w.Object.Kind == "SeldonDeployment":
			pass.Skip("Seldon's operator adds a readiness probe to model containers that have none")
			return
		case w.Incomplete:
			pass.Skip("the Server's ServerConfig, not in the linted files, may give its containers probes")
			return
		}
	case "kuberay":
		pass.Skip("KubeRay adds readiness and liveness probes to the Ray container")
		return
	}
	for _, c := range serving {
		if c.ReadinessProbe != nil {
			continue
		}
		pass.Reportf(c.Path+".readinessProbe",
			"%s has no readinessProbe: the pod counts as Ready as soon as it starts, so it gets traffic and replaces old pods "+
				"while the model is still loading; add one, e.g. %s", describe(c), suggestedReadiness(c))
	}
}

// suggestedReadiness names a readiness check that fits the container's runtime.
func suggestedReadiness(c *manifest.Container) string {
	hint := c.Runtime.Readiness
	if hint.Path == "" {
		return "an httpGet probe on the server's model-readiness endpoint"
	}
	args := manifestArgs(c)
	path := hint.Path
	if strings.Contains(path, server.ModelNamePlaceholder) {
		name, ok := args.Flag(c.Runtime.Model.NameFlags[0])
		if !ok || name == "" {
			name = "MODEL_NAME"
		}
		path = strings.ReplaceAll(path, server.ModelNamePlaceholder, name)
	}
	if port := hintPort(c, hint, args); port > 0 {
		return fmt.Sprintf("httpGet %s on port %d", path, port)
	}
	return "an httpGet probe on the server's model-readiness endpoint"
}

// hintPort is the port a probe hint names: its flag's value or default,
// else the first port the server listens on; 0 when there is none.
func hintPort(c *manifest.Container, hint server.ProbeHint, args server.Args) int32 {
	if hint.PortFlag != "" {
		return args.Port(hint.PortFlag, hint.Port)
	}
	if ports := c.Runtime.ListenPorts(args); len(ports) > 0 {
		return ports[0]
	}
	return 0
}

// manifestArgs are the container's command, args and literal env values as
// the manifest writes them.
func manifestArgs(c *manifest.Container) server.Args {
	return server.ArgsOf(argv(c), envValues(c))
}

var livenessChecksModel = &lint.Rule{
	ID: "MDL202", Name: "liveness-checks-model", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest}, Fixes: lint.FixUnsafe,
	Doc: lint.Doc{
		Summary: "A model server's livenessProbe checks whether the model is loaded, or is identical to its readinessProbe.",
		Why: "A liveness failure restarts the container. Model-readiness endpoints (/v1/models/NAME, /v2/health/ready, " +
			"/v2/models/NAME/ready) fail for as long as the model is loading, so a model that takes longer to load than the " +
			"liveness budget is killed just before it finishes, every time: the pod restarts forever (CrashLoopBackOff). " +
			"A liveness probe identical to the readiness probe (same check and the same timing) has the same effect under load: " +
			"when the server is busy both fail together, and instead of being taken out of rotation the pod is restarted, " +
			"dropping every in-flight request and reloading the model. The same endpoint with a higher failureThreshold " +
			"(or a longer period) for liveness is the documented pattern and is not reported.",
		Bad: `readinessProbe:
  httpGet: {path: /v1/models/resnet, port: 8501}
livenessProbe:
  httpGet: {path: /v1/models/resnet, port: 8501}`,
		Good: `readinessProbe:
  httpGet: {path: /v1/models/resnet, port: 8501}
startupProbe:
  tcpSocket: {port: 8500}
  periodSeconds: 10
  failureThreshold: 60
livenessProbe:
  tcpSocket: {port: 8500}
  periodSeconds: 10
  failureThreshold: 6`,
		Fix: "Keep the model check in readinessProbe. Point livenessProbe at something that only fails when the process " +
			"is wedged (a tcpSocket on the gRPC port, Triton /v2/health/live, vLLM/TGI /health), give it a higher " +
			"failureThreshold than readiness, and add a startupProbe that covers the model load.",
		References: []string{
			"https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/",
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#define-startup-probes",
			"https://github.com/zegl/kube-score/issues/339",
		},
	},
	Check: checkLivenessChecksModel,
}

func checkLivenessChecksModel(pass *lint.Pass) {
	for _, c := range servingContainers(pass) {
		liveness := c.LivenessProbe
		if liveness == nil || healthIsProcessHealth(c) {
			continue
		}
		if path, field, ok := modelReadyTarget(c, liveness); ok {
			effect := fmt.Sprintf("fails until the model is loaded: a load slower than the liveness budget (%ds) restarts "+
				"the container forever", probeBudget(liveness))
			fix := ", with a startupProbe covering the load"
			if c.StartupProbe != nil {
				effect = "fails whenever the model is unavailable (a reload, a version swap, a failed load): the container is " +
					"then restarted, dropping in-flight requests, instead of only being taken out of rotation"
				fix = ""
			}
			reportFixed(pass, fixLivenessPath(pass, c, field, path), c.Path+".livenessProbe."+field,
				"%s: livenessProbe checks %s, which %s; keep this check in readinessProbe and point liveness at process health "+
					"(e.g. %s)%s", describe(c), path, effect, suggestedLiveness(c), fix)
			continue
		}
		if readiness := c.ReadinessProbe; readiness != nil && sameHandler(liveness, readiness) && sameTiming(liveness, readiness) &&
			!checksNothing(liveness) {
			pass.Reportf(c.Path+".livenessProbe",
				"%s: livenessProbe is identical to readinessProbe (%s, same timing): when the server is busy or reloading both "+
					"fail together and the container is restarted instead of taken out of rotation; give liveness a higher "+
					"failureThreshold (e.g. %d) or a cheaper endpoint",
				describe(c), describeHandler(liveness), 2*orDefault(liveness.FailureThreshold, defaultFailureThreshold))
		}
	}
}

// checksNothing reports an exec probe that succeeds whatever the server
// does (`echo TBD`, `true`, `sh -c "exit 0"`): identical probes of that
// kind never fail together under load, since they never fail.
func checksNothing(probe *corev1.Probe) bool {
	if probe.Exec == nil || len(probe.Exec.Command) == 0 {
		return false
	}
	words := probe.Exec.Command
	if shell.IsShell(path.Base(words[0])) {
		script, _, _, file, ok := launch.ShellOperands(words)
		if !ok || file != "" || strings.ContainsAny(script, ";|&<>$`()\n") {
			return false
		}
		words = strings.Fields(script)
	}
	if len(words) == 0 {
		return false
	}
	switch path.Base(words[0]) {
	case "echo", "true", ":":
		return true
	case "exit":
		return len(words) == 1 || len(words) == 2 && words[1] == "0"
	}
	return false
}

// healthIsProcessHealth reports an LLM server whose /health answers for the
// process (vLLM fails it only when its engine is dead) while a startupProbe
// covers the load: liveness on it, even identical to readiness, restarts
// only a server that is gone.
func healthIsProcessHealth(c *manifest.Container) bool {
	health := c.Runtime.ProcessHealthPath
	return health != "" && c.StartupProbe != nil && c.LivenessProbe.HTTPGet != nil && c.LivenessProbe.HTTPGet.Path == health
}

// urlInCommand finds http(s) URLs in an exec probe's command line.
var urlInCommand = lazyregexp.New(`https?://[^\s'"]+`)

// modelReadyTarget reports whether a probe checks a model-readiness
// endpoint, returning that path and the field that names it.
func modelReadyTarget(c *manifest.Container, probe *corev1.Probe) (string, string, bool) {
	runtime := c.Runtime
	if runtime == nil {
		runtime = server.Generic
	}
	if probe.HTTPGet != nil {
		if runtime.IsModelReadyPath(probe.HTTPGet.Path) {
			return probe.HTTPGet.Path, "httpGet.path", true
		}
		return "", "", false
	}
	if probe.Exec != nil {
		for _, word := range probe.Exec.Command {
			for _, raw := range urlInCommand.FindAllString(word, -1) {
				if parsed, err := url.Parse(raw); err == nil && runtime.IsModelReadyPath(parsed.Path) {
					return parsed.Path, "exec.command", true
				}
			}
		}
	}
	return "", "", false
}

// suggestedLiveness names a process-health check for the runtime.
func suggestedLiveness(c *manifest.Container) string {
	if c.FromServingRuntime {
		// The ports are the ServingRuntime's, not the defaults.
		return "a tcpSocket probe on the serving port"
	}
	hint := c.Runtime.Liveness
	switch {
	case hint.Path != "":
		return "httpGet " + hint.Path
	case hint.PortFlag != "":
		if port := hintPort(c, hint, manifestArgs(c)); port > 0 {
			return fmt.Sprintf("tcpSocket on port %d", port)
		}
	}
	return "a tcpSocket probe on the serving port"
}

// fixLivenessPath points an httpGet liveness probe at the server's
// process-health path. Unsafe: liveness then passes while the model is not
// loaded, which is the point, but it is a change of behaviour. A probe
// that must change kind (TF Serving's tcpSocket) stays a suggestion.
func fixLivenessPath(pass *lint.Pass, c *manifest.Container, field, path string) *lint.Fix {
	live, ok := strings.CutPrefix(suggestedLiveness(c), "httpGet ")
	description := "point livenessProbe at process health (" + suggestedLiveness(c) + ")"
	if !ok || field != "httpGet.path" || !fixable(c) {
		return lint.EditFix(description, livenessSuggestion(c))
	}
	edits, suggestion := setField(pass.Workload().Object, c.Path+".livenessProbe.httpGet.path", live, sameText(path))
	return lint.EditFix(description, suggestion, edits...)
}

// livenessSuggestion is the probe suggestedLiveness names, as YAML to
// paste over the livenessProbe: its handler on the port the probe checks
// now (the runtime's health port when it has its own), its timing kept.
func livenessSuggestion(c *manifest.Container) string {
	probe := c.LivenessProbe
	port := "8080 # the server's port"
	switch {
	case probe.HTTPGet != nil:
		port = probe.HTTPGet.Port.String()
	case probe.TCPSocket != nil:
		port = probe.TCPSocket.Port.String()
	case probe.GRPC != nil:
		port = strconv.Itoa(int(probe.GRPC.Port))
	case len(c.Ports) > 0:
		port = strconv.Itoa(int(c.Ports[0].ContainerPort))
	}
	handler := "  tcpSocket:\n    port: " + port + "\n"
	if hint := c.Runtime.Liveness; !c.FromServingRuntime && hint.Path != "" {
		handler = "  httpGet:\n    path: " + hint.Path + "\n    port: " + port + "\n"
	} else if !c.FromServingRuntime && hint.PortFlag != "" {
		if hinted := hintPort(c, hint, manifestArgs(c)); hinted > 0 {
			handler = fmt.Sprintf("  tcpSocket:\n    port: %d\n", hinted)
		}
	}
	var timing strings.Builder
	for _, field := range []struct {
		key   string
		value int32
	}{{"initialDelaySeconds", probe.InitialDelaySeconds}, {"periodSeconds", probe.PeriodSeconds},
		{"timeoutSeconds", probe.TimeoutSeconds}, {"failureThreshold", probe.FailureThreshold}} {
		if field.value != 0 {
			fmt.Fprintf(&timing, "  %s: %d\n", field.key, field.value)
		}
	}
	return "livenessProbe:\n" + handler + timing.String()
}

func orDefault(value, fallback int32) int32 {
	if value == 0 {
		return fallback
	}
	return value
}

// sameHandler compares what two probes check, ignoring defaults that were
// merely written out.
func sameHandler(a, b *corev1.Probe) bool {
	normalise := func(h corev1.ProbeHandler) corev1.ProbeHandler {
		if h.HTTPGet != nil {
			get := *h.HTTPGet
			if get.Scheme == "" {
				get.Scheme = corev1.URISchemeHTTP
			}
			if get.Path == "" {
				get.Path = "/"
			}
			if len(get.HTTPHeaders) == 0 {
				get.HTTPHeaders = nil
			}
			h.HTTPGet = &get
		}
		return h
	}
	return reflect.DeepEqual(normalise(a.ProbeHandler), normalise(b.ProbeHandler))
}

// sameTiming compares when two probes run and how many results they need.
func sameTiming(a, b *corev1.Probe) bool {
	return a.InitialDelaySeconds == b.InitialDelaySeconds &&
		orDefault(a.PeriodSeconds, defaultPeriodSeconds) == orDefault(b.PeriodSeconds, defaultPeriodSeconds) &&
		orDefault(a.TimeoutSeconds, defaultTimeoutSeconds) == orDefault(b.TimeoutSeconds, defaultTimeoutSeconds) &&
		orDefault(a.SuccessThreshold, defaultSuccessThreshold) == orDefault(b.SuccessThreshold, defaultSuccessThreshold) &&
		orDefault(a.FailureThreshold, defaultFailureThreshold) == orDefault(b.FailureThreshold, defaultFailureThreshold)
}

// describeHandler says what a probe checks, for messages.
func describeHandler(probe *corev1.Probe) string {
	switch {
	case probe.HTTPGet != nil:
		return fmt.Sprintf("httpGet %s on port %s", orSlash(probe.HTTPGet.Path), probe.HTTPGet.Port.String())
	case probe.TCPSocket != nil:
		return "tcpSocket on port " + probe.TCPSocket.Port.String()
	case probe.GRPC != nil:
		return fmt.Sprintf("grpc on port %d", probe.GRPC.Port)
	case probe.Exec != nil:
		return "exec " + strings.Join(probe.Exec.Command, " ")
	}
	return "no handler"
}

func orSlash(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

var startupProbeMissing = &lint.Rule{
	ID: "MDL203", Name: "startup-probe-missing", Severity: lint.Warning,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest}, Fixes: lint.FixSafe,
	Doc: lint.Doc{
		Summary: "A model server has a livenessProbe, no startupProbe, and the liveness budget is shorter than a model load.",
		Why: "Liveness starts checking after initialDelaySeconds and restarts the container after failureThreshold failures, " +
			"periodSeconds apart (defaults: 0 + 10 × 3 = 30 seconds). Loading a model (downloading weights, building the graph, " +
			"warming up, moving tensors to the GPU) regularly takes longer, and the container is killed while loading, again " +
			"and again: CrashLoopBackOff with the model never served. A startupProbe holds liveness off until the server is up. " +
			"The minimum budget is probes.minStartupSeconds in .modellint.yaml (default 60); model size aware checks are MDL402.\n\n" +
			"A server that downloads its model from the Hugging Face Hub when it starts (vLLM --model or `vllm serve` " +
			"org/name, TGI --model-id or MODEL_ID, SGLang --model-path, llama.cpp --hf-repo; not with HF_HUB_OFFLINE) " +
			"is an error: without a startupProbe the liveness budget must cover the download and the load, estimated as " +
			"bytes ÷ downloadMiBPerSecond (100) + bytes ÷ loadMiBPerSecond (100) + startupSeconds (10) under `estimates:`. " +
			"The bytes are an estimate from the parameter count in the model's name (8B × 2 bytes, 0.5 for AWQ/GPTQ, 1 " +
			"for FP8, about 0.6 for llama.cpp's default Q4_K_M); a name without one counts as 2 GiB, the smallest " +
			"multi-GB model. Killed mid-download, the server starts over on each restart; when its Hugging Face cache " +
			"(HF_HOME, HF_HUB_CACHE, /root/.cache/huggingface, TGI's /data) is on a PersistentVolumeClaim each restart " +
			"resumes the download instead, and when the budget covers the load alone the finding is a warning.",
		Bad: `livenessProbe:
  httpGet: {path: /health, port: 8000}
  periodSeconds: 10
  failureThreshold: 3`,
		Good: `startupProbe:
  httpGet: {path: /health, port: 8000}
  periodSeconds: 10
  failureThreshold: 60      # up to 10 minutes to load
livenessProbe:
  httpGet: {path: /health, port: 8000}
  periodSeconds: 10
  failureThreshold: 3`,
		Fix: "Add a startupProbe whose periodSeconds × failureThreshold covers the slowest model load, or raise the " +
			"livenessProbe's initialDelaySeconds above it.",
		References: []string{
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#define-startup-probes",
			"https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#Probe",
		},
	},
	Check: checkStartupProbe,
}

func checkStartupProbe(pass *lint.Pass) {
	minimum := pass.Config.MinStartupSeconds()
	for _, c := range servingContainers(pass) {
		liveness := c.LivenessProbe
		if liveness == nil || c.StartupProbe != nil || checksNothing(liveness) {
			continue // a liveness probe that never fails restarts nothing
		}
		if download, ok := hubDownloadOf(c); ok && checkHubDownloadBudget(pass, c, download) {
			continue
		}
		budget := probeBudget(liveness)
		if budget >= minimum {
			continue
		}
		// Sized for the linked model's load too, which MDL402 would ask next.
		seconds := float64(minimum)
		for _, link := range linkedModels(pass) {
			if link.Container == c {
				bytes, _ := servedBytes(link.Model)
				seconds = max(seconds, estimateLoad(pass, link, bytes).Seconds)
			}
		}
		reportFixed(pass, addStartupProbe(pass, c, liveness, seconds), c.Path+".startupProbe",
			"%s has no startupProbe and its livenessProbe restarts it after %ds (initialDelaySeconds %d + periodSeconds %d × "+
				"failureThreshold %d), less than the %ds a model server is given to load; add a startupProbe with "+
				"periodSeconds × failureThreshold ≥ %d, or raise initialDelaySeconds",
			describe(c), budget, liveness.InitialDelaySeconds, orDefault(liveness.PeriodSeconds, defaultPeriodSeconds),
			orDefault(liveness.FailureThreshold, defaultFailureThreshold), minimum, minimum)
	}
}

var probePortUnknown = &lint.Rule{
	ID: "MDL204", Name: "probe-port-unknown", Severity: lint.Error,
	Artifact: lint.ArtifactManifest, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "A probe's port is neither declared nor one the server listens on, or names a port that is not defined.",
		Why: "A probe on a port nothing listens on always fails with connection refused: with readiness the pod is never " +
			"Ready, with liveness or startup it is restarted forever. A named port that the container does not define fails " +
			"the same way. Ports are taken from containerPort, from the runtime's defaults and flags (TF Serving 8500/8501 and " +
			"--rest_api_port, Triton 8000-8002 and --http-port, ...) and from any port named in args or env " +
			"(--port=N, --health-probe-addr=:N), so a server configured by flags is not reported. Containers share the pod's " +
			"network, so a numeric port any container of the pod (or a native sidecar) declares or listens on is valid: a " +
			"server probed through its HTTP sidecar is not reported. Named ports resolve in the probed container only, as the " +
			"kubelet resolves them. Numeric ports are checked " +
			"on model-server containers only; named ports on every container. Probes of an InferenceService's model " +
			"shorthand (ports come from its ServingRuntime), probes without a port under KServe (Knative uses the user port) " +
			"probes against another host, and the http and grpc port names Seldon's operator adds are not checked.",
		Bad: `ports:
  - name: grpc
    containerPort: 8500
readinessProbe:
  httpGet: {path: /v1/models/resnet, port: rest}`,
		Good: `ports:
  - name: grpc
    containerPort: 8500
  - name: rest
    containerPort: 8501
readinessProbe:
  httpGet: {path: /v1/models/resnet, port: rest}`,
		Fix: "Point the probe at a port the server listens on, or declare the named port under the container's ports.",
		References: []string{
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#use-a-named-port",
			"https://github.com/stackrox/kube-linter/pull/1197",
			"https://github.com/openvinotoolkit/model_server/pull/4453",
		},
	},
	Check: checkProbePorts,
}

// probeKinds are the probe fields of a container, in the order they are checked.
var probeKinds = []string{"readinessProbe", "livenessProbe", "startupProbe"}

// probePort returns the port a probe targets, the field that holds it, and
// whether the probe checks another host.
func probePort(probe *corev1.Probe) (port intstr.IntOrString, field string, remote bool, ok bool) {
	switch {
	case probe.HTTPGet != nil:
		return probe.HTTPGet.Port, "httpGet.port", probe.HTTPGet.Host != "", true
	case probe.TCPSocket != nil:
		return probe.TCPSocket.Port, "tcpSocket.port", probe.TCPSocket.Host != "", true
	case probe.GRPC != nil:
		return intstr.FromInt32(probe.GRPC.Port), "grpc.port", false, true
	}
	return intstr.IntOrString{}, "", false, false
}

func checkProbePorts(pass *lint.Pass) {
	w := pass.Workload()
	servingSeen := false
	for _, c := range w.Containers {
		if c.Serving() {
			servingSeen = true
		}
		if c.FromServingRuntime {
			continue
		}
		var known *listenPorts
		for _, kind := range probeKinds {
			probe := containerProbe(c, kind)
			if probe == nil {
				continue
			}
			port, field, remote, ok := probePort(probe)
			if !ok || remote {
				continue
			}
			path := c.Path + "." + kind + "." + field
			if port.Type == intstr.String {
				if port.StrVal == "" {
					continue
				}
				if n, err := strconv.Atoi(port.StrVal); err != nil {
					if !(w.Platform == "seldon" && (port.StrVal == "http" || port.StrVal == "grpc")) {
						// Seldon's operator adds the "http" or "grpc" port itself.
						checkNamedPort(pass, c, kind, path, port.StrVal)
					}
					continue
				} else {
					port = intstr.FromInt(n)
				}
			}
			if port.IntVal == 0 {
				if w.Platform == "" {
					neverReady(pass).Reportf(path, "%s: %s has no port: the API server rejects the pod; set it to the port the server listens on",
						c.Label(), kind)
				}
				continue
			}
			if !c.Serving() {
				continue
			}
			if known == nil {
				known = containerListenPorts(w, c)
			}
			if known.empty() || known.has(port.IntVal) || siblingListens(w, c, port.IntVal) {
				continue
			}
			probeFails(pass, kind).Reportf(path,
				"%s: %s probes port %d, but the container listens on %s: the probe fails with connection refused%s; "+
					"point it at the right port or declare the port the server is started with",
				describe(c), kind, port.IntVal, known.describe(), probeFailureEffect(kind))
		}
	}
	if !servingSeen && len(pass.Workload().Containers) > 0 {
		pass.Skip(skipNoModelServer)
	}
}

// probeFails is the pass to report a probe that always fails on: one that
// marks the finding NeverReady for a readinessProbe.
func probeFails(pass *lint.Pass, kind string) *lint.Pass {
	if kind == "readinessProbe" {
		return neverReady(pass)
	}
	return pass
}

func probeFailureEffect(kind string) string {
	if kind == "readinessProbe" {
		return ", so the pod never becomes Ready"
	}
	return ", so the container is restarted forever"
}

func checkNamedPort(pass *lint.Pass, c *manifest.Container, kind, path, name string) {
	var names []string
	for _, port := range c.Ports {
		if port.Name == name {
			return
		}
		if port.Name != "" {
			names = append(names, port.Name)
		}
	}
	declared := "the container has no named ports"
	if len(names) > 0 {
		declared = "the container's named ports are " + joinAnd(names)
	}
	probeFails(pass, kind).Reportf(path, "%s: %s uses the port name %q, but %s: the probe fails (port not found)%s; add the name to a containerPort or use the number",
		c.Label(), kind, name, declared, probeFailureEffect(kind))
}

// siblingListens reports whether another container of the pod declares or
// listens on port: containers share the pod's network namespace, so a probe
// may reach a sidecar (an HTTP front of a gRPC server, say). Init containers
// count only as native sidecars (restartPolicy: Always): the others have
// exited before probes start.
func siblingListens(w *manifest.Workload, c *manifest.Container, port int32) bool {
	for _, other := range w.Containers {
		sidecar := other.Init && other.RestartPolicy != nil && *other.RestartPolicy == corev1.ContainerRestartPolicyAlways
		if other != c && (!other.Init || sidecar) && containerListenPorts(w, other).has(port) {
			return true
		}
	}
	return false
}

// listenPorts are the ports a container is known to listen on, with where
// each was learned.
type listenPorts struct {
	sources map[int32]string
}

func (l *listenPorts) add(port int32, source string) {
	if port <= 0 || port > 65535 {
		return
	}
	if _, ok := l.sources[port]; !ok {
		l.sources[port] = source
	}
}

func (l *listenPorts) has(port int32) bool { _, ok := l.sources[port]; return ok }
func (l *listenPorts) empty() bool         { return len(l.sources) == 0 }

func (l *listenPorts) describe() string {
	ports := make([]int, 0, len(l.sources))
	for port := range l.sources {
		ports = append(ports, int(port))
	}
	sort.Ints(ports)
	var parts []string
	for _, port := range ports {
		parts = append(parts, fmt.Sprintf("%d (%s)", port, l.sources[int32(port)]))
	}
	return joinAnd(parts)
}

// containerListenPorts collects declared ports, the runtime's ports given its
// flags and env, and ports named in args or env.
func containerListenPorts(w *manifest.Workload, c *manifest.Container) *listenPorts {
	known := &listenPorts{sources: map[int32]string{}}
	for _, port := range c.Ports {
		known.add(port.ContainerPort, "containerPort")
	}
	if c.Runtime != nil {
		for _, port := range c.Runtime.ListenPorts(manifestArgs(c)) {
			known.add(port, c.Runtime.Title)
		}
	}
	for _, port := range portsInArgs(argv(c)) {
		known.add(port, "args")
	}
	for _, env := range c.Env {
		if env.ValueFrom != nil {
			continue
		}
		if port, ok := portValue(env.Value); ok && strings.Contains(strings.ToUpper(env.Name), "PORT") {
			known.add(port, "env "+env.Name)
		}
		if port, ok := hostPortValue(env.Value); ok {
			known.add(port, "env "+env.Name)
		}
	}
	if platformFillsPod(w) && len(c.Ports) == 0 {
		known.add(8080, "Knative's default user port")
	}
	return known
}

// portFlag matches flag names that set a listening port or address.
var portFlag = lazyregexp.New(`(?i)(port|addr|address|listen|bind)`)

// isPortFlag is portFlag.MatchString, its ASCII names without the
// regular expression: a run reads every word of every container's args.
func isPortFlag(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return portFlag.MatchString(name) // case folds beyond ASCII
		}
	}
	name = strings.ToLower(name)
	return strings.Contains(name, "port") || strings.Contains(name, "addr") || strings.Contains(name, "listen") ||
		strings.Contains(name, "bind")
}

// hostPort matches ":8080", "0.0.0.0:8080", "localhost:8080", "[::]:8080",
// optionally after a URL scheme.
var hostPort = lazyregexp.New(`^(?:[a-z][a-z0-9+.-]*://)?(?:[A-Za-z0-9_.-]*|\[[0-9A-Fa-f:]*\]):(\d{1,5})/?$`)

// portsInArgs finds ports the command line tells the server to listen on:
// --port=N, --port N, --health-probe-addr=:N, host:N. Shell scripts
// (sh -c "...") are split into words first.
func portsInArgs(args []string) []int32 {
	var words []string
	for _, arg := range args {
		words = append(words, strings.Fields(arg)...)
	}
	var ports []int32
	for i, word := range words {
		word = strings.Trim(word, `"'`)
		if key, value, ok := strings.Cut(word, "="); ok {
			value = strings.Trim(value, `"'`)
			if port, ok := portValue(value); ok && isPortFlag(key) {
				ports = append(ports, port)
			}
			if port, ok := hostPortValue(value); ok {
				ports = append(ports, port)
			}
			continue
		}
		if strings.HasPrefix(word, "-") && isPortFlag(word) && i+1 < len(words) {
			next := strings.Trim(words[i+1], `"'`)
			if port, ok := portValue(next); ok {
				ports = append(ports, port)
			}
			if port, ok := hostPortValue(next); ok {
				ports = append(ports, port)
			}
			continue
		}
		if port, ok := hostPortValue(word); ok {
			ports = append(ports, port)
		}
	}
	return ports
}

func portValue(value string) (int32, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(value))
	return int32(n), err == nil && n > 0 && n < 65536
}

func hostPortValue(value string) (int32, bool) {
	if !strings.Contains(value, ":") { // what hostPort needs, before its match
		return 0, false
	}
	m := hostPort.FindStringSubmatch(strings.TrimSpace(value))
	if m == nil {
		return 0, false
	}
	return portValue(m[1])
}
