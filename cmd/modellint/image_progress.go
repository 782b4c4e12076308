package main

import (
	"os"
	"sync"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/modellint/modellint/lint/image"
)

// terminalProgress shows a bar per image on stderr while its layers
// stream, when stderr is a terminal; nil (silence) in CI, in pipes and
// in files.
func terminalProgress() image.Progress {
	if !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return &layerProgress{}
}

type layerProgress struct {
	mu  sync.Mutex
	bar *progressbar.ProgressBar
}

func (p *layerProgress) Start(reference string, bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar = progressbar.NewOptions64(bytes,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription("reading "+reference),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100_000_000), // 100 ms
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
	)
}

func (p *layerProgress) Add(bytes int64) {
	p.mu.Lock()
	bar := p.bar
	p.mu.Unlock()
	if bar != nil {
		bar.Add64(bytes)
	}
}

func (p *layerProgress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}
