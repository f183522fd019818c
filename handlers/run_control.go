package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/web"
)

// cancelRun is POST /runs/{id}/cancel, the Stop button. Stopping a run that
// has already ended is not an error for a person: the page shows the end.
func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	err := s.runs.Cancel(r.Context(), id)
	switch {
	case errors.Is(err, db.ErrNotFound):
		s.notFound(w, r)
	case (err == nil || errors.Is(err, pipeline.ErrFinished)) && isFragmentRequest(r):
		// The page's event stream shows the run ending; nothing to swap.
		w.WriteHeader(http.StatusNoContent)
	case err == nil, errors.Is(err, pipeline.ErrFinished):
		s.redirect(w, r, "/runs/"+id)
	default:
		s.serverError(w, r, err)
	}
}

// approveRun is POST /runs/{id}/approve, the plan review form: approve the
// plan as edited (criteria, sections, actions, when the form carries
// them), with the answers to the clarifying questions, or a free-text
// reply (parsed for intent). A reply that asks a new question leads to the
// new run's page; an edit the pipeline refuses shows the form again with
// the edit kept and the reason.
func (s *Server) approveRun(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	if err := parseForm(r, s.opt.MaxBodyBytes); err != nil {
		s.errorPage(w, r, http.StatusBadRequest, formError(err))
		return
	}
	a := pipeline.Approval{Clarification: r.PostFormValue("clarification"), Reply: r.PostFormValue("reply")}
	// A choice button is the person's one click on an option the page
	// offered: it names the intent and confirms it.
	if choice := strings.TrimSpace(r.PostFormValue("choice")); choice != "" {
		a.Intent, a.Confirm = choice, true
	}
	var review *web.ReviewForm
	if r.PostFormValue("plan") == "1" {
		run, err := s.store.GetRun(r.Context(), id)
		if err != nil {
			s.pageFail(w, r, err)
			return
		}
		review = reviewFromForm(r, decodeSpec(run.TaskSpec))
		a.Spec = &review.Spec
		if c := clarification(r.PostForm["question"], review.Answers); c != "" {
			a.Clarification = strings.TrimSpace(a.Clarification + "\n" + c)
		}
	}
	dec, err := s.runs.Approve(r.Context(), id, a)
	var verr *pipeline.ValidationError
	switch {
	case errors.Is(err, db.ErrNotFound):
		s.notFound(w, r)
	case errors.As(err, &verr) && review != nil:
		review.Error = validationMessage(verr)
		s.renderReview(w, r, id, review)
	case errors.As(err, &verr):
		s.errorPage(w, r, http.StatusBadRequest, validationMessage(verr))
	case errors.Is(err, pipeline.ErrNotAwaiting):
		s.redirect(w, r, "/runs/"+id) // already approved or ended: the page shows which
	case err != nil:
		s.serverError(w, r, err)
	case dec.NeedsConfirmation:
		if review == nil {
			review = &web.ReviewForm{Spec: derefSpec(s, r, id)}
		}
		review.Reply = a.Reply
		review.Message = dec.Message
		for _, c := range dec.Choices {
			review.Choices = append(review.Choices, web.ReviewChoice{Intent: c.Intent, Label: c.Label})
		}
		s.renderReviewStatus(w, r, id, review, http.StatusOK)
	case dec.NewRunID != "":
		s.redirect(w, r, "/runs/"+dec.NewRunID)
	default:
		s.redirect(w, r, "/runs/"+id)
	}
}

// derefSpec is the run's stored plan, or an empty one.
func derefSpec(s *Server, r *http.Request, id string) research.TaskSpec {
	if run, err := s.store.GetRun(r.Context(), id); err == nil {
		if spec := decodeSpec(run.TaskSpec); spec != nil {
			return *spec
		}
	}
	return research.TaskSpec{}
}

// renderReview shows the run page with the review form as submitted and
// the reason it was refused.
func (s *Server) renderReview(w http.ResponseWriter, r *http.Request, id string, review *web.ReviewForm) {
	s.renderReviewStatus(w, r, id, review, http.StatusBadRequest)
}

// renderReviewStatus shows the run page with the review form as submitted.
func (s *Server) renderReviewStatus(w http.ResponseWriter, r *http.Request, id string, review *web.ReviewForm, status int) {
	v, err := s.loadRunView(r.Context(), id)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	v.Review = review
	p := s.page(r, clipTitle(v.Question))
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, status, web.RunPage(p, v), web.RunBody(p, v))
}

// maxActionRows is how many action rows the review form can carry (the
// pipeline keeps at most five actions).
const maxActionRows = 8

// reviewFromForm reads the edited plan from the review form: the stored
// plan with the goal, criteria, sections and actions as submitted (the
// pipeline sanitizes and bounds them). Action rows are numbered fields
// (action_target_0, …); a row without a query or URL is dropped.
func reviewFromForm(r *http.Request, stored *research.TaskSpec) *web.ReviewForm {
	var spec research.TaskSpec
	if stored != nil {
		spec = *stored
	}
	f := r.PostForm
	spec.Goal = strings.TrimSpace(r.PostFormValue("goal"))
	spec.Criteria = nonEmpty(f["criterion"])
	spec.Sections = nonEmpty(f["section"])
	spec.Actions = []research.ActionSpec{}
	for i := range maxActionRows {
		n := strconv.Itoa(i)
		target := strings.TrimSpace(f.Get("action_target_" + n))
		if target == "" {
			continue
		}
		a := research.ActionSpec{Kind: f.Get("action_kind_" + n), Engine: f.Get("action_engine_" + n)}
		if a.Kind == research.ActionNavigate {
			a.URL, a.Engine = target, ""
		} else {
			a.Kind, a.Query = research.ActionSearch, target
		}
		a.Priority, _ = strconv.Atoi(f.Get("action_priority_" + n))
		spec.Actions = append(spec.Actions, a)
	}
	return &web.ReviewForm{Spec: spec, Answers: f["answer"]}
}

// clarification joins the clarifying questions and their answers into the
// context later stages see; unanswered questions are left out.
func clarification(questions, answers []string) string {
	var b strings.Builder
	for i, q := range questions {
		ans := strings.TrimSpace(at(answers, i))
		if ans == "" {
			continue
		}
		b.WriteString("Q: " + strings.TrimSpace(q) + "\nA: " + ans + "\n")
	}
	return strings.TrimSpace(b.String())
}

func nonEmpty(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func at(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return ""
}
