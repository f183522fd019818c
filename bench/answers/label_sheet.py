#!/usr/bin/env python3
"""Helps label report sentences for bench/answers/labels.tsv.

    python3 bench/answers/label_sheet.py sheet OUT > sheet.txt
        prints, per question, its kind, text and facts, then each sentence
        of its report that labels.tsv does not label yet, numbered, once.
    python3 bench/answers/label_sheet.py apply OUT JUDGEMENTS
        JUDGEMENTS has one line per judged question, "id n n …": the numbers
        of the sheet's sentences that bear on the question; every other
        listed sentence of that question is labelled 0 (questions without a
        line are left for a later pass). The new labels are appended
        to labels.tsv; labels already there are never changed.

The judging is done by a person reading each sentence against the question
(the rule is in bench/answers/README.md); this only keeps the bookkeeping.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score  # noqa: E402


def pending(out):
    labels = score.load_labels(os.path.join(score.HERE, "labels.tsv"))
    for name in score.SETS:
        for n, kind, q, facts, excluded in score.questions(os.path.join(score.HERE, name + ".tsv")):
            if excluded:
                continue
            qid = "%s-%02d" % (name, n)
            path = os.path.join(out, name, "%02d.json" % n)
            if not os.path.exists(path):
                continue
            with open(path, encoding="utf-8") as f:
                try:
                    md = json.load(f).get("report_markdown", "")
                except ValueError:
                    continue
            seen, todo = set(), []
            for _, lines in score.sections(md):
                for text, _, keyed in score.sentences(lines):
                    if (qid, text) not in labels and (qid, keyed) not in labels and text not in seen:
                        seen.add(text)
                        todo.append(text)
            yield qid, kind, q, facts, todo


def main():
    cmd, out = sys.argv[1], sys.argv[2]
    if cmd == "sheet":
        for qid, kind, q, facts, todo in pending(out):
            if not todo:
                continue
            print("=== %s [%s] %s" % (qid, kind, q))
            print("    facts: %s" % " ; ".join(" | ".join(f) for f in facts))
            for i, t in enumerate(todo, 1):
                print("  %2d. %s" % (i, t))
        return
    judged = {}
    with open(sys.argv[3], encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if parts:
                judged[parts[0]] = {int(x) for x in parts[1:]}
    rows = []
    for qid, kind, q, facts, todo in pending(out):
        if not todo:
            continue
        if qid not in judged:
            continue  # judged in a later pass
        bad = [i for i in judged[qid] if not 1 <= i <= len(todo)]
        if bad:
            sys.exit("%s: no sentence %s" % (qid, bad))
        for i, t in enumerate(todo, 1):
            rows.append("%s\t%s\t%d" % (qid, t, 1 if i in judged[qid] else 0))
    path = os.path.join(score.HERE, "labels.tsv")
    new = not os.path.exists(path)
    with open(path, "a", encoding="utf-8") as f:
        if new:
            f.write("# id<TAB>sentence (citations stripped, whitespace normalised)<TAB>1 relevant | 0 not; see README.md\n")
        f.write("\n".join(rows) + ("\n" if rows else ""))
    print("appended %d labels" % len(rows))


if __name__ == "__main__":
    main()
