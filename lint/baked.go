package lint

import (
	"github.com/modellint/modellint/lint/image"
)

// BakedModel says a model target was read from inside a container image.
type BakedModel struct {
	Image *image.Image
	// Path is the model dir's in-image path.
	Path string
}
