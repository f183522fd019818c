package handlers

import "github.com/quarryhq/quarry/search"

// scopeEngines applies the ask form's "Search in" choice to the engines
// ticked (nil: all configured): "web" keeps the web engines, "library" the
// library engines, "both" puts the library first (a library search that
// finds nothing falls back to the web engines) and the web after it. No
// choice, or a configuration without both kinds, leaves the engines as
// they are.
func scopeEngines(scope string, ticked, configured []string) []string {
	engines := ticked
	if len(engines) == 0 {
		engines = configured
	}
	var lib, web []string
	for _, e := range engines {
		if _, ok := search.LibraryCollection(e); ok {
			lib = append(lib, e)
		} else {
			web = append(web, e)
		}
	}
	if len(lib) == 0 {
		for _, e := range configured {
			if _, ok := search.LibraryCollection(e); ok {
				lib = append(lib, e)
			}
		}
	}
	switch {
	case len(lib) == 0 || len(web) == 0:
		return ticked
	case scope == "web":
		return web
	case scope == "library":
		return lib
	case scope == "both":
		return append(lib, web...)
	}
	return ticked
}
