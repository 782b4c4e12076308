package manifest

import (
	"fmt"
	"sync"

	"github.com/modellint/modellint/internal/yamlsize"
)

// Bounds on what one manifest file may make modellint parse and hold,
// besides MaxFileSize. The parser holds a document whole, as a tree of
// about five times the size of the fields it is converted into and kept
// as, so the values of each document are counted before it is parsed
// (internal/yamlsize counts no fewer than the parser makes) and the fields
// of a file as they are converted. An object the API server can store is
// far below them, and so is the largest stream `helm template` is known to
// give (docs/performance.md).
const (
	MaxDocuments      = 120_000
	MaxDocumentValues = 250_000
	MaxFileValues     = 2_000_000
)

// measureParts measures the parts of a stream before they are parsed and
// refuses it past a bound; each part's largest document is what parsing
// it holds at once.
func measureParts(path string, parts []streamPart) error {
	documents := 0
	for i := range parts {
		size := yamlsize.Measure(parts[i].source)
		if size.Largest > MaxDocumentValues {
			return fmt.Errorf("%s: document %d holds more than %d YAML values, more than a manifest needs (the API server stores at most 1.5 MiB of an object)",
				path, documents+size.Document+1, MaxDocumentValues)
		}
		documents += size.Documents
		parts[i].largest = size.Largest
	}
	if documents > MaxDocuments {
		return fmt.Errorf("%s: more than %d YAML documents, more than a manifest file needs", path, MaxDocuments)
	}
	return nil
}

// parsing bounds the values of the documents being parsed at once, in
// every file: each is a tree in memory until it is converted, and files
// and their parts are parsed on every CPU.
var parsing = newValueBudget(MaxDocumentValues)

// valueBudget is a counting semaphore of values.
type valueBudget struct {
	mu             sync.Mutex
	freed          *sync.Cond
	capacity, free int
}

func newValueBudget(values int) *valueBudget {
	b := &valueBudget{capacity: values, free: values}
	b.freed = sync.NewCond(&b.mu)
	return b
}

// acquire waits until n values are free, or all of them when n is more,
// and takes them; release gives back what it returns.
func (b *valueBudget) acquire(n int) int {
	n = min(n, b.capacity)
	b.mu.Lock()
	for b.free < n {
		b.freed.Wait()
	}
	b.free -= n
	b.mu.Unlock()
	return n
}

func (b *valueBudget) release(n int) {
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.freed.Broadcast()
}
