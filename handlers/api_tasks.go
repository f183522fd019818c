package handlers

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/tasks"
)

// TaskRequest is the body of POST /api/tasks and PATCH /api/tasks/{id};
// on PATCH, absent fields keep their value.
type TaskRequest struct {
	Name        *string            `json:"name"`
	Question    *string            `json:"question"`
	Depth       *string            `json:"depth"`
	Engines     *[]string          `json:"engines"`
	Schedule    *string            `json:"schedule"`
	Timezone    *string            `json:"timezone"`
	Approval    *string            `json:"approval"`
	Notify      *TaskNotifyRequest `json:"notify"`
	MaxFailures *int               `json:"max_failures"`
}

// TaskNotifyRequest is a task's notify policy and channels.
type TaskNotifyRequest struct {
	On            *string `json:"on"`
	WebhookURL    *string `json:"webhook_url"`
	WebhookSecret *string `json:"webhook_secret"`
	Email         *string `json:"email"`
}

// apply overlays the request on in.
func (b TaskRequest) apply(in *tasks.Input) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&in.Name, b.Name)
	set(&in.Question, b.Question)
	set(&in.Depth, b.Depth)
	set(&in.Schedule, b.Schedule)
	set(&in.Timezone, b.Timezone)
	set(&in.Approval, b.Approval)
	if b.Engines != nil {
		in.Engines = *b.Engines
	}
	if b.MaxFailures != nil {
		in.MaxFailures = *b.MaxFailures
		if in.MaxFailures == 0 {
			in.MaxFailures = -1 // an explicit 0 is refused, not defaulted
		}
	}
	if n := b.Notify; n != nil {
		set(&in.NotifyOn, n.On)
		set(&in.WebhookURL, n.WebhookURL)
		set(&in.WebhookSecret, n.WebhookSecret)
		set(&in.Email, n.Email)
	}
}

// TaskCreated is the answer of POST /api/tasks.
type TaskCreated struct {
	ID        string     `json:"id"`
	NextRunAt *time.Time `json:"next_run_at"`
}

// TaskJSON is a task in the API.
type TaskJSON struct {
	ID                  string         `json:"id"`
	Name                string         `json:"name"`
	Question            string         `json:"question"`
	Depth               string         `json:"depth"`
	Engines             []string       `json:"engines"`
	Schedule            string         `json:"schedule"`
	ScheduleWords       string         `json:"schedule_words"`
	Timezone            string         `json:"timezone"`
	Approval            string         `json:"approval"`
	Notify              TaskNotifyJSON `json:"notify"`
	Status              string         `json:"status"`
	PausedReason        string         `json:"paused_reason"`
	NextRunAt           *time.Time     `json:"next_run_at"`
	LastRunAt           *time.Time     `json:"last_run_at,omitempty"`
	ConsecutiveFailures int            `json:"consecutive_failures"`
	MaxFailures         int            `json:"max_failures"`
	CreatedAt           time.Time      `json:"created_at"`
	Runs                []TaskRunJSON  `json:"runs,omitempty"`
	Skips               []TaskSkipJSON `json:"skips,omitempty"`
}

// TaskNotifyJSON is a task's notify settings; the webhook secret is never
// sent back, only whether one is set.
type TaskNotifyJSON struct {
	On               string `json:"on"`
	WebhookURL       string `json:"webhook_url,omitempty"`
	WebhookSecretSet bool   `json:"webhook_secret_set"`
	Email            string `json:"email,omitempty"`
}

// TaskRunJSON is one run of a task.
type TaskRunJSON struct {
	ID           string     `json:"id"`
	Status       string     `json:"status"`
	Trigger      string     `json:"trigger"`
	ScheduledFor *time.Time `json:"scheduled_for"`
	Changes      string     `json:"changes"`
	Error        string     `json:"error,omitempty"`
}

// TaskSkipJSON is a slot that did not run.
type TaskSkipJSON struct {
	ScheduledFor time.Time `json:"scheduled_for"`
	Reason       string    `json:"reason"`
}

func taskJSON(t *db.Task) TaskJSON {
	ch := tasks.ChannelsOf(t)
	engines := []string(t.Engines)
	if engines == nil {
		engines = []string{}
	}
	return TaskJSON{ID: t.ID, Name: t.Name, Question: t.Question, Depth: t.Depth, Engines: engines, Schedule: t.ScheduleText,
		ScheduleWords: tasks.ScheduleOf(t).Describe(), Timezone: t.TimeZone, Approval: t.Approval,
		Notify: TaskNotifyJSON{On: t.NotifyOn, WebhookURL: ch.WebhookURL, WebhookSecretSet: ch.WebhookSecret != "", Email: ch.Email},
		Status: t.Status, PausedReason: t.PausedReason, NextRunAt: timePtr(t.NextRunAt.Time, t.NextRunAt.Valid),
		LastRunAt: timePtr(t.LastRunAt.Time, t.LastRunAt.Valid), ConsecutiveFailures: t.ConsecutiveFailures,
		MaxFailures: t.MaxFailures, CreatedAt: t.CreatedAt}
}

