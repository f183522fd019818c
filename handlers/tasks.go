package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/notify"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/tasks"
	"github.com/quarryhq/quarry/web"
)

// TaskOptions configure scheduled research. Without Normalize and NewRun
// the task pages and API answer 404.
type TaskOptions struct {
	// Rules bound a task's schedule and check its webhook URL.
	Rules tasks.Rules
	// MaxPerUser caps a user's tasks (0 = no cap).
	MaxPerUser int
	// Normalize checks a task's question, depth and engines with the rules
	// of a one-off run (pipeline.Runner.Normalize).
	Normalize func(*pipeline.Request) error
	// NewRun builds a task's run for "Run now".
	NewRun tasks.RunMaker
	// AllowRun refuses a "Run now" past its owner's daily budget
	// (tasks.Policy.AllowManual; nil: no cap).
	AllowRun func(db.DayTally) error
	// Wake tells the workers a run was queued.
	Wake func()
	// Changes gives a finished run's change summary, when known.
	Changes tasks.ChangeReader
}

func (s *Server) tasksEnabled() bool {
	return s.opt.Tasks.Normalize != nil && s.opt.Tasks.NewRun != nil
}

// requireTasks answers 404 when tasks are not configured.
func (s *Server) requireTasks(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.tasksEnabled() {
			if strings.HasPrefix(r.URL.Path, "/api/") {
				writeError(w, http.StatusNotFound, "scheduled tasks are not enabled")
			} else {
				s.notFound(w, r)
			}
			return
		}
		next.ServeHTTP(w, r)
	})
}

// prepareTask checks a task as a person wrote it, with the same rules for
// its question as a one-off run, and returns what to store. Bad input is a
// *tasks.FieldError or *pipeline.ValidationError naming the field.
func (s *Server) prepareTask(ctx context.Context, in tasks.Input) (db.TaskFields, tasks.Schedule, error) {
	req := pipeline.Request{Question: in.Question, Depth: in.Depth, Engines: in.Engines}
	if strings.TrimSpace(req.Depth) == "" {
		req.Depth = s.opt.DefaultDepth
	}
	if err := s.opt.Tasks.Normalize(&req); err != nil {
		return db.TaskFields{}, tasks.Schedule{}, err
	}
	in.Question, in.Depth, in.Engines = req.Question, req.Depth, req.Engines
	fields, sched, err := tasks.Prepare(ctx, in, s.opt.Tasks.Rules, time.Now())
	if err != nil {
		return fields, sched, err
	}
	// The channels pass the checks delivery makes (notify.CheckChannels),
	// so a task is never saved with a webhook that would fail every time;
	// the egress guard has checked the URL in Prepare (Rules.CheckURL).
	var ch tasks.Channels
	if err := json.Unmarshal(fields.Channels, &ch); err != nil {
		return db.TaskFields{}, tasks.Schedule{}, fmt.Errorf("read channels: %w", err)
	}
	if err := notify.CheckChannels(ctx, nil, ch); err != nil {
		field, msg, _ := strings.Cut(err.Error(), ": ")
		return db.TaskFields{}, tasks.Schedule{}, &tasks.FieldError{Field: "notify." + field, Msg: msg}
	}
	return fields, sched, nil
}

// mayEditTask: a task is its owner's (and an admin's); without accounts
// anyone may act.
func (s *Server) mayEditTask(r *http.Request, t *db.Task) (bool, error) {
	if s.opt.Auth.Mode == "" || s.opt.Auth.Mode == AuthNone {
		return true, nil
	}
	user := UserFrom(r.Context())
	if user == "" {
		return false, nil
	}
	if t.Owner == user {
		return true, nil
	}
	return s.store.IsAdmin(r.Context(), user)
}

// loadTask returns the task named in the URL if the user may see it;
// others' tasks are not found (they hold webhook secrets).
func (s *Server) loadTask(r *http.Request) (*db.Task, error) {
	t, err := s.store.GetTask(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return nil, err
	}
	if ok, err := s.mayEditTask(r, t); err != nil || !ok {
		if err != nil {
			return nil, err
		}
		return nil, db.ErrNotFound
	}
	if t.Status == db.TaskArchived {
		return nil, db.ErrNotFound
	}
	return t, nil
}

