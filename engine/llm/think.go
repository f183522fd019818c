package llm

import "strings"

// Reasoning models wrap their reasoning in these tags; it is never shown.
var (
	thinkOpen  = []string{"<think>", "<thinking>"}
	thinkClose = []string{"</think>", "</thinking>"}
)

// thinkStripper removes <think>…</think> blocks from a stream of text
// deltas, including tags and blocks split across deltas. It holds back the
// shortest tail that could still become a tag.
type thinkStripper struct {
	inside  bool
	pending string
}

// feed takes the next delta and returns the visible text it completes.
func (t *thinkStripper) feed(s string) string {
	buf := t.pending + s
	t.pending = ""
	var out strings.Builder
	for buf != "" {
		tags := thinkOpen
		if t.inside {
			tags = thinkClose
		}
		i, n := indexAny(buf, tags)
		if i >= 0 {
			if !t.inside {
				out.WriteString(buf[:i])
			}
			buf = buf[i+n:]
			t.inside = !t.inside
			continue
		}
		keep := partialTagSuffix(buf, tags)
		if !t.inside {
			out.WriteString(buf[:len(buf)-keep])
		}
		t.pending = buf[len(buf)-keep:]
		break
	}
	return out.String()
}

// flush returns what was held back at the end of the stream. An unclosed
// think block is reasoning cut short and is dropped.
func (t *thinkStripper) flush() string {
	p := t.pending
	t.pending = ""
	if t.inside {
		return ""
	}
	return p
}

// stripThink removes reasoning from a complete text. A closing tag with no
// opening one (templates that put <think> in the prompt) drops everything
// before it.
func stripThink(s string) string {
	if c, n := indexAny(s, thinkClose); c >= 0 {
		if o, _ := indexAny(s[:c], thinkOpen); o < 0 {
			s = s[c+n:]
		}
	}
	var t thinkStripper
	return t.feed(s) + t.flush()
}

// indexAny returns the earliest index of any tag in s (case-insensitive)
// and that tag's length, or -1.
func indexAny(s string, tags []string) (int, int) {
	lower := asciiLower(s)
	best, n := -1, 0
	for _, tag := range tags {
		if i := strings.Index(lower, tag); i >= 0 && (best < 0 || i < best) {
			best, n = i, len(tag)
		}
	}
	return best, n
}

// partialTagSuffix returns the length of the longest suffix of s that is a
// proper prefix of one of tags.
func partialTagSuffix(s string, tags []string) int {
	lower := asciiLower(s)
	longest := 0
	for _, tag := range tags {
		for k := min(len(tag)-1, len(lower)); k > longest; k-- {
			if strings.HasSuffix(lower, tag[:k]) {
				longest = k
				break
			}
		}
	}
	return longest
}

// asciiLower lower-cases ASCII letters only, so byte offsets in the result
// are offsets in s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
