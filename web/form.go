package web

import (
	"strings"

	"github.com/a-h/templ"
)

// FieldError is the server's complaint about one field of a form (the
// `field` of its 400 answer), shown beside that field.
type FieldError struct {
	Field string // the form field's name, "" for the form as a whole
	Msg   string
}

// For returns the message when the error is about field, else "".
func (e FieldError) For(field string) string {
	if e.Field == field {
		return e.Msg
	}
	return ""
}

// Outside reports whether there is an error that none of fields shows
// (the form shows it above its fields then).
func (e FieldError) Outside(fields ...string) bool {
	if e.Msg == "" {
		return false
	}
	for _, f := range fields {
		if f == e.Field {
			return false
		}
	}
	return true
}

// controlAttrs are the attributes a form control carries to tie it to its
// help text (when it has one) and its error (see Field).
func controlAttrs(id string, hint bool, err string) templ.Attributes {
	var by []string
	if err != "" {
		by = append(by, id+"-error")
	}
	if hint {
		by = append(by, id+"-hint")
	}
	attrs := templ.Attributes{}
	if len(by) > 0 {
		attrs["aria-describedby"] = strings.Join(by, " ")
	}
	if err != "" {
		attrs["aria-invalid"] = "true"
	}
	return attrs
}
