package serverconfig

import (
	"fmt"
	"strconv"
	"strings"
)

// Property is a key's value in a Java properties file and its line.
type Property struct {
	Value string
	Line  int
}

// Properties are the keys of a Java properties file (TorchServe's
// config.properties), the last value of a repeated key, as
// java.util.Properties.load keeps it.
type Properties map[string]Property

// Get returns a key's value; ok is false when the key is not set.
func (p Properties) Get(key string) (Property, bool) {
	property, ok := p[key]
	return property, ok
}

// ParseProperties reads a properties file with the rules of
// java.util.Properties.load: # and ! start comment lines, a line ending
// in an odd number of backslashes continues on the next, the key ends at
// the first unescaped '=', ':' or white space, and \t, \n, \uXXXX and
// the like are unescaped.
func ParseProperties(text []byte) (Properties, error) {
	if len(text) > MaxFile {
		return nil, fmt.Errorf("%d bytes, more than the %d a config file may have", len(text), MaxFile)
	}
	properties := Properties{}
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(string(text), "\r\n", "\n"), "\r", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := strings.TrimLeft(lines[i], " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		logical := line
		for continued(logical) && i+1 < len(lines) {
			i++
			logical = logical[:len(logical)-1] + strings.TrimLeft(lines[i], " \t\f")
		}
		if continued(logical) {
			logical = logical[:len(logical)-1]
		}
		key, value, err := splitProperty(logical)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", start, err)
		}
		properties[key] = Property{Value: value, Line: start}
	}
	return properties, nil
}

// continued says a line ends in an odd number of backslashes.
func continued(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func splitProperty(line string) (key, value string, err error) {
	end := 0
	for end < len(line) {
		c := line[end]
		if c == '\\' {
			end += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		end++
	}
	end = min(end, len(line))
	rest := strings.TrimLeft(line[end:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	if key, err = unescape(line[:end]); err != nil {
		return "", "", err
	}
	value, err = unescape(rest)
	return key, value, err
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf(`malformed \uxxxx escape`)
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf(`malformed \uxxxx escape`)
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}
