package text

import (
	"math"
	"sort"
)

// BM25 parameters: the usual defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Query is a weighted bag of tokens: token → weight.
type Query map[string]float64

// Add adds tokens to q with weight w, keeping the larger weight of a token
// already present.
func (q Query) Add(tokens []string, w float64) {
	for _, t := range tokens {
		if q[t] < w {
			q[t] = w
		}
	}
}

// Terms returns the tokens of q in sorted order, so that sums over a query
// are the same on every run (map order is random, float addition is not
// associative).
func (q Query) Terms() []string {
	out := make([]string, 0, len(q))
	for t := range q {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// posting is one document containing a term, with the term's frequency.
type posting struct {
	doc int
	tf  int
}

// Index is a BM25 index over a fixed set of token documents.
type Index struct {
	postings map[string][]posting
	lens     []int
	avgLen   float64
}

// NewIndex indexes docs, each a list of tokens (see Tokens).
func NewIndex(docs [][]string) *Index {
	x := &Index{postings: map[string][]posting{}, lens: make([]int, len(docs))}
	total := 0
	for i, doc := range docs {
		x.lens[i] = len(doc)
		total += len(doc)
		tf := map[string]int{}
		for _, t := range doc {
			tf[t]++
		}
		for t, n := range tf {
			x.postings[t] = append(x.postings[t], posting{doc: i, tf: n})
		}
	}
	if len(docs) > 0 {
		x.avgLen = float64(total) / float64(len(docs))
	}
	if x.avgLen == 0 {
		x.avgLen = 1
	}
	return x
}

// Len is the number of indexed documents.
func (x *Index) Len() int { return len(x.lens) }

// IDF is the smoothed inverse document frequency of term; a term absent
// from every document gets the highest value.
func (x *Index) IDF(term string) float64 {
	n := float64(len(x.postings[term]))
	N := float64(len(x.lens))
	return math.Log(1 + (N-n+0.5)/(n+0.5))
}

// DF is the number of documents containing term.
func (x *Index) DF(term string) int { return len(x.postings[term]) }

// Scores returns the BM25 score of every document for q.
func (x *Index) Scores(q Query) []float64 {
	scores := make([]float64, len(x.lens))
	for _, t := range q.Terms() {
		w := q[t]
		if w == 0 {
			continue
		}
		idf := x.IDF(t)
		for _, p := range x.postings[t] {
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(x.lens[p.doc])/x.avgLen)
			scores[p.doc] += w * idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	return scores
}
