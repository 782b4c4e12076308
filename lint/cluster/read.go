package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/internal/quantity"
	"github.com/modellint/modellint/internal/yamlsize"
)

// Bounds on a nodes file besides MaxFileBytes. The file is read once, a
// node at a time, and only what the facts hold is kept; a node's YAML is
// parsed whole, so its values are bounded before it is. Each is far above
// what `kubectl get nodes -o yaml` writes of a cluster as large as
// Kubernetes supports that fits in MaxFileBytes.
const (
	MaxNodes = 20_000
	// maxNodeValues bounds the YAML values of one node, its kubelet's
	// images and conditions included, and of what is outside the items.
	maxNodeValues = 20_000
	// maxLabels bounds the labels of all nodes, which the facts keep.
	maxLabels = 500_000
)

// nodeObject is what is read of a Node, and of the List or NodeList around
// the nodes (Items, which a kubectl-style YAML list is read without).
type nodeObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Taints   []taint  `json:"taints"`
		PodCIDR  string   `json:"podCIDR"`
		PodCIDRs []string `json:"podCIDRs"`
	} `json:"spec"`
	Status struct {
		Addresses   []nodeAddress           `json:"addresses"`
		Allocatable map[string]quantityText `json:"allocatable"`
		NodeInfo    struct {
			Architecture string `json:"architecture"`
		} `json:"nodeInfo"`
	} `json:"status"`
	Items []nodeObject `json:"-"`
}

type nodeAddress struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

type taint struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Effect string `json:"effect"`
}

// quantityText is a quantity as written, quoted or not: read as a
// number, 1e-999999999 would be a silent 0.
type quantityText string

func (q *quantityText) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		return json.Unmarshal(data, (*string)(q))
	}
	if string(data) != "null" {
		*q = quantityText(data)
	}
	return nil
}

// reader turns the nodes of a file into facts as they are read.
type reader struct {
	facts  Facts
	labels int
}

func parse(data []byte) (*Facts, error) {
	r := &reader{}
	var kind string
	var err error
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		kind, err = r.readJSON(data)
	} else {
		kind, err = r.readYAML(data)
	}
	if err != nil {
		return nil, err
	}
	switch kind {
	case "Node", "List", "NodeList":
	default:
		return nil, fmt.Errorf("kind %s is not a Node, NodeList or List (want kubectl get nodes -o yaml)", message.Quote(kind))
	}
	if len(r.facts.Nodes) == 0 {
		return nil, errors.New("no nodes in it")
	}
	return &r.facts, nil
}

// readYAML reads the first document of a YAML file. The items of a list
// as kubectl writes it (a block sequence under a top-level items:) are
// parsed one by one; any other layout is parsed whole.
func (r *reader) readYAML(data []byte) (string, error) {
	data = firstDocument(data)
	items, found := findItems(data)
	outside := data
	if found {
		outside = slices.Concat(data[:items.start], data[items.end:])
	}
	if size := yamlsize.Measure(outside); size.Largest > maxNodeValues {
		return "", fmt.Errorf("more than %d YAML values outside a list of nodes as kubectl writes one (items: with an item per node)", maxNodeValues)
	}
	var top nodeObject
	if err := decodeYAML(outside, &top, true); err != nil {
		return "", err
	}
	if top.Kind == "Node" {
		return top.Kind, r.add(-1, &top)
	}
	for i, item := range top.Items {
		if err := r.add(i, &item); err != nil {
			return "", err
		}
	}
	if !found {
		return top.Kind, nil
	}
	err := items.each(data, func(i, line int, text []byte) error {
		if size := yamlsize.Measure(text); size.Largest > maxNodeValues {
			return fmt.Errorf("items[%d] (line %d): more than %d YAML values, more than a node has", i, line, maxNodeValues)
		}
		// The item as written, "- " and all: a list of one node.
		var list nodeObject
		if err := decodeYAML(append([]byte("items:\n"), text...), &list, true); err != nil {
			return fmt.Errorf("items[%d] (line %d): %w", i, line, err)
		}
		if len(list.Items) != 1 {
			return fmt.Errorf("items[%d] (line %d): not one node", i, line)
		}
		return r.add(i, &list.Items[0])
	})
	return top.Kind, err
}

// firstDocument is the first YAML document of data: up to a "---" or
// "..." line after its content.
func firstDocument(data []byte) []byte {
	end, content := len(data), false
	lines(data, 0, func(l yamlLine) bool {
		line := bytes.TrimRight(data[l.offset:l.end], "\r\n")
		switch {
		case isMarker(line, "---") || isMarker(line, "..."):
			if content {
				end = l.offset
				return false
			}
		case !l.blank && l.content[0] != '%':
			content = true
		}
		return true
	})
	return data[:end]
}

