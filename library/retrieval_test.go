package library

import (
	"bufio"
	"context"
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/db/dbtest"
)

type labelled struct {
	doc, phrase, question string
	page                  int
}

func readQuestions(t testing.TB) []labelled {
	f, err := os.Open(filepath.Join("testdata", "retrieval", "questions.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		p := strings.Split(line, "\t")
		if len(p) != 4 {
			t.Fatalf("questions.tsv: %q has %d fields", line, len(p))
		}
		page, err := strconv.Atoi(p[1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, labelled{doc: p[0], page: page, phrase: p[2], question: p[3]})
	}
	return out
}

func fold(s string) string {
	r := strings.NewReplacer("’", "'", "“", `"`, "”", `"`)
	return strings.ToLower(strings.Join(strings.Fields(r.Replace(s)), " "))
}

// recallAt5 is the share of questions with a relevant hit among the first
// five: a chunk of the labelled document holding the answer's phrase, on
// the labelled page for a PDF.
func recallAt5(t *testing.T, lib *Library, collection string, docs map[string]db.Document, qs []labelled) float64 {
	found := 0
	for _, q := range qs {
		hits, err := lib.Search(context.Background(), Query{Collection: collection, Text: q.question, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		ok := false
		for _, h := range hits {
			if h.DocumentID == docs[q.doc].ID && strings.Contains(fold(h.Text), fold(q.phrase)) && (q.page == 0 || h.Page == q.page) {
				ok = true
				break
			}
		}
		if ok {
			found++
		} else if testing.Verbose() {
			t.Logf("missed: %s (%s p.%d)", q.question, q.doc, q.page)
		}
	}
	return float64(found) / float64(len(qs))
}

// The labelled retrieval set: 61 questions over 21 documents, with
// full-text search alone and hybrid with scripted embeddings.
func TestRetrievalRecall(t *testing.T) {
	qs := readQuestions(t)
	names := map[string]bool{}
	for _, q := range qs {
		names[q.doc] = true
	}
	if len(qs) < 50 || len(names) < 20 {
		t.Fatalf("%d questions over %d documents; the set needs 50 over 20", len(qs), len(names))
	}
	var list []string
	for n := range names {
		list = append(list, n)
	}
	store := dbtest.NewStore(t)

	fts := New(store, Options{Owner: "fts"})
	docs := ingestAll(t, fts, "retrieval-fts", list...)
	for n, d := range docs {
		if d.Status != db.DocReady {
			t.Fatalf("%s: %s %s", n, d.Status, d.Error)
		}
	}
	rFTS := recallAt5(t, fts, "retrieval-fts", docs, qs)
	t.Logf("recall@5, full-text search: %.3f (%d questions, %d documents)", rFTS, len(qs), len(docs))

	srv := embeddingsServer(t)
	hybrid := New(store, Options{Owner: "hybrid", Embedder: NewOpenAIEmbedder(srv.URL+"/v1", "scripted-hash-256", "", srv.Client())})
	hdocs := ingestAll(t, hybrid, "retrieval-hybrid", list...)
	rHybrid := recallAt5(t, hybrid, "retrieval-hybrid", hdocs, qs)
	t.Logf("recall@5, hybrid (full-text + scripted embeddings, RRF): %.3f", rHybrid)
	if rFTS < 0.5 || rHybrid < 0.5 {
		t.Errorf("recall@5 below 0.5: full-text %.3f, hybrid %.3f", rFTS, rHybrid)
	}
}

// embeddingsServer speaks OpenAI's POST /v1/embeddings. Its "model" is a
// scripted one: a 256-dimension hashed bag of the text's lower-cased words
// with a crude plural fold, normalised — deterministic and offline, with
// a lexical notion of similarity different from Postgres's stemming.
func embeddingsServer(t testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		var req struct {
			Input any    `json:"input"`
			Model string `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		var inputs []string
		switch v := req.Input.(type) {
		case string:
			inputs = []string{v}
		case []any:
			for _, x := range v {
				s, _ := x.(string)
				inputs = append(inputs, s)
			}
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		resp := struct {
			Object string `json:"object"`
			Data   []item `json:"data"`
			Model  string `json:"model"`
			Usage  struct {
				PromptTokens int `json:"prompt_tokens"`
				TotalTokens  int `json:"total_tokens"`
			} `json:"usage"`
		}{Object: "list", Model: req.Model}
		for i, s := range inputs {
			resp.Data = append(resp.Data, item{Object: "embedding", Index: i, Embedding: hashVector(s)})
			resp.Usage.PromptTokens += len(strings.Fields(s))
		}
		resp.Usage.TotalTokens = resp.Usage.PromptTokens
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func hashVector(s string) []float64 {
	v := make([]float64, 256)
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) < 3 {
			continue
		}
		w = strings.TrimSuffix(w, "s")
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%256] += 1
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n > 0 {
		n = math.Sqrt(n)
		for i := range v {
			v[i] /= n
		}
	}
	return v
}
