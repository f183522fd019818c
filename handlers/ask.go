package handlers

import (
	"errors"
	"mime"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/tasks"
	"github.com/quarryhq/quarry/web"
)

// recentRuns is how many runs the ask page lists.
const recentRuns = 10

// askPage is GET /: the question form and the recent runs.
func (s *Server) askPage(w http.ResponseWriter, r *http.Request) {
	s.renderAsk(w, r, http.StatusOK, web.AskForm{Depth: s.opt.DefaultDepth})
}

func (s *Server) renderAsk(w http.ResponseWriter, r *http.Request, status int, form web.AskForm) {
	form.EngineChoices = s.opt.Settings.SearchEngines
	runs, err := s.store.ListRuns(r.Context(), s.listFilter(r, db.RunFilter{Limit: recentRuns}))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	recent := summaries(runs)
	p := s.page(r, "Ask")
	s.render(w, r, status, web.AskPage(p, form, recent), web.AskBody(p, form, recent))
}

// createRun is POST /runs, the ask form. A valid question becomes a queued
// run and the browser goes to its page; bad input re-renders the form with
// the message and the text kept, and stores nothing.
func (s *Server) createRun(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r, s.opt.MaxBodyBytes); err != nil {
		s.renderAsk(w, r, http.StatusBadRequest, web.AskForm{Depth: s.opt.DefaultDepth, Error: formError(err)})
		return
	}
	// The form's review choice defaults to auto: pause only when the
	// question is unclear. Old forms' checkbox values (1, on) mean always.
	review := research.ReviewAuto
	if v := r.PostFormValue("review"); v != "" {
		review = research.ReviewMode(v)
		if m, err := research.ParseReviewMode(v); err == nil {
			review = m
		}
	}
	form := web.AskForm{
		Question: r.PostFormValue("question"),
		Depth:    strings.TrimSpace(r.PostFormValue("depth")),
		Review:   review,
		ParentID: strings.TrimSpace(r.PostFormValue("parent_id")),
		Engines:  scopeEngines(r.PostFormValue("scope"), chosenEngines(r.PostForm["engine"], s.opt.Settings.SearchEngines), s.opt.Settings.SearchEngines),
	}
	req := pipeline.Request{Question: form.Question, Depth: form.Depth, Review: form.Review, ParentID: form.ParentID, Engines: form.Engines}
	if req.Depth == "" {
		req.Depth = s.opt.DefaultDepth
	}
	// A question that reads like research to repeat gets a proposal to make
	// it a task; nothing is stored until the person chooses.
	if s.tasksEnabled() && form.ParentID == "" && !checked(r.PostFormValue("once")) {
		if wish, ok := tasks.RecurringWish(form.Question); ok {
			form.Depth = req.Depth
			form.Wish = &web.TaskWish{Question: wish.Question, Schedule: wish.Schedule, Said: wish.Said}
			s.renderAsk(w, r, http.StatusOK, form)
			return
		}
	}
	err := s.checkParent(r, req.ParentID)
	var run *db.Run
	if err == nil {
		run, err = s.runs.Submit(r.Context(), req)
	}
	var verr *pipeline.ValidationError
	if errors.As(err, &verr) {
		form.Error = validationMessage(verr)
		s.renderAsk(w, r, http.StatusBadRequest, form)
		return
	}
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	s.redirect(w, r, "/runs/"+run.ID)
}

// parseForm parses a urlencoded or multipart form within limit bytes and
// checks its text fields (checkText: a *TextError names the field).
func parseForm(r *http.Request, limit int64) error {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var err error
	if ct == "multipart/form-data" {
		err = r.ParseMultipartForm(limit)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		return err
	}
	return checkValues(r.PostForm)
}

// formError turns a form parse error into words.
func formError(err error) string {
	var te *TextError
	if errors.As(err, &te) {
		return "The field " + te.Field + " " + te.Msg + "."
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return "The form is too large; a question can have at most 4,000 characters."
	}
	return "The form could not be read; please try again."
}

// validationMessage is a validation error as a sentence for the form.
func validationMessage(e *pipeline.ValidationError) string {
	msg := e.Msg
	if msg == "" {
		return e.Error()
	}
	first, size := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(first)) + msg[size:] + "."
}

// checked reads a checkbox value.
func checked(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "on", "true", "yes":
		return true
	}
	return false
}

// summaries turns runs into list lines.
func summaries(runs []db.Run) []web.RunSummary {
	out := make([]web.RunSummary, len(runs))
	for i, run := range runs {
		out[i] = web.RunSummary{ID: run.ID, Question: run.Question, Status: run.Status, Depth: run.Depth, Owner: run.Owner, CreatedAt: run.CreatedAt}
	}
	return out
}

// chosenEngines is the engines ticked on the ask form, in configured
// order; nil (every configured engine) when all or none are ticked, or
// when there was no choice to make. Unknown names are kept, so the
// pipeline can refuse them by name.
func chosenEngines(ticked, configured []string) []string {
	if len(ticked) == 0 || len(configured) < 2 {
		return nil
	}
	var out []string
	for _, e := range configured {
		if slices.Contains(ticked, e) {
			out = append(out, e)
		}
	}
	for _, e := range ticked {
		if !slices.Contains(configured, e) {
			out = append(out, e)
		}
	}
	if len(out) == len(configured) {
		return nil
	}
	return out
}
