package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// errNoJSON is returned when a reply holds no JSON object at all.
var errNoJSON = errors.New("the reply contains no JSON object")

// fencedBlock matches a Markdown code fence, with or without a language.
var fencedBlock = regexp.MustCompile("(?s)```[a-zA-Z]*[ \t]*\r?\n(.*?)```")

// extractJSON finds the JSON object in a model's reply: the whole text, else
// the first fenced block holding an object, else the first balanced {...}
// that parses (braces inside strings do not count). A balanced object that
// does not parse is skipped whole, never searched for nested objects, and
// its syntax error is reported when nothing else parses.
func extractJSON(text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "{") && json.Valid([]byte(text)) {
		return []byte(text), nil
	}
	for _, m := range fencedBlock.FindAllStringSubmatch(text, -1) {
		body := strings.TrimSpace(m[1])
		if strings.HasPrefix(body, "{") && json.Valid([]byte(body)) {
			return []byte(body), nil
		}
	}
	var firstErr error
	for start := strings.IndexByte(text, '{'); start >= 0; {
		end := balancedEnd(text[start:])
		if end == 0 {
			if firstErr == nil {
				firstErr = errors.New("the reply's JSON object is cut off (its braces never close)")
			}
			break
		}
		obj := text[start : start+end]
		var v any
		err := json.Unmarshal([]byte(obj), &v)
		if err == nil {
			return []byte(obj), nil
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("the reply's JSON object is invalid: %v", err)
		}
		next := strings.IndexByte(text[start+end:], '{')
		if next < 0 {
			break
		}
		start += end + next
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, errNoJSON
}

// balancedEnd returns the length of the balanced {...} at the start of s,
// or 0 when it never closes.
func balancedEnd(s string) int {
	depth, inString, escaped := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}
