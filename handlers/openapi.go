package handlers

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// openAPIYAML is the OpenAPI 3.1 description of /api/, written by hand
// and kept true by the tests, which validate every answer of /api/ they
// receive against it.
//
//go:embed openapi.yaml
var openAPIYAML []byte

// OpenAPIYAML returns the API description as written (YAML).
func OpenAPIYAML() []byte { return openAPIYAML }

var openAPIJSON = sync.OnceValues(func() ([]byte, error) {
	doc, err := LoadOpenAPI()
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
})

// LoadOpenAPI parses and validates the API description.
func LoadOpenAPI() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openAPIYAML)
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI description: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("validate the OpenAPI description: %w", err)
	}
	return doc, nil
}

// apiOpenAPI is GET /api/openapi.json: the description of this API.
func (s *Server) apiOpenAPI(w http.ResponseWriter, r *http.Request) {
	b, err := openAPIJSON()
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(b)
}
