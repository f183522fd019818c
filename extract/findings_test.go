package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestKeyFindingsRejectsBoilerplate(t *testing.T) {
	text := strings.Join([]string{
		"We use cookies to improve your experience on our site and to show you relevant advertising.",
		"Sign in to your account to continue reading this story and many more like it.",
		"Subscribe to our newsletter to get the latest headlines delivered to your inbox every morning.",
		"Share this article on Facebook, Twitter and LinkedIn with your friends and family today.",
		"Copyright 2024 Example Media Group, all rights reserved, including the right to reproduce.",
		"Skip to main content and navigation menu for the rest of the website pages here.",
		"The city council approved a budget of 4.2 million euros for the new harbour bridge on Monday.",
		"Engineers said the 1964 structure needs 38 new steel cables before the winter storms arrive.",
		"Click here to read more stories about the harbour and the people who work along it every day.",
	}, "\n\n")
	got := KeyFindings(text, 10)
	want := []string{
		"The city council approved a budget of 4.2 million euros for the new harbour bridge on Monday.",
		"Engineers said the 1964 structure needs 38 new steel cables before the winter storms arrive.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("KeyFindings:\ngot  %q\nwant %q", got, want)
	}
}

func TestKeyFindingsKeepsTopicalWords(t *testing.T) {
	// Sentences about cookies or subscriptions are content, not banners.
	text := "The bakery sold 4,000 cookies on Saturday, twice as many as in 2023.\n\n" +
		"Netflix said subscription revenue rose 12 percent to $5.2 billion in the third quarter."
	if got := KeyFindings(text, 5); len(got) != 2 {
		t.Errorf("KeyFindings = %q, want both sentences", got)
	}
}

func TestKeyFindingsRanksAndKeepsOrder(t *testing.T) {
	text := "It was a quiet and rather ordinary day for everyone who was there at the time. " +
		"Mayor Lena Ortiz said 21,000 vehicles cross the bridge every day, up 12 percent since 2019. " +
		"This is something that many of them had been thinking about for a very long while. " +
		"Officials in Rotterdam expect the repairs to cost 4.2 million euros by March 2025.\n\n" +
		"Short one. Too short to count as a finding at all, really.\n\n" +
		"Was it the right thing to do for the people who live on either side of the river here?"
	got := KeyFindings(text, 2)
	want := []string{
		"Mayor Lena Ortiz said 21,000 vehicles cross the bridge every day, up 12 percent since 2019.",
		"Officials in Rotterdam expect the repairs to cost 4.2 million euros by March 2025.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("KeyFindings:\ngot  %q\nwant %q", got, want)
	}
	if got := KeyFindings(text, 0); got != nil {
		t.Errorf("KeyFindings(max 0) = %q, want nil", got)
	}
	if got := KeyFindings("", 3); got != nil {
		t.Errorf("KeyFindings(empty) = %q, want nil", got)
	}
}

func TestKeyFindingsDeduplicatesAndBoundsLength(t *testing.T) {
	s := "The harbour bridge reopened to traffic on Monday after eleven weeks of repairs."
	long := strings.Repeat("Very long sentence with many words that keeps going ", 12) + "to the end."
	got := KeyFindings(s+" "+s+"\n\n"+long, 5)
	if len(got) != 1 || got[0] != s {
		t.Errorf("KeyFindings = %q, want just %q once", got, s)
	}
}

// TestFindingSentences pins how KeyFindings cuts a paragraph into
// sentences with the shared splitter.
func TestFindingSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Dr. Smith arrived at 9 a.m. on Monday. He left early.", []string{"Dr. Smith arrived at 9 a.m. on Monday.", "He left early."}},
		{"The U.S. economy grew. Prices rose!", []string{"The U.S. economy grew.", "Prices rose!"}},
		{`He said "it works." Then he left. J. R. R. Tolkien wrote it.`, []string{`He said "it works."`, "Then he left.", "J. R. R. Tolkien wrote it."}},
		{"Version 2.5 shipped. the next sentence is lower case.", []string{"Version 2.5 shipped. the next sentence is lower case."}},
		{"今日は晴れです。明日は雨でしょう！本当？", []string{"今日は晴れです。", "明日は雨でしょう！", "本当？"}},
		{"「そうです。」と彼は言った。", []string{"「そうです。」", "と彼は言った。"}},
		{"No final stop", []string{"No final stop"}},
		{"", nil},
	}
	for _, tt := range tests {
		got := sentences(tt.in)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("sentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestKeyFindingsCJK(t *testing.T) {
	text := "先日、不正に改造したiPhoneを販売したとして、商標法違反の疑いで20代の男性が逮捕されたというニュースを耳にしました。" +
		"短い文。" +
		"報道によると、今回販売されたのは、正規品の部品を使いながらも内部を改造したもので、外見からは区別がつかなかったそうです。"
	got := KeyFindings(text, 5)
	if len(got) != 2 {
		t.Fatalf("KeyFindings(CJK) = %q, want the two long sentences", got)
	}
	if !strings.HasPrefix(got[0], "先日") || !strings.HasPrefix(got[1], "報道") {
		t.Errorf("KeyFindings(CJK) order: %q", got)
	}
}

func TestExcerpt(t *testing.T) {
	text := "The harbour bridge reopened to traffic on Monday morning after eleven weeks of repairs."
	tests := []struct {
		max  int
		want string
	}{
		{1000, text},
		{30, "The harbour bridge reopened…"},
		{0, ""},
	}
	for _, tt := range tests {
		got := Excerpt(text, tt.max)
		if got != tt.want {
			t.Errorf("Excerpt(%d) = %q, want %q", tt.max, got, tt.want)
		}
		if tt.max > 0 && utf8.RuneCountInString(got) > tt.max {
			t.Errorf("Excerpt(%d) has %d runes", tt.max, utf8.RuneCountInString(got))
		}
	}
	if got := Excerpt("日本語の文章です。とても長い文章が続きます。", 8); utf8.RuneCountInString(got) > 8 || !utf8.ValidString(got) {
		t.Errorf("Excerpt(CJK, 8) = %q", got)
	}
}
