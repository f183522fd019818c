package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// TestTaskFormErrorBesideField: a bad schedule is a 400 whose message
// sits beside the schedule field (not only at the top of the form), and
// the field is marked invalid and described by it; the preview fragment
// answers a bad schedule with a 400 naming the problem.
func TestTaskFormErrorBesideField(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	form := url.Values{"question": {"What changed in the release notes?"}, "depth": {"quick"}, "schedule": {"every monday at quarter past"},
		"timezone": {"UTC"}, "approval": {"auto"}, "notify_on": {"change"}, "max_failures": {"3"}}
	resp, err := http.PostForm(rep.srv.URL+"/tasks", form)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad schedule answered %d", resp.StatusCode)
	}
	field := doc.Find("#task-schedule").Closest(".field")
	msg := field.Find(".field-error[data-field=schedule]")
	if msg.Length() != 1 || !strings.Contains(msg.Text(), "quarter past") {
		t.Errorf("the schedule's field shows error %q, want the message about it", msg.Text())
	}
	input := doc.Find("#task-schedule")
	if input.AttrOr("aria-invalid", "") != "true" || !strings.Contains(input.AttrOr("aria-describedby", ""), msg.AttrOr("id", "?")) {
		t.Errorf("the schedule field is not marked invalid and described by its error: %v %v", input.AttrOr("aria-invalid", ""), input.AttrOr("aria-describedby", ""))
	}
	if n := doc.Find("[data-testid=form-error]").Length(); n != 1 {
		t.Errorf("%d error messages on the form, want the one beside the field", n)
	}
	if lbl := doc.Find("label[for=task-schedule]"); lbl.Length() != 1 || lbl.Next().AttrOr("id", "") != "task-schedule" {
		t.Error("the schedule's label is not right above its field")
	}
	if doc.Find("#task-tz").AttrOr("list", "") != "time-zones" || doc.Find("datalist#time-zones option[value='Europe/Berlin']").Length() != 1 {
		t.Error("the time zone field offers no IANA zone list")
	}

	resp, err = http.Get(rep.srv.URL + "/tasks/preview?" + url.Values{"schedule": {"every monday at quarter past"}, "timezone": {"UTC"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	frag := mustDoc(t, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(frag.Find("[data-testid=schedule-problem]").Text(), "schedule") {
		t.Errorf("preview of a bad schedule: %d %q", resp.StatusCode, frag.Text())
	}
	resp, err = http.Get(rep.srv.URL + "/tasks/preview?" + url.Values{"schedule": {"daily at noon"}, "timezone": {"Mars/Olympus_Mons"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	frag = mustDoc(t, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(frag.Find("[data-testid=schedule-problem]").Text(), "timezone") {
		t.Errorf("preview in an unknown zone: %d %q", resp.StatusCode, frag.Text())
	}
}

// TestBrowserTaskFormHelps: in a real browser whose zone is New York, the
// new task form fills in that zone, lists the next five runs while the
// schedule is typed (no button pressed) and says why a schedule gives
// none; the task is saved in that zone. Deleting it asks first and works
// with JavaScript off.
func TestBrowserTaskFormHelps(t *testing.T) {
	rep := newReplica(t, replicaOptions{tasks: true})
	page := newUIPage(t)
	if err := (proto.EmulationSetTimezoneOverride{TimezoneID: "America/New_York"}).Call(page); err != nil {
		t.Fatal(err)
	}
	page.MustNavigate(rep.srv.URL + "/tasks/new").MustWaitLoad()
	page.wait(t, 5*time.Second, `() => document.querySelector("#task-tz").value === "America/New_York"`)

	page.MustElement("#task-question").MustInput("What changed in the release notes?")
	page.MustElement("[data-testid=task-schedule]").MustInput("every weekday at 8am")
	page.wait(t, 5*time.Second, `() => document.querySelectorAll("[data-testid=schedule-preview] li").length === 5`)
	for _, li := range page.MustElements("[data-testid=schedule-preview] li") {
		if text := li.MustText(); !strings.Contains(text, "08:00 E") { // EST or EDT
			t.Errorf("next run %q, want 8:00 New York time", text)
		}
	}
	page.MustElement("[data-testid=task-schedule]").MustSelectAllText().MustInput("every monday at quarter past")
	page.wait(t, 5*time.Second, `() => { const p = document.querySelector("[data-testid=schedule-problem]"); return !!p && p.textContent.includes("quarter past") }`)
	page.MustElement("[data-testid=task-schedule]").MustSelectAllText().MustInput("every weekday at 8am")
	page.wait(t, 5*time.Second, `() => document.querySelectorAll("[data-testid=schedule-preview] li").length === 5`)
	page.MustEval(`() => document.querySelector("#task-schedule").scrollIntoView({block: "start"})`)
	page.screenshot(t, "task-form-preview-desktop")
	page.phone()
	page.MustEval(`() => document.querySelector("#task-schedule").scrollIntoView({block: "start"})`)
	page.screenshot(t, "task-form-preview-phone")
	page.desktop()
	if page.MustElements("[data-testid=task-preview]").Empty() {
		t.Error("the preview button (for browsers without JavaScript) is gone")
	}
	page.MustElement("[data-testid=task-save]").MustClick()
	page.wait(t, 10*time.Second, `() => document.querySelector("[data-testid=task]") !== null`)
	if got := page.MustElement(".task-facts").MustText(); !strings.Contains(got, "America/New_York") {
		t.Errorf("the task's facts %q lack the browser's zone", got)
	}
	// The browser logs the preview's 400 for the bad schedule; nothing else.
	for _, p := range page.problems(true) {
		if !strings.Contains(p, "400") || !strings.Contains(p, "/tasks/preview") {
			t.Errorf("console error: %q", p)
		}
	}

	// Delete asks first. The question is HTML (a disclosure holding the
	// form), so it needs no script: the plain page has it.
	resp, err := http.Get(page.MustInfo().URL)
	if err != nil {
		t.Fatal(err)
	}
	doc := mustDoc(t, resp.Body)
	resp.Body.Close()
	if doc.Find("details.confirm > form[method=post] > button.danger[data-testid=task-delete]").Length() != 1 {
		t.Error("the task page's delete is not a confirmation disclosure holding its form")
	}
	if page.MustEval(`() => document.querySelector("[data-testid=task-delete]").checkVisibility()`).Bool() {
		t.Fatal("the delete button shows before being asked for")
	}
	if got := page.evalString(t, `() => { const b = getComputedStyle(document.querySelector("[data-testid=task-delete-open]")); return b.color }`); got == page.evalString(t, `() => getComputedStyle(document.querySelector("[data-testid=task-run]")).backgroundColor`) {
		t.Errorf("delete looks like run now (%s)", got)
	}
	page.MustElement("[data-testid=task-delete-open]").MustClick()
	page.wait(t, 5*time.Second, `() => document.querySelector("[data-testid=task-delete]").checkVisibility()`)
	page.MustElement("[data-testid=task-delete]").MustClick()
	page.wait(t, 10*time.Second, `() => location.pathname.endsWith("/tasks")`)
	if n := countTasks(t, rep.store); n != 0 {
		t.Errorf("%d tasks after deleting the only one", n)
	}
}
