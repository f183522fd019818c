package pipeline

import "testing"

// TestParseReply reads real replies to a paused plan: negations that
// approve, amendments kept, destructive and ambiguous replies flagged
// rather than guessed, typos, other languages, mixed intents.
func TestParseReply(t *testing.T) {
	cases := []struct {
		reply, intent, text string
	}{
		// Plain approvals, with typos and emphasis.
		{"yes", IntentApprove, ""},
		{"Yes.", IntentApprove, ""},
		{"y", IntentApprove, ""},
		{"ok", IntentApprove, ""},
		{"Okay, go ahead!", IntentApprove, ""},
		{"yesss", IntentApprove, ""},
		{"yse", IntentApprove, ""},
		{"oaky", IntentApprove, ""},
		{"procede", IntentApprove, ""},
		{"looks good to me", IntentApprove, ""},
		{"LGTM", IntentApprove, ""},
		{"sounds good, thanks", IntentApprove, ""},
		{"👍", IntentApprove, ""},
		{"yes please", IntentApprove, ""},
		// Negations that approve: the old parser cancelled every one.
		{"no, proceed", IntentApprove, ""},
		{"No — go ahead", IntentApprove, ""},
		{"nope, looks good", IntentApprove, ""},
		{"don't change anything, go ahead", IntentApprove, ""},
		{"no changes", IntentApprove, ""},
		{"nothing to change", IntentApprove, ""},
		{"don't cancel", IntentApprove, ""},
		{"no no, don't stop", IntentApprove, ""},
		{"skip the questions", IntentApprove, ""},
		// Other languages.
		{"oui", IntentApprove, ""},
		{"oui, vas-y", IntentApprove, ""},
		{"ja", IntentApprove, ""},
		{"Ja, bitte", IntentApprove, ""},
		{"sí", IntentApprove, ""},
		{"да", IntentApprove, ""},
		{"はい", IntentApprove, ""},
		{"はい、お願いします", IntentApprove, ""},
		{"好的", IntentApprove, ""},
		{"nein", IntentUnclear, ""},
		{"non", IntentUnclear, ""},
		{"нет", IntentUnclear, ""},
		{"いいえ", IntentUnclear, ""},
		{"nein, abbrechen", IntentCancel, ""},
		{"annuler", IntentCancel, ""},
		// Amendments keep their words.
		{"yes but focus on Europe", IntentAmend, "focus on Europe"},
		{"ok, only since 2020", IntentAmend, "only since 2020"},
		{"go ahead and focus on the EU market", IntentAmend, "focus on the EU market"},
		{"no, I mean the river bank", IntentAmend, "I mean the river bank"},
		{"Focus on open-source options", IntentAmend, "Focus on open-source options"},
		{"yes, but what about Asia?", IntentAmend, "what about Asia"},
		{"Could you also cover Asia?", IntentAmend, "Could you also cover Asia"},
		// Skipping the search.
		{"no search", IntentSkip, ""},
		{"don't search, just write it", IntentSkip, ""},
		{"skip the search", IntentSkip, ""},
		{"stop searching and write the report", IntentSkip, ""},
		{"ok, no search", IntentSkip, ""},
		// Destructive intents (confirmed before they happen).
		{"cancel", IntentCancel, ""},
		{"cancle", IntentCancel, ""},
		{"Stop it please", IntentCancel, ""},
		{"never mind", IntentCancel, ""},
		{"forget it", IntentCancel, ""},
		{"don't proceed", IntentCancel, ""},
		{"What is the capital of Australia?", IntentNewQuestion, "What is the capital of Australia?"},
		{"how do heat pumps work in cold climates", IntentNewQuestion, "how do heat pumps work in cold climates"},
		// Ambiguous: the options, not a guess.
		{"no", IntentUnclear, ""},
		{"skip", IntentUnclear, ""},
		{"cancel, actually go ahead", IntentUnclear, ""},
		{"yes cancel it", IntentUnclear, ""},
		{"wait", IntentUnclear, ""},
		{"not yet", IntentUnclear, ""},
		{"don't start yet", IntentUnclear, ""},
		{"hmm", IntentUnclear, ""},
		{"", IntentUnclear, ""},
		// Words that only look like commands inside a question.
		{"cancer research funding in Europe?", IntentNewQuestion, "cancer research funding in Europe?"},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d phrasings", len(cases))
	}
	for _, c := range cases {
		got := ParseReply(c.reply)
		if got.Intent != c.intent || c.text != "" && got.Text != c.text {
			t.Errorf("ParseReply(%q) = %q %q (%s), want %q %q", c.reply, got.Intent, got.Text, got.Why, c.intent, c.text)
		}
	}
}

// TestParseReplyMore: further phrasings seen in use.
func TestParseReplyMore(t *testing.T) {
	for reply, intent := range map[string]string{
		"sure thing": IntentApprove, "Looks fine": IntentApprove, "I approve": IntentApprove, "start the search": IntentApprove,
		"go ahead with the plan": IntentApprove, "not sure": IntentUnclear, "I don't know": IntentApprove, "whatever": IntentApprove,
		"both": IntentAmend, "no the federal one": IntentAmend, "ja, aber nur Europa": IntentAmend, "nope": IntentUnclear,
		"Is this about the 2019 case?": IntentNewQuestion, "stop it, this is wrong": IntentCancel, "no thanks, proceed": IntentApprove,
	} {
		if got := ParseReply(reply); got.Intent != intent {
			t.Errorf("ParseReply(%q) = %q %q (%s), want %q", reply, got.Intent, got.Text, got.Why, intent)
		}
	}
}