func isMarker(line []byte, marker string) bool {
	rest, ok := bytes.CutPrefix(line, []byte(marker))
	return ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t')
}

// itemsBlock is where the block sequence under a top-level "items:" of a
// document is: from the line after items: (start, line) to the end of
// its last item (end), its dashes at dashIndent. In a valid document every
// line of an item is indented past the dashes, comments and blank lines
// aside; text that is not is cut there, and the parser's error on it
// reported.
type itemsBlock struct {
	start, end, line, dashIndent int
}

// yamlLine is a line of YAML text: its offset, end (after its line
// break), indentation, and whether it is blank or a comment.
type yamlLine struct {
	offset, end, indent int
	content             []byte
	blank               bool
}

// lines calls visit for each line of data from offset, until it returns
// false.
func lines(data []byte, offset int, visit func(yamlLine) bool) {
	for offset < len(data) {
		end := bytes.IndexByte(data[offset:], '\n') + offset + 1
		if end == offset {
			end = len(data)
		}
		text := data[offset:end]
		indent := 0
		for indent < len(text) && text[indent] == ' ' {
			indent++
		}
		content := bytes.TrimSpace(text[indent:])
		if !visit(yamlLine{offset, end, indent, text[indent:], len(content) == 0 || content[0] == '#'}) {
			return
		}
		offset = end
	}
}

func findItems(data []byte) (itemsBlock, bool) {
	block := itemsBlock{start: -1, dashIndent: -1}
	number := 0
	lines(data, 0, func(l yamlLine) bool {
		number++
		switch {
		case block.start < 0:
			if l.indent == 0 && !l.blank && isItemsKey(l.content) {
				block.start, block.line = l.end, number+1
			}
		case l.blank:
		case block.dashIndent < 0:
			if !isDash(l.content) {
				return false
			}
			block.dashIndent, block.end = l.indent, len(data)
		case l.indent < block.dashIndent || l.indent == block.dashIndent && !isDash(l.content):
			block.end = l.offset
			return false
		}
		return true
	})
	return block, block.dashIndent >= 0
}

// each calls visit with each item's text, "- " and all, its index and
// the line it starts on.
func (b itemsBlock) each(data []byte, visit func(item, line int, text []byte) error) error {
	data = data[:b.end]
	item, itemStart, itemLine, number := -1, -1, 0, b.line-1
	var err error
	lines(data, b.start, func(l yamlLine) bool {
		number++
		if l.blank || l.indent != b.dashIndent {
			return true
		}
		if itemStart >= 0 {
			if err = visit(item, itemLine, data[itemStart:l.offset]); err != nil {
				return false
			}
		}
		item, itemStart, itemLine = item+1, l.offset, number
		return true
	})
	if err != nil || itemStart < 0 {
		return err
	}
	return visit(item, itemLine, data[itemStart:])
}

// isItemsKey reports whether a top-level line is "items:" with nothing
// after it but a comment: a block sequence follows.
func isItemsKey(text []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimRight(text, " \t\r\n"), []byte("items:"))
	if !ok {
		rest, ok = bytes.CutPrefix(bytes.TrimRight(text, " \t\r\n"), []byte(`"items":`))
	}
	rest = bytes.TrimLeft(rest, " \t")
	return ok && (len(rest) == 0 || rest[0] == '#')
}

// isDash reports whether a line's content starts a sequence item.
func isDash(content []byte) bool {
	return len(content) > 0 && content[0] == '-' && (len(content) == 1 || content[1] == ' ' || content[1] == '\t' || content[1] == '\r' || content[1] == '\n')
}

// readJSON reads `kubectl get nodes -o json`, a node at a time.
func (r *reader) readJSON(data []byte) (string, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	if _, err := decoder.Token(); err != nil {
		return "", err
	}
	var top nodeObject
	for decoder.More() {
		token, err := decoder.Token()
		if err != nil {
			return "", err
		}
		switch token {
		case "items":
			if delim, err := decoder.Token(); err != nil || delim != json.Delim('[') {
				return "", fmt.Errorf("items is not a list (%v)", err)
			}
			for i := 0; decoder.More(); i++ {
				var node nodeObject
				if err := decoder.Decode(&node); err != nil {
					return "", fmt.Errorf("items[%d]: %w", i, err)
				}
				if err := r.add(i, &node); err != nil {
					return "", err
				}
			}
			if _, err := decoder.Token(); err != nil {
				return "", err
			}
		case "kind":
			err = decoder.Decode(&top.Kind)
		case "metadata":
			err = decoder.Decode(&top.Metadata)
		case "spec":
			err = decoder.Decode(&top.Spec)
		case "status":
			err = decoder.Decode(&top.Status)
		default:
			err = decoder.Decode(&json.RawMessage{})
		}
		if err != nil {
			return "", err
		}
	}
	if _, err := decoder.Token(); err != nil {
		return "", err
	}
	if _, err := decoder.Token(); err != io.EOF {
		return "", errors.New("more than one JSON value in it")
	}
	if top.Kind == "Node" {
		return top.Kind, r.add(-1, &top)
	}
	return top.Kind, nil
}

