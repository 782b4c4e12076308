// Package archtest holds the test that keeps modellint's packages to their
// one-way flow, inputs → facts → rules → findings → reports, as
// docs/architecture.md draws it. It has no code of its own.
package archtest