// inputOf is a stored task as the form or a PATCH starts from.
func inputOf(t *db.Task) tasks.Input {
	ch := tasks.ChannelsOf(t)
	schedule := t.ScheduleText
	if t.ScheduleKind == tasks.KindOnce && t.RunAt.Valid {
		// "in 2 hours" read again later would move the time: keep it.
		sched := tasks.ScheduleOf(t)
		schedule = t.RunAt.Time.In(sched.Zone).Format("2006-01-02 15:04:05")
	}
	return tasks.Input{Name: t.Name, Question: t.Question, Depth: t.Depth, Engines: t.Engines, Schedule: schedule,
		Timezone: t.TimeZone, Approval: t.Approval, NotifyOn: t.NotifyOn, WebhookURL: ch.WebhookURL,
		WebhookSecret: ch.WebhookSecret, Email: ch.Email, MaxFailures: t.MaxFailures}
}

// runTaskNow queues a run of the task outside its schedule.
func (s *Server) runTaskNow(ctx context.Context, t *db.Task) (*db.Run, error) {
	nr, err := s.opt.Tasks.NewRun(t, tasks.ManualReview(t))
	if err != nil {
		return nil, err
	}
	nr.Owner = t.Owner
	admission := AdmissionOf(s.opt.Limits)
	nr.Admission = &admission
	run, err := s.store.CreateTaskRun(ctx, t.ID, nr, time.Time{}, s.opt.Tasks.AllowRun)
	if err != nil {
		return nil, err
	}
	if s.opt.Tasks.Wake != nil {
		s.opt.Tasks.Wake()
	}
	return run, nil
}

func resumeNext(now time.Time, t *db.Task) time.Time { return tasks.NextFrom(t, now) }

// fieldOf names the field of a validation error, if it is one.
func fieldOf(err error) (field, msg string, ok bool) {
	var ferr *tasks.FieldError
	var verr *pipeline.ValidationError
	switch {
	case errors.As(err, &ferr):
		return ferr.Field, ferr.Error(), true
	case errors.As(err, &verr):
		return verr.Field, verr.Error(), true
	case errors.Is(err, db.ErrTaskLimit):
		return "tasks", "you have reached the limit of tasks per user; delete one first", true
	}
	return "", "", false
}

// --- pages ---

// tasksPage is GET /tasks.
func (s *Server) tasksPage(w http.ResponseWriter, r *http.Request) {
	list, err := s.store.ListTasks(r.Context(), UserFrom(r.Context()), false)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	rows := make([]web.TaskRow, len(list))
	for i, t := range list {
		rows[i] = web.TaskRow{ID: t.ID, Name: t.Name, Schedule: tasks.ScheduleOf(&t.Task).Describe(), Status: t.Status,
			PausedReason: t.PausedReason, NextRun: timePtr(t.NextRunAt.Time, t.NextRunAt.Valid)}
		if t.LastRunStatus.Valid {
			rows[i].LastStatus, rows[i].LastRunID = research.RunStatus(t.LastRunStatus.String), t.LastRunID.String
		}
	}
	p := s.page(r, "Tasks")
	s.render(w, r, http.StatusOK, web.TasksPage(p, rows), web.TasksBody(p, rows))
}

// newTaskPage is GET /tasks/new, prefilled from the query (the ask form's
// "Repeat this" and the task proposal link here).
func (s *Server) newTaskPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := web.TaskForm{Question: q.Get("question"), Depth: orString(q.Get("depth"), s.opt.DefaultDepth),
		Engines:  chosenEngines(q["engine"], s.opt.Settings.SearchEngines),
		Schedule: q.Get("schedule"), Timezone: orString(q.Get("timezone"), "UTC"), MaxFailures: tasks.DefaultMaxFailure,
		BrowserZone: q.Get("timezone") == ""}
	s.renderTaskForm(w, r, http.StatusOK, f)
}

