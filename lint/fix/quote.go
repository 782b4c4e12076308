package fix

import (
	"fmt"
	"strings"
)

// diffName writes a path for a diff header or a rename line as git does
// (quote_c_style): a name with a control character, a quote, a backslash
// or a byte outside ASCII is written in double quotes with C escapes and
// octal bytes, so that no raw control character reaches the output and
// git apply still reads it.
func diffName(prefix, name string) string {
	whole := prefix + name
	if !needsQuoting(whole) {
		return whole
	}
	var out strings.Builder
	out.WriteByte('"')
	for i := 0; i < len(whole); i++ {
		switch b := whole[i]; b {
		case '"', '\\':
			out.WriteByte('\\')
			out.WriteByte(b)
		case '\a':
			out.WriteString(`\a`)
		case '\b':
			out.WriteString(`\b`)
		case '\t':
			out.WriteString(`\t`)
		case '\n':
			out.WriteString(`\n`)
		case '\v':
			out.WriteString(`\v`)
		case '\f':
			out.WriteString(`\f`)
		case '\r':
			out.WriteString(`\r`)
		default:
			if b < 0x20 || b >= 0x7f {
				fmt.Fprintf(&out, `\%03o`, b)
			} else {
				out.WriteByte(b)
			}
		}
	}
	out.WriteByte('"')
	return out.String()
}

func needsQuoting(name string) bool {
	for i := 0; i < len(name); i++ {
		if b := name[i]; b < 0x20 || b >= 0x7f || b == '"' || b == '\\' {
			return true
		}
	}
	return false
}
