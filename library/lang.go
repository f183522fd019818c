package library

import (
	"strings"

	"github.com/RadhiFadlillah/whatlanggo"
)

// language picks the Postgres text search configuration for a document:
// the detected language when the database has a configuration of that
// name, otherwise "simple" (no stemming, no stop words).
func language(sample string, configs map[string]bool) string {
	if len(sample) > 20000 {
		sample = sample[:20000]
	}
	info := whatlanggo.Detect(sample)
	if info.Confidence < 0.5 {
		return "simple"
	}
	name := strings.ToLower(info.Lang.String())
	if configs[name] {
		return name
	}
	return "simple"
}
