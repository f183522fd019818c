package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/quarryhq/quarry/text"
)

// PDFLimits bound one pdftotext run.
type PDFLimits struct {
	Bin      string        // pdftotext binary; "" looks it up on PATH
	Timeout  time.Duration // wall time
	MemBytes int64         // address space
	MaxPages int           // pages read from the start; 0 means all
	MaxText  int64         // bytes of output kept; 0 means no limit
}

// PDFDoc is the text of a PDF, page by page, with its metadata.
type PDFDoc struct {
	Title     string
	Author    string
	Published string   // RFC 3339 when the PDF says
	Pages     []string // text of page 1, 2, …
	Truncated bool     // MaxText or MaxPages cut it short
}

// ErrNoPDFTool is returned for a PDF when pdftotext is not installed.
var ErrNoPDFTool = errors.New("pdftotext (poppler-utils) is not installed")

// ErrPDFEncrypted is returned for a PDF that cannot be read without a password.
var ErrPDFEncrypted = errors.New("the PDF is encrypted (password protected)")

var (
	pdfPre   = regexp.MustCompile(`(?s)<pre>(.*)</pre>`)
	pdfTitle = regexp.MustCompile(`(?s)<title>(.*?)</title>`)
	pdfMeta  = regexp.MustCompile(`<meta name="(Author|CreationDate)" content="([^"]*)"`)
)

// PDFText extracts a PDF's text page by page with poppler's pdftotext, run
// in a temporary directory with a time and address-space limit: a PDF that
// hangs or bombs the extractor is killed and reported, never waited on.
// This is the one place Quarry reads PDFs (fetched pages and library
// documents alike).
func PDFText(ctx context.Context, lim PDFLimits, pdf []byte) (PDFDoc, error) {
	var doc PDFDoc
	bin := lim.Bin
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("pdftotext"); err != nil {
			return doc, ErrNoPDFTool
		}
	}
	dir, err := os.MkdirTemp("", "quarry-pdf-")
	if err != nil {
		return doc, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "out.html")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		return doc, err
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	args := []string{"-q", "-enc", "UTF-8", "-htmlmeta"}
	if lim.MaxPages > 0 {
		args = append(args, "-l", strconv.Itoa(lim.MaxPages))
	}
	args = append(args, in, out)
	// ulimit -v bounds the address space, ulimit -f the output; exec keeps
	// pdftotext the process the context kills.
	script := fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, lim.MemBytes/1024)
	if lim.MaxText > 0 {
		// Blocks of 512 bytes; the HTML wrapping adds a little.
		script = fmt.Sprintf(`ulimit -f %d && %s`, lim.MaxText/512+64, script)
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, bin}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
	msg, err := cmd.CombinedOutput()
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return doc, fmt.Errorf("pdftotext took longer than %s", lim.Timeout)
		case exitCode(err) == 3 || (exitCode(err) == 1 && encrypted(pdf)):
			return doc, ErrPDFEncrypted
		case lim.MaxText > 0 && fileSize(out) >= lim.MaxText:
			doc.Truncated = true // killed at the file size limit: keep what it wrote
		case strings.Contains(err.Error(), "signal: killed") || strings.Contains(err.Error(), "signal: segmentation"):
			return doc, fmt.Errorf("pdftotext ran out of its memory limit (%d MB): %v", lim.MemBytes>>20, err)
		default:
			return doc, fmt.Errorf("pdftotext: %v %s", err, text.Clip(string(msg), 200))
		}
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		return doc, err
	}
	body := raw
	if m := pdfPre.FindSubmatch(raw); m != nil {
		body = m[1]
	} else if i := bytes.Index(raw, []byte("<pre>")); i >= 0 {
		body = raw[i+len("<pre>"):] // cut short by the size limit
	} else {
		return doc, errors.New("the PDF holds no text")
	}
	pages := strings.Split(html.UnescapeString(string(body)), "\f")
	// pdftotext ends every page with a form feed.
	if n := len(pages); n > 1 && strings.TrimSpace(pages[n-1]) == "" {
		pages = pages[:n-1]
	}
	doc.Pages = pages
	if lim.MaxText > 0 && int64(len(body)) > lim.MaxText {
		doc.Truncated = true
	}
	if t := pdfTitle.FindSubmatch(raw); t != nil {
		doc.Title = strings.TrimSpace(html.UnescapeString(string(t[1])))
	}
	for _, mm := range pdfMeta.FindAllSubmatch(raw, -1) {
		v := strings.TrimSpace(html.UnescapeString(string(mm[2])))
		switch string(mm[1]) {
		case "Author":
			doc.Author = v
		case "CreationDate":
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				doc.Published = t.UTC().Format(time.RFC3339)
			}
		}
	}
	return doc, nil
}

// UsefulPDFTitle reports whether a PDF's title field names the document
// (not a file name or the producing program).
func UsefulPDFTitle(title string) bool {
	return title != "" && !strings.EqualFold(filepath.Ext(title), ".pdf") && !strings.HasPrefix(strings.ToLower(title), "microsoft word")
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// encrypted reports whether the PDF's trailer names an encryption dictionary.
func encrypted(pdf []byte) bool {
	return bytes.Contains(pdf, []byte("/Encrypt"))
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
