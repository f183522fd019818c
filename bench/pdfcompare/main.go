// Command pdfcompare puts poppler's pdftotext beside a pure-Go PDF text
// library (github.com/ledongthuc/pdf) on the PDFs named on its command
// line: time, characters, words, the share of "words" over 20 letters
// (text run together: lost spaces) and how many of pdftotext's words the
// library also found. Its own module, so the library stays out of Quarry's.
//
//	cd bench/pdfcompare && go run . FILE.pdf...
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/ledongthuc/pdf"
)

var word = regexp.MustCompile(`\p{L}+`)

func stats(s string) (int, int, float64) {
	ws := word.FindAllString(s, -1)
	long := 0
	for _, w := range ws {
		if len([]rune(w)) > 20 {
			long++
		}
	}
	r := 0.0
	if len(ws) > 0 {
		r = 100 * float64(long) / float64(len(ws))
	}
	return len([]rune(s)), len(ws), r
}

func goLib(path string) (string, error) {
	f, r, err := pdf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b bytes.Buffer
	rd, err := r.GetPlainText()
	if err != nil {
		return "", err
	}
	b.ReadFrom(rd)
	return b.String(), nil
}

func main() {
	for _, p := range os.Args[1:] {
		t := time.Now()
		out, err := exec.Command("pdftotext", "-layout", p, "-").Output()
		d1 := time.Since(t)
		c1, w1, l1 := stats(string(out))
		t = time.Now()
		g, gerr := goLib(p)
		d2 := time.Since(t)
		c2, w2, l2 := stats(g)
		// words of pdftotext's output found in the Go library's
		set := map[string]bool{}
		for _, w := range word.FindAllString(strings.ToLower(g), -1) {
			set[w] = true
		}
		hit, all := 0, 0
		for _, w := range word.FindAllString(strings.ToLower(string(out)), -1) {
			all++
			if set[w] {
				hit++
			}
		}
		fmt.Printf("%s\n  pdftotext: %v err=%v chars=%d words=%d glued%%=%.2f\n  go-pdf:    %v err=%v chars=%d words=%d glued%%=%.2f  pdftotext words found=%.1f%%\n",
			p, d1.Round(time.Millisecond), err, c1, w1, l1, d2.Round(time.Millisecond), gerr, c2, w2, l2, 100*float64(hit)/float64(max(all, 1)))
	}
}
