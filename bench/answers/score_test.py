#!/usr/bin/env python3
"""Self-test of bench/answers/score.py: python3 bench/answers/score_test.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score  # noqa: E402

REPORT = """## Summary

The default is `KeepAliveTimeout 5`. [S1] Setting it high \\<may\\> hurt busy servers. [S1][S2] No source read says more.

## Details

- KeepAliveTimeout default: KeepAliveTimeout 5 [S1]
- The Timeout directive is unrelated. [S3]

## Sources

- [S1] [core](<http://127.0.0.1/docs/mod/core.html>) — 127.0.0.1
"""


class ScoreTest(unittest.TestCase):
    def test_sentences_split_on_citations_and_drop_sources(self):
        secs = score.sections(REPORT)
        self.assertEqual([h for h, _ in secs], ["Summary", "Details"])
        sents = score.sentences(secs[0][1])
        self.assertEqual(sents, [
            ("The default is KeepAliveTimeout 5.", True, "The default is KeepAliveTimeout 5."),
            ("Setting it high <may> hurt busy servers.", True, "Setting it high <may> hurt busy servers."),
            ("No source read says more.", False, "No source read says more."),
        ])

    def test_entry_named_once_labels_the_paragraph(self):
        sents = score.sentences(["`max-size`: The hard limit. [S1] Writes are refused. [S1] `other` default: 5 [S1] Done. [S2]"])
        self.assertEqual([k for _, _, k in sents], [
            "max-size: The hard limit.", "max-size: Writes are refused.", "other default: 5", "Done."])
        labels = {("knot-01", "max-size: Writes are refused."): True}
        r = score.score_report("## Summary\n\n`max-size`: The hard limit. [S1] Writes are refused. [S1]\n",
                               "one-fact", [["refused"]], "knot-01", labels)
        self.assertEqual((r["relevant"], r["labelled"]), (1, 1))
        sents = score.sentences(["`LogLevel`: The levels are: [S1]", "", "- Emerg: Emergencies. [S1]", "- `other`: Else. [S2]"])
        self.assertEqual([k for _, _, k in sents], ["LogLevel: The levels are:", "LogLevel: Emerg: Emergencies.", "other: Else."])

    def test_facts_need_a_cited_sentence_of_the_summary(self):
        labels = {}
        r = score.score_report(REPORT, "one-fact", [["KeepAliveTimeout 5", "5 seconds"]], "apache-01", labels)
        self.assertTrue(r["summary"])
        r = score.score_report(REPORT, "one-fact", [["Timeout directive"]], "apache-01", labels)
        self.assertFalse(r["summary"])  # only in Details
        self.assertTrue(r["anywhere"])
        r = score.score_report(REPORT, "one-fact", [["says more"]], "apache-01", labels)
        self.assertFalse(r["anywhere"])  # uncited sentence

    def test_none_questions_pass_on_a_stated_absence(self):
        r = score.score_report(REPORT, "none", [], "x-01", {})
        self.assertTrue(r["summary"])
        r = score.score_report("## Summary\n\nIt is 5. [S1]\n", "none", [], "x-01", {})
        self.assertFalse(r["summary"])
        r = score.score_report("## Summary\n\nThis could not be determined from the available sources.\n", "none", [], "x-01", {})
        self.assertTrue(r["summary"])

    def test_precision_counts_labelled_sentences_and_lists_the_rest(self):
        labels = {
            ("apache-01", "The default is KeepAliveTimeout 5."): True,
            ("apache-01", "The Timeout directive is unrelated."): False,
        }
        r = score.score_report(REPORT, "one-fact", [["5 seconds"]], "apache-01", labels)
        self.assertEqual((r["relevant"], r["labelled"]), (1, 2))
        self.assertEqual(len(r["unlabelled"]), 3)
        self.assertIn("KeepAliveTimeout default: KeepAliveTimeout 5", r["unlabelled"])

    def test_words_leave_out_citations_and_sources(self):
        r = score.score_report(REPORT, "one-fact", [], "apache-01", {})
        # 2 headings (1 word each) + 5 + 7 + 5 + 4 + 5 words of text
        self.assertEqual(r["words"], 28)

    def test_case_sensitive_alternatives(self):
        self.assertTrue(score.matches("=WHERE", "a WHERE clause"))
        self.assertFalse(score.matches("=WHERE", "where it is"))
        self.assertFalse(score.matches("100", "1000 requests"))


if __name__ == "__main__":
    unittest.main()
