// Package report renders a lint.Result for people and machines: a table for
// the terminal; JSON, SARIF 2.1.0, JUnit XML, GitLab Code Quality, GitHub
// annotations and a Markdown job summary for CI systems. It also prints the
// rule list, `modellint explain` and the generated rule docs.
package report
