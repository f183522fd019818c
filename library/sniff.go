package library

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"unicode/utf8"
)

// Kinds of document the library reads.
const (
	KindPDF      = "pdf"
	KindHTML     = "html"
	KindMarkdown = "markdown"
	KindText     = "text"
)

// archiveMagic are the leading bytes of archive and compressed formats,
// refused whole: the library never unpacks an upload. DOCX and ODT are zip
// archives and are refused with them (see docs/DECISIONS.md).
var archiveMagic = []struct {
	magic []byte
	name  string
}{
	{[]byte("PK\x03\x04"), "a zip archive (also DOCX/ODT/EPUB, which the library does not read)"},
	{[]byte("PK\x05\x06"), "a zip archive"},
	{[]byte("\x1f\x8b"), "a gzip archive"},
	{[]byte("BZh"), "a bzip2 archive"},
	{[]byte("\xfd7zXZ\x00"), "an xz archive"},
	{[]byte("7z\xbc\xaf\x27\x1c"), "a 7-Zip archive"},
	{[]byte("Rar!\x1a\x07"), "a RAR archive"},
	{[]byte("\x28\xb5\x2f\xfd"), "a zstd archive"},
}

var (
	mdStructure = regexp.MustCompile(`(?m)^(#{1,6}\s+\S|\x60\x60\x60|~~~|[-*+]\s+\S.*\n[-*+]\s+\S|\d+\.\s+\S.*\n\d+\.\s+\S|\S.*\n(===+|---+)\s*$|>\s)`)
	mdInline    = regexp.MustCompile(`\[[^\]\n]+\]\([^)\s]+\)|\*\*[^*\n]+\*\*`)
	// htmlTags are block elements; text that opens several is an HTML
	// fragment even without <html> (http.DetectContentType wants the markup first).
	htmlTags = regexp.MustCompile(`(?i)<(p|h[1-6]|div|body|ul|ol|li|pre|table|section|article)[\s>]`)
)

// Sniff decides a document's kind from its content, never its name: PDF
// by its header, HTML by the markup it opens with, Markdown by its
// structure (headings, fences, lists, links), otherwise plain text if it is
// text at all. Archives and other binaries are refused with what they are.
func Sniff(content []byte) (string, error) {
	head := content[:min(len(content), 1024)]
	if bytes.Contains(head, []byte("%PDF-")) {
		return KindPDF, nil
	}
	for _, a := range archiveMagic {
		if bytes.HasPrefix(content, a.magic) {
			return "", fmt.Errorf("the file is %s; archives are not accepted", a.name)
		}
	}
	if len(content) > 262 && bytes.Equal(content[257:262], []byte("ustar")) {
		return "", fmt.Errorf("the file is a tar archive; archives are not accepted")
	}
	ct := http.DetectContentType(content)
	switch {
	case bytes.HasPrefix([]byte(ct), []byte("text/html")), bytes.HasPrefix([]byte(ct), []byte("text/xml")) && bytes.Contains(bytes.ToLower(head), []byte("<html")):
		return KindHTML, nil
	case !bytes.HasPrefix([]byte(ct), []byte("text/plain")):
		return "", fmt.Errorf("the file is %s, not a PDF, HTML, Markdown or text document", ct)
	}
	sample := content[:min(len(content), 64<<10)]
	if !utf8.Valid(trimPartialRune(sample)) {
		return "", fmt.Errorf("the file is not UTF-8 text")
	}
	if len(htmlTags.FindAllIndex(sample, 5)) >= 5 {
		return KindHTML, nil
	}
	if len(mdStructure.FindAllIndex(sample, 3)) >= 1 && (len(mdStructure.FindAllIndex(sample, 3)) >= 2 || mdInline.Match(sample)) {
		return KindMarkdown, nil
	}
	return KindText, nil
}

// trimPartialRune drops a rune cut in half at the end of a sample.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if utf8.Valid(b) {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}
