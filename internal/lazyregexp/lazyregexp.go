// Package lazyregexp holds package-level regular expressions that compile
// the first time they are used, not when the program starts: compiled at
// package init, modellint's ~80 expressions were half its own start-up
// time, paid by `modellint version` and by runs that match none of them.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use; its methods are
// those of regexp.Regexp.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// compile returns the compiled expression, compiling it the first time.
func (r *Regexp) compile() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// all are the expressions made so far, for Check.
var (
	allMu sync.Mutex
	all   []*Regexp
)

// New returns the expression expr, compiled (and, if it does not compile,
// panicking as regexp.MustCompile does) when first used.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	allMu.Lock()
	all = append(all, r)
	allMu.Unlock()
	return r
}

// Check compiles every expression made so far (those of the packages
// linked in) and returns the first that does not compile: a test calls it,
// so a bad expression fails there rather than at its first use.
func Check() error {
	allMu.Lock()
	defer allMu.Unlock()
	for _, r := range all {
		if _, err := regexp.Compile(r.expr); err != nil {
			return err
		}
	}
	return nil
}

func (r *Regexp) String() string { return r.expr }

func (r *Regexp) MatchString(s string) bool { return r.compile().MatchString(s) }

func (r *Regexp) Match(b []byte) bool { return r.compile().Match(b) }

func (r *Regexp) FindString(s string) string { return r.compile().FindString(s) }

func (r *Regexp) FindStringIndex(s string) []int { return r.compile().FindStringIndex(s) }

func (r *Regexp) FindStringSubmatch(s string) []string { return r.compile().FindStringSubmatch(s) }

func (r *Regexp) FindAllString(s string, n int) []string { return r.compile().FindAllString(s, n) }

func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.compile().ReplaceAllString(src, repl)
}

func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.compile().ReplaceAllStringFunc(src, repl)
}

func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.compile().FindSubmatch(b) }

func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.compile().ReplaceAllLiteralString(src, repl)
}

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.compile().FindAllStringSubmatch(s, n)
}
