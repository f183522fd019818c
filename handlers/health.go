package handlers

import (
	"fmt"
	"net/http"
	"strings"
)

// healthz is GET /healthz: the process is up and serving.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintln(w, "ok")
}

// readyz is GET /readyz: the database answers and, when there is one, the
// browser does; else 503 with the reason, so a load balancer stops sending
// traffic here.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	var failed []string
	for _, c := range s.checks(r.Context()) {
		if c.err != nil {
			failed = append(failed, c.name+": "+c.err.Error())
		}
	}
	if len(failed) > 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, strings.Join(failed, "\n"))
		return
	}
	fmt.Fprintln(w, "ready")
}
