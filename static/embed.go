// Package static embeds Quarry's front-end files: htmx and its SSE
// extension (vendored, version in the file name), the stylesheet and the
// small page script. URLs carry a content hash so browsers may cache them
// forever.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
)

// FS holds the files served under /static/.
//
//go:embed *.js *.css
var FS embed.FS

// File names, referenced by the page layout.
const (
	HTMX    = "htmx-2.0.11.min.js"
	HTMXSSE = "htmx-ext-sse-2.2.4.js"
	Style   = "quarry.css"
	App     = "quarry.js"
)

var versions = func() map[string]string {
	out := map[string]string{}
	fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := FS.ReadFile(path)
		sum := sha256.Sum256(b)
		out[path] = hex.EncodeToString(sum[:4])
		return nil
	})
	return out
}()

// Versioned returns name with its content hash as a query string, for
// cache-busting URLs.
func Versioned(name string) string {
	if v, ok := versions[name]; ok {
		return name + "?v=" + v
	}
	return name
}
