//go:build !unix

package unprivileged

import (
	"errors"
	"testing"
)

func runAs(t *testing.T, pattern string) (string, error) {
	return "", errors.New("switching users is implemented for Unix only")
}

func started(err error) bool { return false }
