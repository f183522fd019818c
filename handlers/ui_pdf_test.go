package handlers_test

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// pdfContains reports whether the PDF's text holds s (spaces and case
// ignored). Chromium writes text as glyph ids in compressed content
// streams with a ToUnicode map per font, so the streams are inflated and
// every content stream is decoded with every map; a phrase set in one
// font reads correctly through that font's map.
func pdfContains(pdf []byte, s string) bool {
	want := squash(s)
	for _, text := range pdfTexts(pdf) {
		if strings.Contains(squash(text), want) {
			return true
		}
	}
	return false
}

func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if !unicode.IsSpace(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	streamRe   = regexp.MustCompile(`(?s)stream\r?\n(.*?)\r?\nendstream`)
	bfcharRe   = regexp.MustCompile(`(?s)beginbfchar(.*?)endbfchar`)
	bfrangeRe  = regexp.MustCompile(`(?s)beginbfrange(.*?)endbfrange`)
	hexPairRe  = regexp.MustCompile(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>`)
	hexTripRe  = regexp.MustCompile(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>`)
	showTextRe = regexp.MustCompile(`<([0-9A-Fa-f]+)>`)
)

// pdfTexts decodes the PDF's content streams once per ToUnicode map.
func pdfTexts(pdf []byte) []string {
	var maps []map[string]string
	var contents [][]byte
	for _, m := range streamRe.FindAllSubmatch(pdf, -1) {
		r, err := zlib.NewReader(bytes.NewReader(m[1]))
		if err != nil {
			continue
		}
		data, err := io.ReadAll(r)
		if err != nil && len(data) == 0 {
			continue
		}
		switch {
		case bytes.Contains(data, []byte("beginbfchar")) || bytes.Contains(data, []byte("beginbfrange")):
			maps = append(maps, toUnicodeMap(data))
		case bytes.Contains(data, []byte("Tj")) || bytes.Contains(data, []byte("TJ")):
			contents = append(contents, data)
		}
	}
	var out []string
	for _, cmap := range maps {
		var b strings.Builder
		for _, c := range contents {
			for _, m := range showTextRe.FindAllSubmatch(c, -1) {
				code := strings.ToUpper(string(m[1]))
				for i := 0; i+4 <= len(code); i += 4 {
					b.WriteString(cmap[code[i:i+4]])
				}
			}
			b.WriteByte('\n')
		}
		out = append(out, b.String())
	}
	return out
}

// toUnicodeMap reads a CMap's bfchar and bfrange entries (2-byte codes).
func toUnicodeMap(data []byte) map[string]string {
	out := map[string]string{}
	for _, block := range bfcharRe.FindAllSubmatch(data, -1) {
		for _, m := range hexPairRe.FindAllSubmatch(block[1], -1) {
			out[pad4(string(m[1]))] = utf16Hex(string(m[2]))
		}
	}
	for _, block := range bfrangeRe.FindAllSubmatch(data, -1) {
		for _, m := range hexTripRe.FindAllSubmatch(block[1], -1) {
			lo, err1 := strconv.ParseUint(string(m[1]), 16, 32)
			hi, err2 := strconv.ParseUint(string(m[2]), 16, 32)
			dst, err3 := strconv.ParseUint(string(m[3]), 16, 32)
			if err1 != nil || err2 != nil || err3 != nil || hi < lo || hi-lo > 4096 {
				continue
			}
			for c := lo; c <= hi; c++ {
				out[strings.ToUpper(strconv.FormatUint(c|0x10000, 16)[1:])] = string(rune(dst + c - lo))
			}
		}
	}
	return out
}

func pad4(h string) string {
	h = strings.ToUpper(h)
	for len(h) < 4 {
		h = "0" + h
	}
	return h
}

// utf16Hex decodes a CMap destination, UTF-16BE in hex.
func utf16Hex(h string) string {
	b, err := hex.DecodeString(h)
	if err != nil || len(b)%2 != 0 {
		return ""
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	return string(utf16.Decode(u))
}
