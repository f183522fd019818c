package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Every text a client sends — JSON fields (decodeJSON), form fields
// (parseForm) and query parameters (checkQueryText) — passes checkText:
// valid UTF-8 without NUL or other control characters (terminal escapes
// included), except line breaks and tabs in the fields that hold several
// lines. A NUL would make Postgres fail the request; the others would be
// stored and shown to people and terminals.

// multiLineFields are the fields (by form or JSON name) that may span
// lines: the question, a reply and clarifications, and the plan edit's
// text areas. Every other text field is one line.
var multiLineFields = map[string]bool{
	"question": true, "reply": true, "clarification": true, "answer": true,
	"criterion": true, "criteria": true, "goal": true, "sections": true, "assumptions": true,
}

// TextError is a text field refused for its characters; its message
// names the field.
type TextError struct {
	Field string
	Msg   string
}

func (e *TextError) Error() string { return e.Field + ": " + e.Msg }

// checkText refuses a field's value that is not valid UTF-8 or holds a
// control character; line breaks and tabs pass in multi-line fields.
func checkText(field, v string) error {
	if !utf8.ValidString(v) {
		return &TextError{field, "is not valid UTF-8 text"}
	}
	name := field
	if i := strings.LastIndexAny(name, ".]"); i >= 0 {
		name = strings.TrimLeft(name[i:], ".]")
	}
	multi := multiLineFields[name]
	for _, r := range v {
		if multi && (r == '\n' || r == '\r' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) {
			what := "a control character"
			switch r {
			case 0:
				what = "a NUL character"
			case '\n', '\r', '\t':
				what = "a line break or tab (this field is one line)"
			case 0x1b:
				what = "an escape character (a terminal escape sequence)"
			}
			return &TextError{field, fmt.Sprintf("contains %s (U+%04X); remove it", what, r)}
		}
	}
	return nil
}

// checkValues checks every value of a form or query, in name order so
// the same input always names the same field.
func checkValues(vals url.Values) error {
	names := make([]string, 0, len(vals))
	for k := range vals {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := checkText("parameter name", k); err != nil {
			return err
		}
		for _, v := range vals[k] {
			if err := checkText(k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkJSONText checks every string a decoded JSON body holds, naming
// it by its JSON path (notify.webhook_url, spec.criteria).
func checkJSONText(v any) error {
	return walkText(reflect.ValueOf(v), "")
}

func walkText(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return walkText(v.Elem(), path)
	case reflect.String:
		return checkText(path, v.String())
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // raw bytes (json.RawMessage) are not text
		}
		for i := 0; i < v.Len(); i++ {
			if err := walkText(v.Index(i), path); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			key := fmt.Sprint(iter.Key().Interface())
			if err := walkText(iter.Value(), joinPath(path, key)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if f.Anonymous && f.Tag.Get("json") == "" {
				name = "" // embedded: its fields are the parent's
			}
			if err := walkText(v.Field(i), joinPath(path, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

func joinPath(path, name string) string {
	switch {
	case name == "":
		return path
	case path == "":
		return name
	}
	return path + "." + name
}

// checkQueryText refuses a request whose query parameters hold control
// characters, with 400 naming the parameter, before any handler reads
// them.
func (s *Server) checkQueryText(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != "" {
			if err := checkValues(r.URL.Query()); err != nil {
				s.badText(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// badText answers a request refused by checkText: JSON naming the field
// for the API, a page otherwise.
func (s *Server) badText(w http.ResponseWriter, r *http.Request, err error) {
	var te *TextError
	if !errors.As(err, &te) {
		te = &TextError{Msg: err.Error()}
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeJSON(w, http.StatusBadRequest, apiError{Error: te.Error(), Field: te.Field})
		return
	}
	s.errorPage(w, r, http.StatusBadRequest, "The field "+te.Field+" "+te.Msg+".")
}
