package charts

import (
	"strings"
	"sync"

	"github.com/modellint/modellint/internal/message"
)

// crashLog keeps the start of what the renderer writes to its standard
// error during one request, bounded: nothing when it works, the Go runtime's
// trace when it crashes.
type crashLog struct {
	mu    sync.Mutex
	lines *message.Lines
}

func (c *crashLog) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lines == nil {
		c.lines = &message.Lines{}
	}
	return c.lines.Write(p)
}

// reset forgets what was written before a request.
func (c *crashLog) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = nil
}

// crash is the line that says why the renderer crashed: the first line of
// a Go panic or fatal error, else the first line it wrote; "" when it
// wrote nothing.
func (c *crashLog) crash() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lines == nil {
		return ""
	}
	lines := c.lines.Lines()
	for _, line := range lines {
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			return line
		}
	}
	if len(lines) > 0 {
		return lines[0]
	}
	return ""
}

// outOfMemory reports whether the crash line is the runtime's, out of
// memory (the address-space limit) or of stack (a goroutine's own bound).
func outOfMemory(crash string) bool {
	return strings.Contains(crash, "out of memory") || strings.Contains(crash, "cannot allocate memory") ||
		strings.Contains(crash, "stack overflow")
}
