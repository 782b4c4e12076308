package image

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Inflating gzip layers is most of the time a lint takes: klauspost's
// decoder is about 2× slower per byte than zlib. As containerd pipes layers
// through unpigz when it is on PATH, gzip layers go through ISA-L's igzip
// (fastest per byte) or pigz's unpigz when one is installed. Both sides of
// the stream stay hashed by the caller, so the digests verify the same bytes
// whichever program inflated them.

// The choices of Options.Inflate (the --inflate flag).
const (
	InflateAuto   = "auto"   // igzip, else unpigz, else Go
	InflateGo     = "go"     // klauspost/compress, in process
	InflateIgzip  = "igzip"  // ISA-L's igzip, which must be on PATH
	InflateUnpigz = "unpigz" // pigz's unpigz, which must be on PATH
)

// InflateChoices lists the values Options.Inflate takes.
var InflateChoices = []string{InflateAuto, InflateGo, InflateIgzip, InflateUnpigz}

// inflaterWaitDelay bounds how long closing an inflater waits for its
// stdin copy once the process has exited (a registry read may block).
const inflaterWaitDelay = 2 * time.Second

// maxInflaterStderr keeps the first bytes of what an inflater says on
// stderr, for the one-line error.
const maxInflaterStderr = 1 << 10

var lookPathOnce = sync.OnceValue(func() string {
	for _, name := range []string{InflateIgzip, InflateUnpigz} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
})

// InflaterPath returns the program a choice inflates gzip with: "" means in
// process. A program asked for by name that is not on PATH is an error.
func InflaterPath(choice string) (string, error) {
	switch choice {
	case "", InflateAuto:
		return lookPathOnce(), nil
	case InflateGo:
		return "", nil
	case InflateIgzip, InflateUnpigz:
		path, err := exec.LookPath(choice)
		if err != nil {
			return "", fmt.Errorf("%s is not on PATH (install it, or use --inflate auto or go)", choice)
		}
		return path, nil
	}
	return "", fmt.Errorf("want one of %s, got %q", strings.Join(InflateChoices, ", "), choice)
}

// externalInflater is a running igzip or unpigz reading the stored layer on
// stdin; reading it yields the tar.
type externalInflater struct {
	ctx      context.Context
	cmd      *exec.Cmd
	feed     chan error // the copy of the stored layer into the inflater ends
	stdout   *os.File
	buffered *bufio.Reader
	stderr   *boundedBuffer
	name     string
	done     bool
	err      error
}

func startInflater(ctx context.Context, path string, stored io.Reader) (*externalInflater, error) {
	cmd := exec.CommandContext(ctx, path, "-d", "-c")
	stdin, stdinWriter, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	widenPipe(stdinWriter)
	cmd.Stdin = stdin
	cmd.WaitDelay = inflaterWaitDelay
	stderr := &boundedBuffer{limit: maxInflaterStderr}
	cmd.Stderr = stderr
	stdout, stdoutWriter, err := os.Pipe()
	if err != nil {
		stdin.Close()
		stdinWriter.Close()
		return nil, err
	}
	// A pipe holds 64 KiB: the inflater would stop every 64 KiB until the
	// indexer, reading a tar's entries in small pieces, caught up. With 1 MiB
	// in the pipe and read in large pieces, the two run side by side.
	widenPipe(stdoutWriter)
	cmd.Stdout = stdoutWriter
	err = cmd.Start()
	stdoutWriter.Close()
	stdin.Close()
	if err != nil {
		stdout.Close()
		stdinWriter.Close()
		return nil, err
	}
	// The stored layer goes in through a pipe of pipeSize too, written in
	// pieces of that size (exec's own copy writes 32 KiB at a time into
	// 64 KiB).
	feed := make(chan error, 1)
	go func() {
		_, err := io.CopyBuffer(stdinWriter, stored, make([]byte, pipeSize))
		stdinWriter.Close()
		feed <- err
	}()
	name := path[strings.LastIndexByte(path, '/')+1:]
	return &externalInflater{ctx: ctx, cmd: cmd, stdout: stdout, buffered: bufio.NewReaderSize(stdout, pipeSize), stderr: stderr, name: name, feed: feed}, nil
}

// Read returns the inflated bytes; at their end, the program's verdict:
// a non-zero exit is the layer's error, as a decoding error would be.
func (e *externalInflater) Read(p []byte) (int, error) {
	if e.done {
		return 0, e.err
	}
	n, err := e.buffered.Read(p)
	if err == io.EOF {
		e.done = true
		e.err = io.EOF
		waitErr := e.cmd.Wait()
		fedErr := e.fed()
		switch {
		case waitErr != nil:
			e.err = e.failure(waitErr)
		case fedErr != nil:
			e.err = fedErr
		}
		e.stdout.Close()
		if n > 0 {
			return n, nil
		}
		return 0, e.err
	}
	return n, err
}

// fed waits for the copy of the stored layer into the inflater to end, as
// exec.Cmd.Wait does for the copies it makes: the caller reads the rest of
// the stored layer next, which must not happen while the copy still reads
// it. An inflater that stops reading early (a pipe the copy can no longer
// write) is no error of the copy's.
func (e *externalInflater) fed() error {
	select {
	case err := <-e.feed:
		if errors.Is(err, syscall.EPIPE) {
			return nil
		}
		return err
	case <-time.After(inflaterWaitDelay):
		return fmt.Errorf("%s: reading the stored layer did not end after %s exited", e.name, e.name)
	}
}

// failure words a failed inflate as the in-process decoder's errors are.
func (e *externalInflater) failure(waitErr error) error {
	said := strings.Join(strings.Fields(e.stderr.String()), " ")
	if said == "" {
		said = waitErr.Error()
	}
	if err := e.ctx.Err(); err != nil {
		return err // killed by the deadline, not a verdict on the layer
	}
	if !strings.HasPrefix(said, e.name+":") {
		said = e.name + ": " + said
	}
	detail := errors.New(said)
	if strings.Contains(said, "incomplete") || strings.Contains(said, "not contain a complete") || strings.Contains(said, "unexpected end") {
		return fmt.Errorf("layer is truncated (%w)", detail)
	}
	return fmt.Errorf("the compressed layer is corrupt (%w)", detail)
}

// Close stops the program if the reader stopped early (a targeted read
// has what it came for, or a bound was hit).
func (e *externalInflater) Close() error {
	if e.done {
		return nil
	}
	e.done, e.err = true, errors.New("inflater closed")
	_ = e.cmd.Process.Kill()
	_ = e.cmd.Wait()
	e.stdout.Close()
	return nil
}

// pipeSize is how much an inflater's output pipe holds (see widenPipe).
const pipeSize = 1 << 20

// boundedBuffer keeps the first limit bytes written to it.
type boundedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
