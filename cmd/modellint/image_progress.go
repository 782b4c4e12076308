package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/modellint/modellint/internal/message"
	"github.com/modellint/modellint/lint/image"
)

// terminalProgress shows a line per image on stderr while its layers
// stream, when stderr is a terminal; nil (silence) in CI, in pipes and
// in files.
func terminalProgress() image.Progress {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return &layerProgress{out: os.Stderr, now: time.Now}
}

// layerProgress draws "reading REF  37%  850.0 MiB / 2.3 GiB  120.4 MiB/s",
// at most every 100 ms. The rate is shown once a second has passed, so the
// first tick (a cached layer counted at once) shows no absurd figure; the
// line ends at 100% and is then cleared, and a summary line stays when
// verbose is set.
type layerProgress struct {
	mu        sync.Mutex
	out       io.Writer
	now       func() time.Time
	verbose   bool
	reference string
	total     int64
	done      int64
	started   time.Time
	drawn     time.Time
	active    bool
}

func (p *layerProgress) Start(reference string, bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// A tarball found in the tree is named by its path, which may hold
	// escape sequences.
	p.reference, p.total, p.done, p.active = message.Escape(reference), bytes, 0, true
	p.started = p.now()
	p.draw(true)
}

func (p *layerProgress) Add(bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active {
		return
	}
	p.done += bytes
	p.draw(false)
}

func (p *layerProgress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active {
		return
	}
	p.done = max(p.done, p.total)
	p.draw(true)
	fmt.Fprint(p.out, "\r\x1b[K")
	if p.verbose {
		fmt.Fprintf(p.out, "modellint: read %s: %s in %.1fs\n", p.reference, humanBytes(p.done), p.now().Sub(p.started).Seconds())
	}
	p.active = false
}

// draw writes the line, unless one was drawn less than 100 ms ago.
func (p *layerProgress) draw(force bool) {
	now := p.now()
	if !force && now.Sub(p.drawn) < 100*time.Millisecond {
		return
	}
	p.drawn = now
	fmt.Fprint(p.out, "\r\x1b[K"+progressLine(p.reference, p.done, p.total, now.Sub(p.started)))
}

// progressLine is one state of the line.
func progressLine(reference string, done, total int64, elapsed time.Duration) string {
	line := "reading " + reference
	if total > 0 {
		line += fmt.Sprintf("  %3d%%  %s / %s", min(100, done*100/total), humanBytes(done), humanBytes(total))
	}
	if elapsed >= time.Second {
		line += "  " + humanBytes(int64(float64(done)/elapsed.Seconds())) + "/s"
	}
	return line
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	value, suffix := float64(n)/unit, "KiB"
	for _, next := range []string{"MiB", "GiB", "TiB"} {
		if value < unit {
			break
		}
		value, suffix = value/unit, next
	}
	return fmt.Sprintf("%.1f %s", value, suffix)
}