// add keeps the facts of a node: item is its index in the list, -1 for
// a file of one node.
func (r *reader) add(item int, object *nodeObject) error {
	where := ""
	if item >= 0 {
		where = "items[" + strconv.Itoa(item) + "]: "
		// kubectl writes each item's kind; a NodeList from the API may leave it out.
		if object.Kind != "" && object.Kind != "Node" {
			return fmt.Errorf("items[%d] is a %s, not a Node (want kubectl get nodes -o yaml)", item, message.Quote(object.Kind))
		}
	}
	if len(r.facts.Nodes) == MaxNodes {
		return fmt.Errorf("more than %d nodes, more than a cluster has", MaxNodes)
	}
	if r.labels += len(object.Metadata.Labels); r.labels > maxLabels {
		return fmt.Errorf("more than %d labels on its nodes, more than a cluster has", maxLabels)
	}
	node := Node{Name: object.Metadata.Name, Labels: object.Metadata.Labels, Architecture: object.Status.NodeInfo.Architecture}
	if arch := node.Labels[LabelArch]; arch != "" {
		node.Architecture = arch
	}
	node.NVIDIADriver = driverVersion(node.Labels)
	// The first pod CIDR is the family of the pods' primary IP, the one
	// probes and Services reach.
	cidr := object.Spec.PodCIDR
	if len(object.Spec.PodCIDRs) > 0 {
		cidr = object.Spec.PodCIDRs[0]
	}
	if prefix, err := netip.ParsePrefix(cidr); err == nil {
		node.PodFamily = family(prefix.Addr())
	} else {
		node.PodFamily, node.PodFamilyFromAddresses = addressFamily(object), true
	}
	for _, taint := range object.Spec.Taints {
		node.Taints = append(node.Taints, corev1.Taint{Key: taint.Key, Value: taint.Value, Effect: corev1.TaintEffect(taint.Effect)})
	}
	if len(object.Status.Allocatable) > 0 {
		node.Allocatable = make(corev1.ResourceList, len(object.Status.Allocatable))
	}
	for name, text := range object.Status.Allocatable {
		if text == "" {
			continue
		}
		// quantity.Parse refuses what would hang resource.ParseQuantity.
		parsed, err := quantity.Parse(string(text))
		if err != nil {
			return fmt.Errorf("%sallocatable.%s: %w", where, name, err)
		}
		node.Allocatable[corev1.ResourceName(name)] = parsed
	}
	r.facts.Nodes = append(r.facts.Nodes, node)
	return nil
}

// decodeYAML reads a node, or a list of them with items, off its parsed
// YAML by hand: yaml.v3's decoder compares each key of a mapping with every
// key before it, so a node of 10,000 labels took seconds.
func decodeYAML(text []byte, into *nodeObject, items bool) error {
	var root yaml.Node
	if err := yaml.Unmarshal(text, &root); err != nil {
		return err
	}
	if len(root.Content) == 0 {
		return nil
	}
	return decodeNode(resolve(root.Content[0]), into, items)
}

