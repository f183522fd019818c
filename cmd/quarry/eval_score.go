package main

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/quarryhq/quarry/extract"
)

// shingleSize is the n of the word n-grams compared by the extraction
// benchmark.
const shingleSize = 4

// maxGroundTruthBytes bounds the ground-truth file an evaluation reads.
const maxGroundTruthBytes = 64 << 20

// evalReport is the outcome of scoring the extractor over a benchmark
// directory: shingle precision and recall averaged over pages, and the F1 of
// those averages (the scoring of the Scrapinghub article-extraction
// benchmark).
type evalReport struct {
	Pages     int         `json:"pages"`
	Failures  int         `json:"failures"` // pages whose HTML could not be read or extracted
	Precision float64     `json:"precision"`
	Recall    float64     `json:"recall"`
	F1        float64     `json:"f1"`
	Seconds   float64     `json:"seconds"`
	PerPage   []pageScore `json:"-"`
}

// pageScore is the shingle score of one benchmark page.
type pageScore struct {
	ID        string
	Precision float64
	Recall    float64
	F1        float64
	Err       string
}

// shingleCounts holds the normalised true-positive, false-positive and
// false-negative shingle counts of one page (they sum to 1 unless both texts
// are empty).
type shingleCounts struct{ tp, fp, fn float64 }

// scoreShingles compares an extracted text with the expected one by word
// 4-gram shingles and returns precision and recall. Tokens are runs of
// letters, digits and underscores, compared case-sensitively as in the
// benchmark's reference scorer; texts shorter than four words form a single
// shingle. Two empty texts score 1, 1.
func scoreShingles(pred, truth string) (p, r float64) {
	c := countShingles(pred, truth)
	return c.precision(), c.recall()
}

func countShingles(pred, truth string) shingleCounts {
	want := shingles(truth)
	got := shingles(pred)
	var c shingleCounts
	for k, w := range want {
		g := got[k]
		c.tp += float64(min(w, g))
		c.fn += float64(max(0, w-g))
	}
	for k, g := range got {
		c.fp += float64(max(0, g-want[k]))
	}
	if s := c.tp + c.fp + c.fn; s > 0 {
		c.tp, c.fp, c.fn = c.tp/s, c.fp/s, c.fn/s
	}
	return c
}

func (c shingleCounts) precision() float64 {
	switch {
	case c.fp == 0 && c.fn == 0:
		return 1
	case c.tp == 0 && c.fp == 0:
		return 0
	}
	return c.tp / (c.tp + c.fp)
}

func (c shingleCounts) recall() float64 {
	switch {
	case c.fp == 0 && c.fn == 0:
		return 1
	case c.tp == 0 && c.fn == 0:
		return 0
	}
	return c.tp / (c.tp + c.fn)
}

// shingles counts the word 4-grams of text.
func shingles(text string) map[string]int {
	tokens := strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_')
	})
	out := make(map[string]int, len(tokens))
	if len(tokens) == 0 {
		return out
	}
	if len(tokens) < shingleSize {
		out[strings.Join(tokens, " ")]++
		return out
	}
	for i := 0; i+shingleSize <= len(tokens); i++ {
		out[strings.Join(tokens[i:i+shingleSize], " ")]++
	}
	return out
}

// summarise averages per-page precision and recall the way the benchmark
// does: precision over pages with a non-empty prediction, recall over pages
// with a non-empty ground truth, then the F1 of the two means.
func summarise(counts []shingleCounts) (p, r, f1 float64) {
	var sumP, sumR float64
	var nP, nR int
	for _, c := range counts {
		if c.tp+c.fp > 0 {
			sumP += c.precision()
			nP++
		}
		if c.tp+c.fn > 0 {
			sumR += c.recall()
			nR++
		}
	}
	if nP > 0 {
		p = sumP / float64(nP)
	}
	if nR > 0 {
		r = sumR / float64(nR)
	}
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	return p, r, f1
}

// groundTruth is one entry of a benchmark's ground-truth.json.
type groundTruth struct {
	ArticleBody string `json:"articleBody"`
	URL         string `json:"url"`
}

