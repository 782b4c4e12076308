// Package report renders a lint.Result for people and machines: a table for
// the terminal, and JSON, SARIF 2.1.0 and JUnit XML for CI systems. It also
// prints the rule list, `modellint explain` and the generated rule docs.
package report
