package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestReadLayouts reads the same nodes written in the layouts a nodes file
// comes in: kubectl's YAML and JSON, the items indented, flow style, CRLF
// line breaks, comments, more documents after the first.
func TestReadLayouts(t *testing.T) {
	want, err := Read("testdata/nodes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	source, err := os.ReadFile("testdata/nodes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	asJSON, err := yaml.YAMLToJSON(source)
	if err != nil {
		t.Fatal(err)
	}
	indented := strings.ReplaceAll(strings.Replace(string(source), "items:\n", "items:\n  # the nodes\n", 1), "\n- ", "\n  - ")
	indented = strings.ReplaceAll(indented, "\n  ", "\n    ")
	indented = strings.ReplaceAll(indented, "\n    - apiVersion", "\n  - apiVersion")
	dir := t.TempDir()
	for name, text := range map[string]string{
		"nodes.json":     string(asJSON),
		"indented.yaml":  indented,
		"flow.yaml":      "apiVersion: v1\nkind: List\nitems: " + string(asJSON[strings.Index(string(asJSON), "["):strings.LastIndex(string(asJSON), "]")+1]) + "\n",
		"crlf.yaml":      strings.ReplaceAll(string(source), "\n", "\r\n"),
		"documents.yaml": "# kubectl get nodes -o yaml\n---\n" + string(source) + "---\nkind: Pod\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Nodes, want.Nodes) {
				t.Errorf("read %+v\nwant %+v", got.Nodes, want.Nodes)
			}
		})
	}
}

// TestReadBounds reads files past the bounds on nodes, a node's values and
// quantities: each is a one-line error naming the file and the bound.
func TestReadBounds(t *testing.T) {
	var many strings.Builder
	many.WriteString("kind: List\nitems:\n")
	for i := range MaxNodes + 1 {
		fmt.Fprintf(&many, "- {kind: Node, metadata: {name: n%d}}\n", i)
	}
	dir := t.TempDir()
	for name, c := range map[string]struct{ text, want string }{
		"many.yaml":     {many.String(), fmt.Sprintf("more than %d nodes", MaxNodes)},
		"labels.yaml":   {"kind: List\nitems:\n- metadata:\n    labels: {" + strings.Repeat("a: b, ", maxNodeValues) + "}\n", fmt.Sprintf("items[0] (line 3): more than %d YAML values", maxNodeValues)},
		"quantity.yaml": {"kind: List\nitems:\n- metadata: {name: n}\n  status: {allocatable: {cpu: 1e-999999999}}\n", "items[0]: allocatable.cpu: quantity"},
		"flow.yaml":     {"kind: List\nitems: [" + strings.Repeat("{metadata: {name: n}}, ", maxNodeValues) + "]\n", "outside a list of nodes as kubectl writes one"},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(path)
		if err == nil || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming the file and saying %q", name, err, c.want)
		}
	}
}

// TestPodFamily: a node's pod family is its first pod CIDR's; a node with
// none (its CNI assigns pod IPs) tells it by its InternalIP addresses when
// they are of one family, and not at all when they are of both.
func TestPodFamily(t *testing.T) {
	node := func(name, spec, addresses string) string {
		return "- kind: Node\n  metadata: {name: " + name + "}\n  spec: {" + spec + "}\n  status:\n    addresses: [" + addresses + "]\n"
	}
	cases := []struct {
		name, items, want string
		fromAddresses     bool
	}{
		{"pod CIDR", node("a", "podCIDRs: [fd00::/64, 10.0.0.0/24]", "{type: InternalIP, address: 10.0.0.1}"), "IPv6", false},
		{"IPv6 addresses", node("a", "", "{type: InternalIP, address: \"2600:1f14::1\"}, {type: ExternalIP, address: 1.2.3.4}"), "IPv6", true},
		{"IPv4 addresses", node("a", "", "{type: InternalIP, address: 10.0.0.1}, {type: Hostname, address: a}"), "IPv4", true},
		{"both families", node("a", "", "{type: InternalIP, address: \"2600:1f14::1\"}, {type: InternalIP, address: 10.0.0.1}"), "", false},
		{"one of each way", node("a", "podCIDR: fd00::/64", "") + node("b", "", "{type: InternalIP, address: \"2600::2\"}"), "IPv6", true},
		{"nodes that differ", node("a", "podCIDR: fd00::/64", "") + node("b", "", "{type: InternalIP, address: 10.0.0.2}"), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "nodes.yaml")
			if err := os.WriteFile(path, []byte("kind: List\nitems:\n"+c.items), 0o644); err != nil {
				t.Fatal(err)
			}
			facts, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if family, fromAddresses := PodFamily(facts.Nodes); family != c.want || fromAddresses != c.fromAddresses {
				t.Errorf("PodFamily = %q, %v; want %q, %v", family, fromAddresses, c.want, c.fromAddresses)
			}
		})
	}
}
