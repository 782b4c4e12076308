package rules

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/lint"
	"github.com/modellint/modellint/lint/cluster"
	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

var listenUnreachable = &lint.Rule{
	ID: "MDL413", Name: "listen-address-unreachable", Severity: lint.Error,
	Artifact: lint.ArtifactCross, Needs: []lint.Fact{lint.FactManifest},
	Doc: lint.Doc{
		Summary: "The server listens on an address the kubelet's probes and the Service cannot reach: loopback, or IPv4 only on a cluster whose pods' primary IP is IPv6.",
		Why: "The kubelet probes a container at the pod's IP, and a Service forwards to the pod's IP. A server bound to " +
			"127.0.0.1 answers neither: the pod never becomes Ready (or its liveness kills it) and no client reaches it. " +
			"Several servers bind loopback unless told otherwise: SGLang (ServerArgs.host = \"127.0.0.1\"), the llama.cpp " +
			"server (--host, LLAMA_ARG_HOST; its project's images set 0.0.0.0), Ollama (OLLAMA_HOST; its image sets " +
			"0.0.0.0:11434) and TorchServe (inference_address, http://127.0.0.1:8080 unless config.properties says " +
			"otherwise). On a cluster whose pods' primary IP is IPv6 (the first pod CIDR of the `--cluster` nodes), an " +
			"IPv4-only bind (0.0.0.0, or vLLM's and Triton's default) is as unreachable; `::` binds both families on " +
			"Linux. Nodes whose CNI assigns pod IPs itself (EKS's VPC CNI, Cilium's cluster pool) give no pod CIDR; " +
			"their InternalIP addresses, when all of one family, tell it, as a warning: a CNI may give pods another.\n\n" +
			"An address written in the manifest or the image's env is certain (error); a server default on an image that " +
			"was not read, whose env may set the address, is a warning that says so. Pods whose platform proxies to the " +
			"server over loopback (KServe's Knative queue-proxy) are not reported, and a pod with another container that " +
			"may proxy to it is a warning unless a probe targets the server's port.",
		Bad:  "command: [python3, -m, sglang.launch_server, --model-path, /models/qwen, --port, \"30000\"]",
		Good: "command: [python3, -m, sglang.launch_server, --model-path, /models/qwen, --host, 0.0.0.0, --port, \"30000\"]",
		Fix:  "Bind every address: --host 0.0.0.0 (--host :: on IPv6 and dual-stack clusters), LLAMA_ARG_HOST, OLLAMA_HOST=0.0.0.0:11434, inference_address=http://0.0.0.0:8080.",
		References: []string{
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/",
			"https://kubernetes.io/docs/concepts/services-networking/dual-stack/",
			"https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py",
			"https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md",
			"https://github.com/ollama/ollama/blob/main/envconfig/config.go",
			"https://github.com/pytorch/serve/blob/master/docs/configuration.md",
		},
	},
	Check: checkListenAddress,
}

// listenAddress is the address a server binds and how that was told.
type listenAddress struct {
	host string
	// from says how ("--host", "env OLLAMA_HOST", "SGLang's default"), and
	// field where the manifest wrote it ("" for none).
	from, field string
	// certain says nothing unread (an image's env) may set another.
	certain bool
}

func checkListenAddress(pass *lint.Pass) {
	w := pass.Workload()
	if platformFillsPod(w) {
		pass.Skip("KServe's Knative queue-proxy reaches the server over loopback")
		return
	}
	family, fromAddresses := "", false
	if pass.Cluster != nil {
		family, fromAddresses = cluster.PodFamily(pass.Cluster.Nodes)
	}
	var coverage lint.Coverage
	for _, c := range servingContainers(pass) {
		address, ok := listenOf(pass, c)
		if !ok {
			coverage.Missed(describe(c) + ": its listen address is not known")
			continue
		}
		coverage.Checked()
		field := fieldOf(c.Path, address.field)
		ip, err := netip.ParseAddr(strings.Trim(address.host, "[]"))
		isIP := err == nil
		switch {
		case address.host == "localhost" || isIP && ip.IsLoopback():
			severity := lint.Error
			assumption := ""
			if !address.certain {
				severity = lint.Warning
				assumption = "; unless the image, which was not read, sets another in its env"
			}
			if others := otherContainers(w, c); len(others) > 0 && !probedAtServer(c) {
				severity = lint.Warning
				assumption += fmt.Sprintf("; container %s of the pod may reach it there and proxy to it", others[0].Name)
			}
			pass.Report(lint.Diagnostic{Severity: severity, Path: field, NeverReady: severity == lint.Error, Message: fmt.Sprintf("%s listens on %s (%s%s), a "+
				"loopback address: the kubelet's probes and the Service connect to the pod's IP, so the pod never becomes "+
				"Ready and no client reaches the server; %s", describe(c), address.host, address.from, assumption, bindAll(c, family))})
		case family == "IPv6" && (address.host == "0.0.0.0" || isIP && ip.Is4()):
			severity := lint.Error
			if !address.certain {
				severity = lint.Warning
			}
			// A CNI may give pods another family than the node's own
			// addresses; only a pod CIDR says for certain.
			told := "their first pod CIDR"
			if fromAddresses {
				severity, told = lint.Warning, "their InternalIP addresses, as they give no pod CIDR"
			}
			pass.Report(lint.Diagnostic{Severity: severity, Path: field, NeverReady: severity == lint.Error, Message: fmt.Sprintf("%s listens on %s (%s), IPv4 "+
				"only, but the pods' primary IP is IPv6 on the nodes of %s (%s): the kubelet's probes and "+
				"the Service never reach it; %s", describe(c), address.host, address.from, pass.Cluster.Path, told, bindAll(c, family))})
		}
	}
	coverage.SkipIfNone(pass, "no serving container's listen address is known")
}