func decodeNode(object *yaml.Node, into *nodeObject, items bool) error {
	if object.Kind == yaml.ScalarNode && object.Tag == "!!null" {
		return nil
	}
	if object.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: not a mapping", object.Line)
	}
	var err error
	set := func(s *string, node *yaml.Node) {
		if err == nil {
			*s, err = scalar(node)
		}
	}
	set(&into.Kind, field(object, "kind"))
	if metadata := field(object, "metadata"); metadata != nil {
		set(&into.Metadata.Name, field(metadata, "name"))
		if labels := field(metadata, "labels"); labels != nil && err == nil {
			into.Metadata.Labels, err = stringMap(labels)
		}
	}
	if taints := field(field(object, "spec"), "taints"); taints != nil && err == nil {
		if taints.Kind != yaml.SequenceNode {
			return fmt.Errorf("line %d: spec.taints is not a list", taints.Line)
		}
		into.Spec.Taints = make([]taint, len(taints.Content))
		for i, item := range taints.Content {
			item = resolve(item)
			set(&into.Spec.Taints[i].Key, field(item, "key"))
			set(&into.Spec.Taints[i].Value, field(item, "value"))
			set(&into.Spec.Taints[i].Effect, field(item, "effect"))
		}
	}
	spec := field(object, "spec")
	set(&into.Spec.PodCIDR, field(spec, "podCIDR"))
	if cidrs := field(spec, "podCIDRs"); cidrs != nil && cidrs.Kind == yaml.SequenceNode && err == nil {
		into.Spec.PodCIDRs = make([]string, len(cidrs.Content))
		for i, item := range cidrs.Content {
			set(&into.Spec.PodCIDRs[i], resolve(item))
		}
	}
	status := field(object, "status")
	if allocatable := field(status, "allocatable"); allocatable != nil && err == nil {
		var quantities map[string]string
		quantities, err = stringMap(allocatable)
		into.Status.Allocatable = make(map[string]quantityText, len(quantities))
		for name, text := range quantities {
			into.Status.Allocatable[name] = quantityText(text)
		}
	}
	if addresses := field(status, "addresses"); addresses != nil && addresses.Kind == yaml.SequenceNode && err == nil {
		into.Status.Addresses = make([]nodeAddress, len(addresses.Content))
		for i, item := range addresses.Content {
			item = resolve(item)
			set(&into.Status.Addresses[i].Type, field(item, "type"))
			set(&into.Status.Addresses[i].Address, field(item, "address"))
		}
	}
	set(&into.Status.NodeInfo.Architecture, field(field(status, "nodeInfo"), "architecture"))
	if list := field(object, "items"); items && list != nil && !(list.Kind == yaml.ScalarNode && list.Tag == "!!null") && err == nil {
		if list.Kind != yaml.SequenceNode {
			return fmt.Errorf("line %d: items is not a list", list.Line)
		}
		into.Items = make([]nodeObject, len(list.Content))
		for i, item := range list.Content {
			if err := decodeNode(resolve(item), &into.Items[i], false); err != nil {
				return err
			}
		}
	}
	return err
}

// field is the value of a mapping's key, its last when written twice;
// nil when the mapping has none, or is nil or not a mapping.
func field(mapping *yaml.Node, key string) *yaml.Node {
	if mapping == nil || mapping.Kind != yaml.MappingNode {
		return nil
	}
	var value *yaml.Node
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if mapping.Content[i].Value == key {
			value = resolve(mapping.Content[i+1])
		}
	}
	return value
}

// resolve follows an alias to what it names.
func resolve(node *yaml.Node) *yaml.Node {
	if node != nil && node.Kind == yaml.AliasNode && node.Alias != nil {
		return node.Alias
	}
	return node
}

// scalar is a scalar's text, "" for a null or no value.
func scalar(node *yaml.Node) (string, error) {
	switch {
	case node == nil || node.Kind == yaml.ScalarNode && node.Tag == "!!null":
		return "", nil
	case node.Kind != yaml.ScalarNode:
		return "", fmt.Errorf("line %d: a mapping or list where a string belongs", node.Line)
	}
	return node.Value, nil
}

// stringMap reads a mapping of scalars.
func stringMap(mapping *yaml.Node) (map[string]string, error) {
	if mapping.Kind == yaml.ScalarNode && mapping.Tag == "!!null" {
		return nil, nil
	}
	if mapping.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: not a mapping", mapping.Line)
	}
	values := make(map[string]string, len(mapping.Content)/2)
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		value, err := scalar(resolve(mapping.Content[i+1]))
		if err != nil {
			return nil, err
		}
		values[mapping.Content[i].Value] = value
	}
	return values, nil
}

func family(addr netip.Addr) string {
	if addr.Is6() && !addr.Is4In6() {
		return "IPv6"
	}
	return "IPv4"
}

// addressFamily is the family of a node's InternalIP addresses when they
// are all of one, "" otherwise. A CNI that assigns pod IPs itself (EKS's
// VPC CNI, Cilium's cluster pool) leaves podCIDR unset; its pods on a node
// with only IPv6 addresses are IPv6.
func addressFamily(object *nodeObject) string {
	found := ""
	for _, address := range object.Status.Addresses {
		addr, err := netip.ParseAddr(address.Address)
		if address.Type != "InternalIP" || err != nil {
			continue
		}
		switch f := family(addr); {
		case found == "":
			found = f
		case found != f:
			return ""
		}
	}
	return found
}
