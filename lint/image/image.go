package image

// Image is what modellint knows about one container image.
type Image struct {
	Reference string
}
