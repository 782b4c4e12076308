// Command yamlfloor is the floor the manifest benchmarks hold modellint
// to: it parses every YAML document of the .yaml and .yml files under its
// arguments into yaml.v3 nodes, on every CPU, and drops them. No linter
// of those files can read them for less; `make bench` reports modellint's
// CPU and memory against it.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"
)

func main() {
	var files []string
	for _, root := range os.Args[1:] {
		err := filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
			if err == nil && !entry.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "yamlfloor:", err)
			os.Exit(2)
		}
	}
	var documents atomic.Int64
	var failed atomic.Bool
	work := make(chan string)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for path := range work {
				if err := parse(path, &documents); err != nil {
					fmt.Fprintf(os.Stderr, "yamlfloor: %s: %v\n", path, err)
					failed.Store(true)
				}
			}
		}()
	}
	for _, path := range files {
		work <- path
	}
	close(work)
	wg.Wait()
	fmt.Printf("%d documents in %d files\n", documents.Load(), len(files))
	if failed.Load() {
		os.Exit(1)
	}
}

// parse reads a file's documents into nodes, one at a time.
func parse(path string, documents *atomic.Int64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	decoder := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var node yaml.Node
		if err := decoder.Decode(&node); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		documents.Add(1)
	}
}