// evalDir runs Extract over every page of a benchmark directory laid out as
// html/<id>.html.gz (or html/<id>.html) plus ground-truth.json mapping each id
// to {"articleBody", "url"}, with the given number of parallel workers. It
// returns the scores and the predicted article body of every page by id.
// A page that cannot be read or extracted counts as an empty prediction.
func evalDir(dir string, workers int) (evalReport, map[string]string, error) {
	truth, err := readGroundTruth(dir)
	if err != nil {
		return evalReport{}, nil, err
	}
	htmlDir := filepath.Join(dir, "html")
	if st, err := os.Stat(htmlDir); err != nil || !st.IsDir() {
		return evalReport{}, nil, fmt.Errorf("eval %s: missing html/ directory of pages", dir)
	}
	ids := make([]string, 0, len(truth))
	for id := range truth {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	workers = max(1, workers)

	type outcome struct {
		text   string
		counts shingleCounts
		err    error
	}
	results := make([]outcome, len(ids))
	start := time.Now()
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				id := ids[i]
				text, err := extractBenchmarkPage(htmlDir, id, truth[id].URL)
				results[i] = outcome{text: text, counts: countShingles(text, truth[id].ArticleBody), err: err}
			}
		})
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()

	report := evalReport{Pages: len(ids), Seconds: time.Since(start).Seconds()}
	preds := make(map[string]string, len(ids))
	counts := make([]shingleCounts, len(ids))
	for i, id := range ids {
		res := results[i]
		counts[i] = res.counts
		preds[id] = res.text
		ps := pageScore{ID: id, Precision: res.counts.precision(), Recall: res.counts.recall()}
		if ps.Precision+ps.Recall > 0 {
			ps.F1 = 2 * ps.Precision * ps.Recall / (ps.Precision + ps.Recall)
		}
		if res.err != nil {
			report.Failures++
			ps.Err = res.err.Error()
		}
		report.PerPage = append(report.PerPage, ps)
	}
	report.Precision, report.Recall, report.F1 = summarise(counts)
	report.Precision = round4(report.Precision)
	report.Recall = round4(report.Recall)
	report.F1 = round4(report.F1)
	return report, preds, nil
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

func readGroundTruth(dir string) (map[string]groundTruth, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("eval: benchmark directory: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("eval: %s is not a directory", dir)
	}
	path := filepath.Join(dir, "ground-truth.json")
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("eval %s: missing ground-truth.json", dir)
		}
		return nil, fmt.Errorf("eval: open ground truth: %w", err)
	}
	defer f.Close()
	var truth map[string]groundTruth
	dec := json.NewDecoder(io.LimitReader(f, maxGroundTruthBytes))
	if err := dec.Decode(&truth); err != nil {
		return nil, fmt.Errorf("eval: parse %s: %w", path, err)
	}
	if len(truth) == 0 {
		return nil, fmt.Errorf("eval: %s has no pages", path)
	}
	return truth, nil
}

// extractBenchmarkPage reads html/<id>.html.gz (or .html) and returns the
// extracted main text.
func extractBenchmarkPage(htmlDir, id, pageURL string) (string, error) {
	if strings.ContainsAny(id, `/\`) || id == ".." {
		return "", fmt.Errorf("page id %q: not a file name", id)
	}
	raw, err := readPageFile(filepath.Join(htmlDir, id+".html.gz"), true)
	if errors.Is(err, os.ErrNotExist) {
		raw, err = readPageFile(filepath.Join(htmlDir, id+".html"), false)
	}
	if err != nil {
		return "", fmt.Errorf("page %s: %w", id, err)
	}
	page, err := extract.Extract(raw, pageURL)
	if err != nil {
		return "", fmt.Errorf("page %s: %w", id, err)
	}
	return page.Text, nil
}

func readPageFile(path string, gz bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("gunzip %s: %w", filepath.Base(path), err)
		}
		defer zr.Close()
		r = zr
	}
	// Read one byte past the cap so an oversized page is noticed, not cut.
	raw, err := io.ReadAll(io.LimitReader(r, extract.MaxExtractInput+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return raw, nil
}
