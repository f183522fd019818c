package text

import "strings"

// cjkClosers are the full-width closing brackets and corner quotes of
// Chinese and Japanese text. After a sentence's final stop they belong to
// that sentence, as a closing quote does in English: 「そうです。」 is one
// sentence, not 「そうです。 and a stray 」 starting the next.
const cjkClosers = "」』）】〉》"

func isCJKCloser(r rune) bool { return strings.ContainsRune(cjkClosers, r) }
