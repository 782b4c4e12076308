// Package pysource reads Python source the way CPython's tokenizer does
// (strings of every prefix, f-strings with nested quotes, comments,
// brackets, line continuations, indentation) and lists the imports a
// module runs unconditionally when it is imported. It never evaluates code.
package pysource
