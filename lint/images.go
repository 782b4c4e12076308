package lint

// ImageOptions say how images are found and read.
type ImageOptions struct{}

// isImageSource reports whether a PATH is an image (a docker-save tarball or
// an OCI layout directory) rather than manifests.
func isImageSource(path string) bool { return false }

// attachImages resolves the images of the workload targets and adds a target
// for each image named as a PATH.
func attachImages(targets []*Target, sources []string, options Options, result *Result) error {
	return nil
}
