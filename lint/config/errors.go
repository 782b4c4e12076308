package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"
	yamlv3 "go.yaml.in/yaml/v3"
	kjson "sigs.k8s.io/json"

	"github.com/modellint/modellint/internal/lazyregexp"
	"github.com/modellint/modellint/internal/message"
)

// The config's own errors are written the way its YAML reads: at the key's
// file:line:column, with the YAML type names (a string, a list, a mapping),
// every unknown key at once, and the nearest known key for a typo.

// keyPositions maps each key path of a YAML document ("rules.MDL208.severity",
// "ignore[0].rule") to where its key is written.
type keyPositions map[string][2]int

func positionsOf(data []byte) keyPositions {
	positions := keyPositions{}
	var root yamlv3.Node
	if yamlv3.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return positions
	}
	var walk func(node *yamlv3.Node, path string, depth int)
	walk = func(node *yamlv3.Node, path string, depth int) {
		if depth > 50 {
			return
		}
		switch node.Kind {
		case yamlv3.MappingNode:
			for i := 0; i+1 < len(node.Content); i += 2 {
				key := node.Content[i]
				child := key.Value
				if path != "" {
					child = path + "." + key.Value
				}
				positions[child] = [2]int{key.Line, key.Column}
				walk(node.Content[i+1], child, depth+1)
			}
		case yamlv3.SequenceNode:
			for i, item := range node.Content {
				child := path + "[" + strconv.Itoa(i) + "]"
				positions[child] = [2]int{item.Line, item.Column}
				walk(item, child, depth+1)
			}
		}
	}
	walk(root.Content[0], "", 0)
	return positions
}

// at is "file:line:col" of a key path, or of its nearest written parent.
func (p keyPositions) at(file, path string) string {
	for path != "" {
		if pos, ok := p[path]; ok {
			return fmt.Sprintf("%s:%d:%d", file, pos[0], pos[1])
		}
		cut := strings.LastIndexAny(path, ".[")
		if cut < 0 {
			break
		}
		path = path[:cut]
	}
	return file
}

// At is "file:line:col" of a key path of the config ("rules.MDL208",
// "disable[1]"), or of its nearest written parent; the file alone when
// neither is written, "" for the defaults.
func (c *Config) At(path string) string {
	if c.Path == "" {
		return ""
	}
	return c.positions.at(c.Path, path)
}

// yamlLine is a line of the YAML parser's errors: "yaml: line 3: could
// not find expected ':'", or one of its "unmarshal errors" ("line 2: key
// "failOn" already set in map").
var yamlLine = lazyregexp.New(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlErrors rewrites the YAML parser's errors as the config's others
// are written: one line each, at file:line.
func yamlErrors(file string, err error) error {
	var lines []string
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "error converting YAML to JSON:"))
		line = strings.TrimSpace(line)
		if line == "" || line == "yaml: unmarshal errors:" {
			continue
		}
		match := yamlLine.FindStringSubmatch(line)
		switch {
		case match == nil:
			lines = append(lines, file+": "+oneLine(line))
		case strings.HasPrefix(match[2], "key ") && strings.HasSuffix(match[2], " already set in map"):
			key := strings.TrimSuffix(strings.TrimPrefix(match[2], "key "), " already set in map")
			lines = append(lines, fmt.Sprintf("%s:%s: %s is written twice in one mapping; keep one", file, match[1], key))
		default:
			lines = append(lines, fmt.Sprintf("%s:%s: %s", file, match[1], oneLine(match[2])))
		}
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: %s", file, oneLine(err.Error()))
	}
	return errors.New(strings.Join(lines, "\n"))
}

