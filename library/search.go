package library

import (
	"context"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/quarryhq/quarry/db"
)

// Query is a search of the library.
type Query struct {
	Reader     string // the user searching; collections follow db's readable rule
	Collection string // "" for every collection Reader may read
	Text       string
	Limit      int // hits returned; 0 means 10
}

// candidates is how many hits each ranking contributes to the fusion.
const candidates = 50

// rrfK is reciprocal rank fusion's constant (the usual 60).
const rrfK = 60

// Search ranks chunks for q: full-text search (all of the query's words
// first, then any of them), fused by reciprocal rank with the embedding
// ranking when an embedder is configured.
func (l *Library) Search(ctx context.Context, q Query) ([]db.ChunkHit, error) {
	if q.Limit <= 0 {
		q.Limit = 10
	}
	text := strings.TrimSpace(q.Text)
	if text == "" {
		return nil, nil
	}
	fts, err := l.fullText(ctx, q, text)
	if err != nil {
		return nil, err
	}
	if l.opt.Embedder == nil {
		return fts[:min(len(fts), q.Limit)], nil
	}
	vec, err := l.vectorRank(ctx, q, text)
	if err != nil {
		l.log.Info("vector search failed; full-text only", "err", err)
		return fts[:min(len(fts), q.Limit)], nil
	}
	return l.fuse(ctx, fts, vec, q.Limit)
}

// fullText is the full-text ranking: chunks with all of the words, then
// those with some of them (a question is rarely answered in its own words).
func (l *Library) fullText(ctx context.Context, q Query, text string) ([]db.ChunkHit, error) {
	cq := db.ChunkQuery{Reader: q.Reader, Collection: q.Collection, Query: text, Limit: candidates}
	all, err := l.store.SearchChunks(ctx, cq)
	if err != nil || len(all) >= candidates {
		return all, err
	}
	words := queryWords(text)
	if len(words) < 2 {
		return all, nil
	}
	cq.Query = strings.Join(words, " or ")
	any, err := l.store.SearchChunks(ctx, cq)
	if err != nil {
		return nil, err
	}
	seen := map[db.ChunkKey]bool{}
	for _, h := range all {
		seen[db.ChunkKey{DocumentID: h.DocumentID, Seq: h.Seq}] = true
	}
	for _, h := range any {
		if k := (db.ChunkKey{DocumentID: h.DocumentID, Seq: h.Seq}); !seen[k] && len(all) < candidates {
			seen[k] = true
			all = append(all, h)
		}
	}
	return all, nil
}

// queryWords are the query's words without the web-search syntax.
func queryWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

type scored struct {
	key   db.ChunkKey
	score float64
}

// vectorRank is the embedding ranking: cosine similarity against a bounded
// scan of the readable chunks (the database has no vector index; see
// docs/DECISIONS.md).
func (l *Library) vectorRank(ctx context.Context, q Query, text string) ([]db.ChunkKey, error) {
	qv, err := l.opt.Embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	rows, err := l.store.ChunkVectors(ctx, db.ChunkQuery{Reader: q.Reader, Collection: q.Collection}, l.opt.VectorScan)
	if err != nil {
		return nil, err
	}
	var all []scored
	for _, r := range rows {
		if len(r.Embedding) != len(qv[0]) {
			continue // embedded by another model
		}
		all = append(all, scored{db.ChunkKey{DocumentID: r.DocumentID, Seq: r.Seq}, cosine(qv[0], r.Embedding)})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	keys := make([]db.ChunkKey, 0, candidates)
	for _, s := range all[:min(len(all), candidates)] {
		keys = append(keys, s.key)
	}
	return keys, nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// fuse merges the rankings by reciprocal rank fusion.
func (l *Library) fuse(ctx context.Context, fts []db.ChunkHit, vec []db.ChunkKey, limit int) ([]db.ChunkHit, error) {
	score := map[db.ChunkKey]float64{}
	hits := map[db.ChunkKey]db.ChunkHit{}
	for i, h := range fts {
		k := db.ChunkKey{DocumentID: h.DocumentID, Seq: h.Seq}
		score[k] += 1.0 / float64(rrfK+i+1)
		hits[k] = h
	}
	var missing []db.ChunkKey
	for i, k := range vec {
		score[k] += 1.0 / float64(rrfK+i+1)
		if _, ok := hits[k]; !ok {
			missing = append(missing, k)
		}
	}
	order := make([]scored, 0, len(score))
	for k, s := range score {
		order = append(order, scored{k, s})
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].score != order[j].score {
			return order[i].score > order[j].score
		}
		if order[i].key.DocumentID != order[j].key.DocumentID {
			return order[i].key.DocumentID < order[j].key.DocumentID
		}
		return order[i].key.Seq < order[j].key.Seq
	})
	order = order[:min(len(order), limit)]
	var need []db.ChunkKey
	for _, o := range order {
		for _, m := range missing {
			if m == o.key {
				need = append(need, m)
			}
		}
	}
	extra, err := l.store.ChunksByKey(ctx, need)
	if err != nil {
		return nil, err
	}
	for _, h := range extra {
		hits[db.ChunkKey{DocumentID: h.DocumentID, Seq: h.Seq}] = h
	}
	out := make([]db.ChunkHit, 0, len(order))
	for _, o := range order {
		if h, ok := hits[o.key]; ok {
			h.Rank = o.score
			out = append(out, h)
		}
	}
	return out, nil
}
