package tasks

import "testing"

func TestRecurringWish(t *testing.T) {
	cases := []struct {
		q        string
		ok       bool
		schedule string
		question string
	}{
		{"Every morning, what changed in the PostgreSQL release notes?", true, "Every morning", "What changed in the PostgreSQL release notes?"},
		{"what is new on the status page of our provider, every 6 hours", true, "every 6 hours", "What is new on the status page of our provider"},
		{"Keep an eye on the reviews of the new laptop", true, DefaultWatchSchedule, "Keep an eye on the reviews of the new laptop"},
		{"alert me when the changelog mentions a security fix", true, DefaultWatchSchedule, "alert me when the changelog mentions a security fix"},
		{"How does Postgres implement SKIP LOCKED?", false, "", ""},
		{"Does every process need its own connection?", false, "", ""},
	}
	for _, c := range cases {
		w, ok := RecurringWish(c.q)
		if ok != c.ok || w.Schedule != c.schedule || (ok && w.Question != c.question) {
			t.Errorf("%q = %+v %v, want ok %v schedule %q question %q", c.q, w, ok, c.ok, c.schedule, c.question)
		}
	}
}
