package lint

import "iter"

// A list of a Result is held whole, or made a part at a time each time it
// is read (Result.SetParts).

// partsOf is the parts of a list: made, or whole in one part.
func partsOf[T any](whole []T, made iter.Seq[[]T]) iter.Seq[[]T] {
	if made != nil {
		return made
	}
	return func(yield func([]T) bool) {
		if len(whole) > 0 {
			yield(whole)
		}
	}
}

// eachOf yields the items of parts one at a time.
func eachOf[T any](parts iter.Seq[[]T]) iter.Seq[T] {
	return func(yield func(T) bool) {
		for part := range parts {
			for _, item := range part {
				if !yield(item) {
					return
				}
			}
		}
	}
}

// hold makes a list made by parts whole.
func hold[T any](whole *[]T, made *iter.Seq[[]T]) {
	if *made == nil {
		return
	}
	parts := *made
	*made = nil
	for part := range parts {
		*whole = append(*whole, part...)
	}
}

// changeParts passes a list through change: whole at once, or each part
// as it is made.
func changeParts[T any](whole *[]T, made *iter.Seq[[]T], change func([]T) []T) {
	if *made == nil {
		*whole = change(*whole)
		return
	}
	parts := *made
	*made = func(yield func([]T) bool) {
		for part := range parts {
			if !yield(change(part)) {
				return
			}
		}
	}
}
