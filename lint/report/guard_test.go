package report

import (
	"bytes"
	"testing"
)

func TestLineGuard(t *testing.T) {
	const text = "::error file=a::b\n  \t::warning::c\n   \n\u3000::notice::d\nx ::error::e\n::last"
	const want = `\x3a:error file=a::b` + "\n  \t" + `\x3a:warning::c` + "\n   \n\u3000" + `\x3a:notice::d` + "\nx ::error::e\n" + `\x3a:last`
	// Whole, and a byte at a time: a line may arrive in pieces.
	for _, size := range []int{len(text), 1, 3} {
		var out bytes.Buffer
		guard := &lineGuard{w: &out}
		for start := 0; start < len(text); start += size {
			if _, err := guard.Write([]byte(text[start:min(start+size, len(text))])); err != nil {
				t.Fatal(err)
			}
		}
		if err := guard.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Errorf("in writes of %d bytes: %q, want %q", size, out.String(), want)
		}
	}
}
