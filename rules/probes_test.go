package rules

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
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
