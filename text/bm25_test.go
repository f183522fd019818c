package text

import "testing"

func TestIndexRanksRelevantFirst(t *testing.T) {
	docs := []string{
		"PostgreSQL listens on TCP port 5432 by default.",
		"The weather in Paris is mild in spring.",
		"Ports and harbours of the Atlantic coast.",
		"To change the port, edit postgresql.conf and set the port parameter.",
	}
	var toks [][]string
	for _, d := range docs {
		toks = append(toks, Tokens(d))
	}
	x := NewIndex(toks)
	if x.Len() != len(docs) {
		t.Fatalf("Len = %d", x.Len())
	}
	q := Query{}
	q.Add(Tokens("default port PostgreSQL"), 1)
	scores := x.Scores(q)
	best := 0
	for i, s := range scores {
		if s > scores[best] {
			best = i
		}
	}
	if best != 0 {
		t.Errorf("best doc = %d (%v), want 0", best, scores)
	}
	if scores[1] != 0 {
		t.Errorf("unrelated doc scored %v", scores[1])
	}
	if x.IDF("zzz") <= x.IDF("port") {
		t.Errorf("absent term idf %v must exceed common term idf %v", x.IDF("zzz"), x.IDF("port"))
	}
}

func TestQueryAddKeepsMaxWeight(t *testing.T) {
	q := Query{}
	q.Add([]string{"a", "b"}, 0.5)
	q.Add([]string{"b", "c"}, 1)
	q.Add([]string{"c"}, 0.2)
	if q["a"] != 0.5 || q["b"] != 1 || q["c"] != 1 {
		t.Errorf("q = %v", q)
	}
	if got := q.Terms(); len(got) != 3 || got[0] != "a" || got[2] != "c" {
		t.Errorf("Terms = %v", got)
	}
}