// decodeErrors lists every unknown key of the document, each at its line
// with the nearest known key, then the decoder's other complaint (a value of
// the wrong type, a duplicate key), one line each.
func decodeErrors(file string, data []byte, strict []error, err error) error {
	positions := positionsOf(data)
	var lines []string
	for path := range positions {
		if strings.HasSuffix(path, "]") {
			continue // a list item, not a key
		}
		known := knownKeys(reflect.TypeOf(Config{}), parentPath(path))
		key := lastKey(path)
		if known == nil || slices.Contains(known, key) {
			continue
		}
		text := "unknown key " + message.Quote(key)
		if parent := parentPath(path); parent != "" {
			text += " in " + parent
		}
		if suggestion := nearestKey(key, known); suggestion != "" {
			text += fmt.Sprintf(" (did you mean %s?)", suggestion)
		}
		lines = append(lines, positions.at(file, path)+": "+text)
	}
	for _, problem := range strict {
		var field kjson.FieldError
		message := oneLine(problem.Error())
		if strings.HasPrefix(message, "unknown field") {
			continue // listed above, with its line
		}
		where := file
		if errors.As(problem, &field) {
			where = positions.at(file, field.FieldPath())
		}
		lines = append(lines, where+": "+message)
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		path := jsonFieldPath(typeErr.Field)
		lines = append(lines, fmt.Sprintf("%s: %s: %s where the config expects %s", positions.at(file, path), path,
			yamlValueName(typeErr.Value), yamlTypeName(typeErr.Type)))
	case err != nil:
		lines = append(lines, file+": "+oneLine(err.Error()))
	}
	sort.Slice(lines, func(i, j int) bool { return lineOrder(lines[i]) < lineOrder(lines[j]) })
	return errors.New(strings.Join(lines, "\n"))
}

// lineOrder sorts "file:line:col: …" messages by line.
func lineOrder(message string) int {
	parts := strings.SplitN(message, ":", 3)
	if len(parts) < 3 {
		return 0
	}
	line, _ := strconv.Atoi(parts[1])
	return line
}

// jsonFieldPath drops encoding/json's struct names ("Config.disable" → "disable").
func jsonFieldPath(field string) string {
	if i := strings.Index(field, "."); i >= 0 && field[:i] == "Config" {
		return field[i+1:]
	}
	return field
}

func lastKey(path string) string {
	if i := strings.LastIndexAny(path, "."); i >= 0 {
		return path[i+1:]
	}
	return path
}

func parentPath(path string) string {
	if i := strings.LastIndexAny(path, "."); i >= 0 {
		return path[:i]
	}
	return ""
}

// knownKeys are the keys the config accepts under a key path.
func knownKeys(t reflect.Type, path string) []string {
	for _, part := range strings.Split(path, ".") {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if part == "" {
			break
		}
		name, _, _ := strings.Cut(part, "[")
		switch t.Kind() {
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			field, ok := fieldByKey(t, name)
			if !ok {
				return nil
			}
			t = field.Type
		default:
			return nil
		}
		if strings.Contains(part, "[") {
			t = t.Elem()
		}
	}
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := range t.NumField() {
		if key := jsonKey(t.Field(i)); key != "" {
			keys = append(keys, key)
		}
	}
	return keys
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if jsonKey(t.Field(i)) == key {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

func jsonKey(field reflect.StructField) string {
	name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// nearestKey is the known key closest to a misspelt one, when it is close:
// a different case, or at most a third of its letters changed.
func nearestKey(key string, known []string) string {
	if len(key) > 64 {
		return "" // no key is that long; the distance would cost its length times theirs
	}
	best, bestDistance := "", len(key)/3+1
	for _, candidate := range known {
		if strings.EqualFold(candidate, key) {
			return candidate
		}
		if d := levenshtein.ComputeDistance(key, candidate); d < bestDistance {
			best, bestDistance = candidate, d
		}
	}
	return best
}

// yamlValueName names what the YAML held, in YAML's words.
func yamlValueName(jsonValue string) string {
	switch jsonValue {
	case "string":
		return "a string"
	case "number", "number int", "number float":
		return "a number"
	case "bool":
		return "true/false"
	case "array":
		return "a list"
	case "object":
		return "a mapping"
	}
	return jsonValue
}

// yamlTypeName names what a Go type reads, in YAML's words.
func yamlTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Float64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list of " + strings.TrimPrefix(yamlTypeName(t.Elem()), "a ") + "s"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return t.String()
}
