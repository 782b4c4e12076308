package rules

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/modellint/modellint/lint/manifest"
	"github.com/modellint/modellint/lint/server"
)

func TestChecksNothing(t *testing.T) {
	cases := []struct {
		command []string
		want    bool
	}{
		{[]string{"/bin/bash", "-c", "echo TBD"}, true},
		{[]string{"true"}, true},
		{[]string{"/bin/true"}, true},
		{[]string{"sh", "-c", "exit 0"}, true},
		{[]string{"sh", "-c", ":"}, true},
		{[]string{"sh", "-c", "exit 1"}, false},
		{[]string{"sh", "-c", "echo ok && curl -sf localhost:8000/health"}, false},
		{[]string{"sh", "-c", "echo $(curl -sf localhost:8000/health)"}, false},
		{[]string{"curl", "-sf", "localhost:8000/health"}, false},
		{[]string{"python3", "/scripts/wait_for_ray.py"}, false},
		{[]string{"sh", "/probe.sh"}, false},
	}
	for _, tc := range cases {
		probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: tc.command}}}
		if got := checksNothing(probe); got != tc.want {
			t.Errorf("checksNothing(%q) = %v, want %v", tc.command, got, tc.want)
		}
	}
	if checksNothing(&corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{}}}) {
		t.Error("a tcpSocket probe checks the port")
	}
}

// TestLivenessSuggestion: the probe a liveness finding suggests checks the
// runtime's process-health path on the port the probe checks now, or for
// a runtime without such a path (TF Serving) its health port; a container
// whose probes come from a ServingRuntime keeps a tcpSocket check.
func TestLivenessSuggestion(t *testing.T) {
	onPort := func(path string, port int) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(int32(port))}},
			PeriodSeconds: 10}
	}
	for _, c := range []struct {
		name     string
		argv     []string
		probe    *corev1.Probe
		composed bool
		want     string
	}{
		{"vLLM", []string{"vllm", "serve", "m"}, onPort("/v1/models", 8000), false,
			"livenessProbe:\n  httpGet:\n    path: /health\n    port: 8000\n  periodSeconds: 10\n"},
		{"TF Serving", []string{"tensorflow_model_server", "--port=9000"}, onPort("/v1/models/m", 8501), false,
			"livenessProbe:\n  tcpSocket:\n    port: 9000\n  periodSeconds: 10\n"},
		{"a ServingRuntime's container", []string{"vllm", "serve", "m"}, onPort("/v1/models", 8000), true,
			"livenessProbe:\n  tcpSocket:\n    port: 8000\n  periodSeconds: 10\n"},
	} {
		container := &manifest.Container{Container: &corev1.Container{Command: c.argv, LivenessProbe: c.probe},
			Runtime: server.ByProgram(c.argv), FromServingRuntime: c.composed}
		if got := livenessSuggestion(container); got != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
}

// TestSameHandler: two probes check the same thing when they differ only
// in defaults one of them writes out (scheme HTTP, path /, no headers).
func TestSameHandler(t *testing.T) {
	get := func(action corev1.HTTPGetAction) *corev1.Probe {
		action.Port = intstr.FromInt32(8000)
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &action}}
	}
	for _, c := range []struct {
		name string
		a, b *corev1.Probe
		want bool
	}{
		{"scheme written out", get(corev1.HTTPGetAction{Path: "/health"}), get(corev1.HTTPGetAction{Path: "/health", Scheme: corev1.URISchemeHTTP}), true},
		{"path written out", get(corev1.HTTPGetAction{}), get(corev1.HTTPGetAction{Path: "/"}), true},
		{"empty headers", get(corev1.HTTPGetAction{Path: "/health"}), get(corev1.HTTPGetAction{Path: "/health", HTTPHeaders: []corev1.HTTPHeader{}}), true},
		{"another scheme", get(corev1.HTTPGetAction{Path: "/health"}), get(corev1.HTTPGetAction{Path: "/health", Scheme: corev1.URISchemeHTTPS}), false},
		{"another path", get(corev1.HTTPGetAction{Path: "/health"}), get(corev1.HTTPGetAction{Path: "/ready"}), false},
	} {
		if got := sameHandler(c.a, c.b); got != c.want {
			t.Errorf("%s: sameHandler %v, want %v", c.name, got, c.want)
		}
	}
}

// TestPortValue: a port read from args or env is a TCP port number,
// 1 to 65535; anything else names no port.
func TestPortValue(t *testing.T) {
	for value, want := range map[string]int32{"8080": 8080, " 1 ": 1, "65535": 65535, "0": 0, "65536": 0, "-1": 0, "http": 0, "": 0} {
		port, ok := portValue(value)
		if ok != (want != 0) || ok && port != want {
			t.Errorf("portValue(%q) = %d, %v; want %d", value, port, ok, want)
		}
	}
}

// TestIsPortFlag checks the regular expression's ASCII shortcut against the
// expression itself, where case folding goes beyond ASCII too.
func TestIsPortFlag(t *testing.T) {
	for _, name := range []string{"--port", "--PORT", "-p", "--host", "--grpc-Address", "--listen-on", "--BIND",
		"--model", "--addreſs", "--ᴘort", "--portable", "", "--Kelvin-bınd"} {
		if got, want := isPortFlag(name), portFlag.MatchString(name); got != want {
			t.Errorf("isPortFlag(%q) = %v, want %v", name, got, want)
		}
	}
}

func FuzzIsPortFlag(f *testing.F) {
	f.Add("--port")
	f.Add("--addreſs")
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := isPortFlag(name), portFlag.MatchString(name); got != want {
			t.Errorf("isPortFlag(%q) = %v, want %v", name, got, want)
		}
	})
}