// bindAll says how to make a server bind every address.
func bindAll(c *manifest.Container, family string) string {
	all := "0.0.0.0"
	if family == "IPv6" {
		all = "::"
	}
	switch c.Runtime.Name {
	case "torchserve":
		return "set inference_address=http://" + net.JoinHostPort(all, "8080") + " in config.properties"
	case "ollama":
		return "set OLLAMA_HOST=" + net.JoinHostPort(all, "11434")
	}
	if l := c.Runtime.Listen; l != nil && len(l.Host.Flags) > 0 {
		return "pass " + l.Host.Flags[0] + " " + all
	}
	return "bind " + all
}

// listenOf reads the address a serving container's server binds. A
// default is judged only when the program that runs is the server's own
// (not a wrapper of it), and not for the ranks of a multi-node server
// that serve no HTTP (SGLang's --node-rank above 0, vLLM's --headless).
func listenOf(pass *lint.Pass, c *manifest.Container) (listenAddress, bool) {
	if c.Runtime.Name == "torchserve" {
		return torchServeListen(pass, c)
	}
	l := c.Runtime.Listen
	if l == nil {
		return listenAddress{}, false
	}
	args := serverArgs(pass, c)
	if rank, ok := args.Value(server.Flags("--node-rank")); ok && strings.TrimSpace(rank.Value) != "0" {
		return listenAddress{}, false
	}
	if _, headless := args.Flag("--headless"); headless {
		return listenAddress{}, false
	}
	if value, ok := args.Value(l.Host); ok {
		host := value.Value
		if l.HostPort {
			host = hostOf(host)
		}
		return listenAddress{host: host, from: value.From, field: value.Field, certain: true}, true
	}
	fallback := listenAddress{host: l.Default, from: c.Runtime.Title + "'s default: nothing sets " + l.Host.Name()}
	img := pass.Target.Images[c.Image]
	bundle := pass.Target.Bundle(c)
	switch {
	case img != nil && img.Config != nil && bundle != nil:
		// What runs was followed in the image, whose env is in the args.
		if bundle.Server.Runtime != c.Runtime || !strings.HasPrefix(bundle.Server.By, "program ") {
			return listenAddress{}, false
		}
		fallback.from = c.Runtime.Title + "'s default; neither the container nor image " + img.Reference + " sets " + l.Host.Name()
		fallback.certain = true
	case len(c.Command) > 0:
		if server.ByProgram(argv(c)) != c.Runtime {
			return listenAddress{}, false // a wrapper, whose own defaults are not known
		}
		// The image, not read, may set the env var.
		fallback.certain = len(l.Host.Env) == 0
	case server.ByImage(c.Image) == c.Runtime:
		if l.ImageHost != "" {
			return listenAddress{host: l.ImageHost, from: "the env of " + c.Runtime.Title + "'s image"}, true
		}
	default:
		return listenAddress{}, false // an unknown entrypoint starts it
	}
	return fallback, true
}

// torchServeListen reads inference_address from the config.properties
// TorchServe reads, when it was found.
func torchServeListen(pass *lint.Pass, c *manifest.Container) (listenAddress, bool) {
	for _, file := range pass.Target.ServerFiles {
		if file.Container != c || file.Err != nil || file.Properties == nil {
			continue
		}
		if enabled, _ := file.Properties.Get("enable_envvars_config"); strings.EqualFold(strings.TrimSpace(enabled.Value), "true") {
			if _, ok := serverArgs(pass, c).Env("TS_INFERENCE_ADDRESS"); ok {
				return listenAddress{}, false
			}
		}
		address, ok := file.Properties.Get("inference_address")
		if !ok {
			return listenAddress{host: "127.0.0.1", from: "TorchServe's default inference_address http://127.0.0.1:8080; " +
				file.Setting.Value + " does not set it", field: file.Setting.Field, certain: true}, true
		}
		parsed, err := url.Parse(address.Value)
		if err != nil || parsed.Hostname() == "" {
			return listenAddress{}, false
		}
		return listenAddress{host: parsed.Hostname(), from: "inference_address in " + file.Setting.Value,
			field: file.Setting.Field, certain: true}, true
	}
	return listenAddress{}, false
}

// hostOf is the host of host:port (OLLAMA_HOST=0.0.0.0:11434, or a bare host).
func hostOf(value string) string {
	value = strings.TrimPrefix(strings.TrimPrefix(value, "http://"), "https://")
	if host, _, err := net.SplitHostPort(value); err == nil {
		return host
	}
	return strings.Trim(value, "[]")
}

// otherContainers are the pod's long-running containers besides c.
func otherContainers(w *manifest.Workload, c *manifest.Container) []*manifest.Container {
	var others []*manifest.Container
	for _, other := range regularContainers(w) {
		if other != c {
			others = append(others, other)
		}
	}
	return others
}

// probedAtServer says a probe of the container connects to it, over HTTP,
// TCP or gRPC (an exec probe runs inside it).
func probedAtServer(c *manifest.Container) bool {
	for _, probe := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe, c.StartupProbe} {
		if probe != nil && (probe.HTTPGet != nil || probe.TCPSocket != nil || probe.GRPC != nil) {
			return true
		}
	}
	return false
}
