package library

import (
	"strings"

	"github.com/quarryhq/quarry/db"
	"github.com/quarryhq/quarry/text"
)

// chunkBytes is the size a chunk aims for: a passage long enough to hold
// an answer with its context, short enough to rank on what it says.
const chunkBytes = 1000

// chunks cuts pages into chunks numbered from 0 in reading order. A chunk
// never spans two pages or two sections (so it has one page and one
// heading); paragraphs are kept whole when they fit, and long ones are
// cut between sentences. The result depends only on the pages, so a
// resumed ingestion numbers every chunk as the first attempt did.
func chunks(pages []Page) []db.Chunk {
	var out []db.Chunk
	for _, p := range pages {
		for _, s := range p.Sections {
			var cur strings.Builder
			emit := func() {
				if t := strings.TrimSpace(cur.String()); t != "" {
					out = append(out, db.Chunk{Seq: len(out), Page: p.Num, Heading: s.Heading, Text: t})
				}
				cur.Reset()
			}
			for _, para := range s.Paras {
				for _, piece := range splitLong(para) {
					if cur.Len() > 0 && cur.Len()+len(piece) > chunkBytes {
						emit()
					}
					if cur.Len() > 0 {
						cur.WriteString("\n\n")
					}
					cur.WriteString(piece)
				}
			}
			emit()
			if len(s.Paras) == 0 && s.Heading != "" {
				out = append(out, db.Chunk{Seq: len(out), Page: p.Num, Heading: s.Heading, Text: s.Heading})
			}
		}
	}
	return out
}

// splitLong cuts a paragraph longer than a chunk between sentences (and a
// sentence longer than a chunk between words).
func splitLong(para string) []string {
	if len(para) <= chunkBytes {
		return []string{para}
	}
	var out []string
	var cur strings.Builder
	for _, sp := range text.Sentences(para) {
		sent := strings.TrimSpace(para[sp.Start:sp.End])
		for len(sent) > chunkBytes {
			cut := strings.LastIndexByte(sent[:chunkBytes], ' ')
			if cut <= 0 {
				cut = chunkBytes
			}
			out = append(out, strings.TrimSpace(text.ClipBytes(sent, cut)))
			sent = strings.TrimSpace(sent[len(text.ClipBytes(sent, cut)):])
		}
		if cur.Len() > 0 && cur.Len()+len(sent)+1 > chunkBytes {
			out = append(out, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(sent)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
