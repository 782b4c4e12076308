package image

import (
	"github.com/modellint/modellint/lint/image/elfinfo"
)

// FileFacts is what was captured of one regular file's content.
type FileFacts struct {
	// Head is the first bytes (up to headSize): enough for the ELF magic
	// and a shebang line.
	Head []byte
	// Text is the whole content of a small file rules read (/etc/passwd,
	// cuda/version.json, ld.so.conf, a shell script, a model's structure
	// files …), or its first bytes when Partial is set (a safetensors
	// header without the weights after it).
	Text    []byte
	Partial bool
	// ELF is the loader facts of an ELF file that was looked at closely.
	ELF *elfinfo.Info
	// ELFError says why an ELF file could not be parsed (malformed).
	ELFError string
	// ELFMissing are byte ranges the parse still needs: a second read of
	// the layer fetches them.
	ELFMissing []elfinfo.Range
}

// headSize covers a shebang line (Linux reads up to 256 bytes of it) and
// the ELF header.
const headSize = 256

// IsELF says the file starts with the ELF magic.
func (f *FileFacts) IsELF() bool { return f != nil && elfinfo.IsELF(f.Head) }

// IsScript says the file starts with "#!".
func (f *FileFacts) IsScript() bool {
	return f != nil && len(f.Head) >= 2 && f.Head[0] == '#' && f.Head[1] == '!'
}

// complete says the facts need no further read: the head is always
// captured, an ELF file wanted closely has been parsed (or found broken),
// and any other file wanted closely is source whose text is kept.
func (f *FileFacts) complete(wantClosely bool) bool {
	if f == nil {
		return false
	}
	if !f.IsELF() {
		return !wantClosely || f.Text != nil
	}
	return !wantClosely || f.ELF != nil || f.ELFError != ""
}
