package image

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/docker/cli/cli/config"
)

// checkCredentials says why the docker config the registry keychain reads
// (DOCKER_CONFIG's config.json, else ~/.docker/config.json) cannot be
// used; nil when it can, or when there is none. Left to the keychain, a
// malformed file fails every registry read as if the registry could not be
// reached: each image is skipped with a note and the run passes, its
// image checks silently undone.
func checkCredentials() error {
	dir := os.Getenv("DOCKER_CONFIG")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil // the keychain finds no file either
		}
		dir = filepath.Join(home, ".docker")
	}
	// The loader the keychain uses: an absent file is no credentials.
	if _, err := config.Load(dir); err != nil {
		cause := errors.Unwrap(err)
		if cause == nil {
			cause = err
		}
		return fmt.Errorf("%s: the registry credentials cannot be read: %v; fix the file, or point DOCKER_CONFIG at a directory with a valid config.json (or none)",
			filepath.Join(dir, config.ConfigFileName), cause)
	}
	return nil
}
