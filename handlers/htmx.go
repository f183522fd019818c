package handlers

import (
	"net/http"

	"github.com/a-h/templ"
)

// HTMX request and response headers (https://htmx.org/reference/#headers).
const (
	HXRequest  = "HX-Request"  // set on every request htmx makes
	HXBoosted  = "HX-Boosted"  // set when the request comes from hx-boost
	HXTarget   = "HX-Target"   // id of the target element
	HXRedirect = "HX-Redirect" // response: navigate the browser to this URL
	HXTrigger  = "HX-Trigger"  // response: trigger client-side events
	HXReswap   = "HX-Reswap"   // response: override hx-swap
)

// isFragmentRequest reports whether the request wants a fragment: an htmx
// request that is not a boosted navigation (which wants the whole page).
func isFragmentRequest(r *http.Request) bool {
	return r.Header.Get(HXRequest) == "true" && r.Header.Get(HXBoosted) != "true"
}

// render writes a page: the fragment for an htmx request, else the full
// page (the same fragment inside the layout).
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, full, fragment templ.Component) {
	c := full
	if isFragmentRequest(r) && fragment != nil {
		c = fragment
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Vary", HXRequest)
	w.WriteHeader(status)
	if err := c.Render(r.Context(), w); err != nil {
		s.log.Warn("render page", "request_id", requestIDFrom(r.Context()), "path", r.URL.Path, "err", err)
	}
}

// redirect sends the browser to path (under the base path) after a form
// post: 303 for a plain form, HX-Redirect for an htmx one.
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, path string) {
	target := s.url(path)
	if isFragmentRequest(r) {
		w.Header().Set(HXRedirect, target)
		w.WriteHeader(http.StatusOK)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}