// schedulePreview is GET /tasks/preview, the task form's list of the next
// runs as the schedule is typed: a fragment with the next five runs, or a
// 400 with why the schedule or zone gives none (empty for no schedule).
func (s *Server) schedulePreview(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	in := tasks.Input{Question: "preview", Schedule: q.Get("schedule"), Timezone: strings.TrimSpace(q.Get("timezone"))}
	if strings.TrimSpace(in.Schedule) == "" {
		frag := web.SchedulePreview("", nil, "")
		s.render(w, r, http.StatusOK, frag, frag)
		return
	}
	_, sched, err := tasks.Prepare(r.Context(), in, s.opt.Tasks.Rules, time.Now())
	if _, msg, ok := fieldOf(err); ok {
		frag := web.SchedulePreview("", nil, msg)
		s.render(w, r, http.StatusBadRequest, frag, frag)
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	frag := web.SchedulePreview(sched.Describe(), previewTimes(sched), "")
	s.render(w, r, http.StatusOK, frag, frag)
}

func (s *Server) renderTaskForm(w http.ResponseWriter, r *http.Request, status int, f web.TaskForm) {
	f.EngineChoices = s.opt.Settings.SearchEngines
	title := "New task"
	if f.ID != "" {
		title = "Edit task"
	}
	p := s.page(r, title)
	s.render(w, r, status, web.TaskFormPage(p, f), web.TaskFormBody(p, f))
}

// formTask reads the task form; engines are ticked among configured.
// The webhook secret is never put back in the form: an empty secret field
// keeps current's secret (editing) while there is a webhook URL.
func formTask(r *http.Request, configured []string, current *db.Task) (tasks.Input, web.TaskForm) {
	f := web.TaskForm{
		Name: r.PostFormValue("name"), Question: r.PostFormValue("question"), Depth: strings.TrimSpace(r.PostFormValue("depth")),
		Schedule: r.PostFormValue("schedule"), Timezone: strings.TrimSpace(r.PostFormValue("timezone")),
		Approval: r.PostFormValue("approval"), NotifyOn: r.PostFormValue("notify_on"),
		WebhookURL: r.PostFormValue("webhook_url"), Email: r.PostFormValue("email"),
	}
	f.MaxFailures, _ = strconv.Atoi(strings.TrimSpace(r.PostFormValue("max_failures")))
	f.Engines = chosenEngines(r.PostForm["engine"], configured)
	secret := r.PostFormValue("webhook_secret")
	if strings.TrimSpace(secret) == "" && current != nil && strings.TrimSpace(f.WebhookURL) != "" {
		secret = tasks.ChannelsOf(current).WebhookSecret
	}
	f.WebhookSecretSet = current != nil && tasks.ChannelsOf(current).WebhookSecret != ""
	in := tasks.Input{Name: f.Name, Question: f.Question, Depth: f.Depth, Engines: f.Engines, Schedule: f.Schedule, Timezone: f.Timezone,
		Approval: f.Approval, NotifyOn: f.NotifyOn, WebhookURL: f.WebhookURL, WebhookSecret: secret, Email: f.Email,
		MaxFailures: f.MaxFailures}
	return in, f
}

// submitTaskForm checks the form (current is the task being edited, nil
// for a new one); with preview it shows the next runs instead of saving.
// It returns the fields to store, or false when it has answered already.
func (s *Server) submitTaskForm(w http.ResponseWriter, r *http.Request, current *db.Task) (db.TaskFields, web.TaskForm, bool) {
	id := ""
	if current != nil {
		id = current.ID
	}
	if err := parseForm(r, s.opt.MaxBodyBytes); err != nil {
		var te *TextError
		errors.As(err, &te)
		field := ""
		if te != nil {
			field = te.Field
		}
		s.renderTaskForm(w, r, http.StatusBadRequest, web.TaskForm{ID: id, Error: formError(err), ErrorField: field})
		return db.TaskFields{}, web.TaskForm{}, false
	}
	in, form := formTask(r, s.opt.Settings.SearchEngines, current)
	form.ID = id
	fields, sched, err := s.prepareTask(r.Context(), in)
	if field, msg, ok := fieldOf(err); ok {
		form.Error, form.ErrorField = msg, field
		s.renderTaskForm(w, r, http.StatusBadRequest, form)
		return db.TaskFields{}, form, false
	}
	if err != nil {
		s.serverError(w, r, err)
		return db.TaskFields{}, form, false
	}
	if checked(r.PostFormValue("preview")) {
		form.PreviewWords = sched.Describe()
		form.Preview = previewTimes(sched)
		s.renderTaskForm(w, r, http.StatusOK, form)
		return db.TaskFields{}, form, false
	}
	return fields, form, true
}

// previewTimes are the next five slots in the schedule's zone.
func previewTimes(sched tasks.Schedule) []string {
	zone := sched.Zone
	if zone == nil {
		zone = time.UTC
	}
	var out []string
	for _, t := range sched.Upcoming(time.Now(), 5) {
		out = append(out, t.In(zone).Format("Mon 2 Jan 2006, 15:04 MST"))
	}
	return out
}

// createTask is POST /tasks.
func (s *Server) createTask(w http.ResponseWriter, r *http.Request) {
	fields, form, ok := s.submitTaskForm(w, r, nil)
	if !ok {
		return
	}
	t, err := s.store.CreateTask(r.Context(), UserFrom(r.Context()), fields, s.opt.Tasks.MaxPerUser)
	if field, msg, ok := fieldOf(err); ok {
		form.Error, form.ErrorField = msg, field
		s.renderTaskForm(w, r, http.StatusBadRequest, form)
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.redirect(w, r, "/tasks/"+t.ID)
}

// taskPage is GET /tasks/{id}.
func (s *Server) taskPage(w http.ResponseWriter, r *http.Request) {
	t, err := s.loadTask(r)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	view, err := s.taskView(r.Context(), t)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	view.CanEdit = true
	p := s.page(r, t.Name)
	s.render(w, r, http.StatusOK, web.TaskPage(p, view), web.TaskBody(p, view))
}

func (s *Server) taskView(ctx context.Context, t *db.Task) (web.TaskView, error) {
	v := web.TaskView{ID: t.ID, Name: t.Name, Question: t.Question, Depth: t.Depth, Schedule: tasks.ScheduleOf(t).Describe(),
		Timezone: t.TimeZone, Status: t.Status, PausedReason: t.PausedReason, Approval: t.Approval, NotifyOn: t.NotifyOn,
		NextRun: timePtr(t.NextRunAt.Time, t.NextRunAt.Valid), Failures: t.ConsecutiveFailures, MaxFailures: t.MaxFailures}
	runs, err := s.store.TaskRuns(ctx, t.ID, 50)
	if err != nil {
		return v, err
	}
	for _, run := range runs {
		row := web.TaskRunRow{ID: run.ID, Status: run.Status, Trigger: run.Trigger, CreatedAt: run.CreatedAt, Error: run.Error,
			ScheduledFor: timePtr(run.ScheduledFor.Time, run.ScheduledFor.Valid)}
		if run.Status.Terminal() && s.opt.Tasks.Changes != nil {
			row.Changes, _ = s.opt.Tasks.Changes(ctx, run.ID)
		}
		v.Runs = append(v.Runs, row)
	}
	skips, err := s.store.TaskSkips(ctx, t.ID, 20)
	if err != nil {
		return v, err
	}
	for _, k := range skips {
		v.Skips = append(v.Skips, web.TaskSkipRow{ScheduledFor: k.ScheduledFor, Reason: k.Reason})
	}
	return v, nil
}

// editTaskPage is GET /tasks/{id}/edit.
func (s *Server) editTaskPage(w http.ResponseWriter, r *http.Request) {
	t, err := s.loadTask(r)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	in := inputOf(t)
	s.renderTaskForm(w, r, http.StatusOK, web.TaskForm{ID: t.ID, Name: in.Name, Question: in.Question, Depth: in.Depth,
		Engines: in.Engines, Schedule: in.Schedule, Timezone: in.Timezone, Approval: in.Approval, NotifyOn: in.NotifyOn, WebhookURL: in.WebhookURL,
		WebhookSecretSet: in.WebhookSecret != "", Email: in.Email, MaxFailures: in.MaxFailures})
}

// editTask is POST /tasks/{id}/edit.
func (s *Server) editTask(w http.ResponseWriter, r *http.Request) {
	t, err := s.loadTask(r)
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	fields, _, ok := s.submitTaskForm(w, r, t)
	if !ok {
		return
	}
	if _, err := s.store.UpdateTask(r.Context(), t.ID, fields); err != nil {
		s.pageFail(w, r, err)
		return
	}
	s.redirect(w, r, "/tasks/"+t.ID)
}

// taskAction is POST /tasks/{id}/{pause|resume|run|delete}.
func (s *Server) taskAction(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t, err := s.loadTask(r)
		if err != nil {
			s.pageFail(w, r, err)
			return
		}
		next := "/tasks/" + t.ID
		if err := s.doTaskAction(r.Context(), t, action); err != nil {
			if errors.Is(err, tasks.ErrDailyBudget) {
				s.errorPage(w, r, http.StatusTooManyRequests, tasks.ErrDailyBudget.Error()+".")
				return
			}
			s.pageFail(w, r, err)
			return
		}
		if action == "delete" {
			next = "/tasks"
		}
		s.redirect(w, r, next)
	}
}

func (s *Server) doTaskAction(ctx context.Context, t *db.Task, action string) error {
	var err error
	switch action {
	case "pause":
		_, err = s.store.PauseTask(ctx, t.ID, "paused by "+orString(UserFrom(ctx), "the owner"))
	case "resume":
		_, err = s.store.ResumeTask(ctx, t.ID, time.Time{}, resumeNext)
	case "run":
		_, err = s.runTaskNow(ctx, t)
	case "delete":
		err = s.store.DeleteTask(ctx, t.ID)
	default:
		err = fmt.Errorf("unknown task action %q", action)
	}
	return err
}

// approvalsPage is GET /approvals: the user's task runs awaiting approval.
func (s *Server) approvalsPage(w http.ResponseWriter, r *http.Request) {
	list, err := s.store.PendingTaskApprovals(r.Context(), UserFrom(r.Context()), false)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	rows := make([]web.ApprovalRow, len(list))
	for i, a := range list {
		rows[i] = web.ApprovalRow{RunID: a.RunID, TaskID: a.TaskID, TaskName: a.TaskName, Question: a.Question,
			ScheduledFor: timePtr(a.ScheduledFor.Time, a.ScheduledFor.Valid), ExpiresAt: timePtr(a.ExpiresAt.Time, a.ExpiresAt.Valid)}
	}
	p := s.page(r, "Approvals")
	s.render(w, r, http.StatusOK, web.ApprovalsPage(p, rows), web.ApprovalsBody(p, rows))
}

// approvalAction is POST /approvals/{id}/{approve|skip}: approve runs the
// plan; skip cancels this slot's run (the task carries on).
func (s *Server) approvalAction(approve bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := chi.URLParam(r, "id")
		var err error
		if approve {
			_, err = s.runs.Approve(r.Context(), id, pipeline.Approval{})
		} else {
			err = s.runs.Cancel(r.Context(), id)
		}
		switch {
		case errors.Is(err, pipeline.ErrNotAwaiting), errors.Is(err, pipeline.ErrFinished):
			s.errorPage(w, r, http.StatusConflict, "This run no longer waits for approval (it expired, or was answered already).")
		case err != nil:
			s.pageFail(w, r, err)
		default:
			s.redirect(w, r, "/approvals")
		}
	}
}

func timePtr(t time.Time, ok bool) *time.Time {
	if !ok {
		return nil
	}
	return &t
}

func orString(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return strings.TrimSpace(v)
}
