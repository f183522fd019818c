package pipeline

import "github.com/quarryhq/quarry/search"

// engineConfigured reports whether a run may ask for engine e: it is one
// of the configured engines, or a library collection (kb:<name>) when the
// library engine kb is configured.
func engineConfigured(configured []string, e string) bool {
	if contains(configured, e) {
		return true
	}
	if coll, ok := search.LibraryCollection(e); ok && coll != "" {
		return contains(configured, search.LibraryEngine)
	}
	return false
}