// apiTaskFail answers a failed task request: 400 naming the field for bad
// input, 404 for a task that is not there (or not the user's).
func (s *Server) apiTaskFail(w http.ResponseWriter, r *http.Request, err error) {
	if field, msg, ok := fieldOf(err); ok {
		writeJSON(w, http.StatusBadRequest, apiError{Error: msg, Field: field})
		return
	}
	if errors.Is(err, db.ErrNotFound) {
		writeError(w, http.StatusNotFound, "no such task")
		return
	}
	if errors.Is(err, tasks.ErrDailyBudget) {
		writeError(w, http.StatusTooManyRequests, tasks.ErrDailyBudget.Error())
		return
	}
	s.apiFail(w, r, err)
}

// apiCreateTask is POST /api/tasks.
func (s *Server) apiCreateTask(w http.ResponseWriter, r *http.Request) {
	var body TaskRequest
	if err := decodeJSON(r, &body, true); err != nil {
		writeBadRequest(w, err)
		return
	}
	var in tasks.Input
	body.apply(&in)
	fields, _, err := s.prepareTask(r.Context(), in)
	if err != nil {
		s.apiTaskFail(w, r, err)
		return
	}
	t, err := s.store.CreateTask(r.Context(), UserFrom(r.Context()), fields, s.opt.Tasks.MaxPerUser)
	if err != nil {
		s.apiTaskFail(w, r, err)
		return
	}
	w.Header().Set("Location", s.url("/api/tasks/"+t.ID))
	writeJSON(w, http.StatusCreated, TaskCreated{ID: t.ID, NextRunAt: timePtr(t.NextRunAt.Time, t.NextRunAt.Valid)})
}

// apiListTasks is GET /api/tasks.
func (s *Server) apiListTasks(w http.ResponseWriter, r *http.Request) {
	list, err := s.store.ListTasks(r.Context(), UserFrom(r.Context()), false)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	out := make([]TaskJSON, len(list))
	for i := range list {
		out[i] = taskJSON(&list[i].Task)
	}
	writeJSON(w, http.StatusOK, map[string]any{"tasks": out})
}

// apiGetTask is GET /api/tasks/{id}: the task with its runs, newest first.
func (s *Server) apiGetTask(w http.ResponseWriter, r *http.Request) {
	t, err := s.loadTask(r)
	if err != nil {
		s.apiTaskFail(w, r, err)
		return
	}
	out := taskJSON(t)
	view, err := s.taskView(r.Context(), t)
	if err != nil {
		s.apiFail(w, r, err)
		return
	}
	out.Runs = []TaskRunJSON{}
	for _, run := range view.Runs {
		out.Runs = append(out.Runs, TaskRunJSON{ID: run.ID, Status: string(run.Status), Trigger: run.Trigger,
			ScheduledFor: run.ScheduledFor, Changes: run.Changes, Error: run.Error})
	}
	for _, k := range view.Skips {
		out.Skips = append(out.Skips, TaskSkipJSON{ScheduledFor: k.ScheduledFor, Reason: k.Reason})
	}
	writeJSON(w, http.StatusOK, out)
}

// apiPatchTask is PATCH /api/tasks/{id}: change some fields; the schedule
// is read again from now.
func (s *Server) apiPatchTask(w http.ResponseWriter, r *http.Request) {
	t, err := s.loadTask(r)
	if err != nil {
		s.apiTaskFail(w, r, err)
		return
	}
	var body TaskRequest
	if err := decodeJSON(r, &body, true); err != nil {
		writeBadRequest(w, err)
		return
	}
	in := inputOf(t)
	body.apply(&in)
	fields, _, err := s.prepareTask(r.Context(), in)
	if err != nil {
		s.apiTaskFail(w, r, err)
		return
	}
	updated, err := s.store.UpdateTask(r.Context(), t.ID, fields)
	if err != nil {
		s.apiTaskFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, taskJSON(updated))
}

// apiTaskAction is DELETE /api/tasks/{id} and POST /api/tasks/{id}/{pause|resume|run}.
func (s *Server) apiTaskAction(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t, err := s.loadTask(r)
		if err != nil {
			s.apiTaskFail(w, r, err)
			return
		}
		if action == "run" {
			run, err := s.runTaskNow(r.Context(), t)
			if err != nil {
				s.apiTaskFail(w, r, err)
				return
			}
			writeJSON(w, http.StatusCreated, CreateRunResponse{ID: run.ID, URL: s.url("/runs/" + run.ID),
				EventsURL: s.url("/api/runs/" + run.ID + "/events")})
			return
		}
		if err := s.doTaskAction(r.Context(), t, action); err != nil {
			s.apiTaskFail(w, r, err)
			return
		}
		if action == "delete" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		t, err = s.store.GetTask(r.Context(), t.ID)
		if err != nil {
			s.apiFail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, taskJSON(t))
	}
}

// SchedulePreview is GET /api/tasks/preview: what a schedule phrase means
// and its next five run times, before saving.
type SchedulePreview struct {
	Schedule string      `json:"schedule"`
	Kind     string      `json:"kind"`
	Words    string      `json:"words"`
	Next     []time.Time `json:"next"`
}

func (s *Server) apiPreviewSchedule(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	in := tasks.Input{Question: "preview", Schedule: q.Get("schedule"), Timezone: q.Get("timezone")}
	_, sched, err := tasks.Prepare(r.Context(), in, s.opt.Tasks.Rules, time.Now())
	if err != nil {
		s.apiTaskFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, SchedulePreview{Schedule: strings.TrimSpace(in.Schedule), Kind: sched.Kind, Words: sched.Describe(),
		Next: sched.Upcoming(time.Now(), 5)})
}
