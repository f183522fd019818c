#!/usr/bin/env python3
"""Scores docs-QA reports: for each question of questions.tsv, whether each
key fact appears in the report inside a sentence that carries an [S#]
citation. Reads OUT/NN.json (the `quarry research --json` output) and
prints one line per question and the totals.

A fact lists alternatives separated by " | "; an alternative is matched
case-insensitively on word boundaries, or case-sensitively when it starts
with "=" ("=WHERE" is the SQL keyword, not the English word).

    python3 bench/docsqa/score.py bench/docsqa/questions.tsv OUT [QUESTION NUMBERS...]

A question passes when all its facts are found. The last line,
"SUMMARY passed questions found facts", is for run.sh; question numbers
limit the scoring to those questions.
"""
import json
import os
import re
import sys

CITE = re.compile(r"((?:\[S\d+\])+)")


def questions(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            q, *facts = line.split("\t")
            out.append((q, [[a.strip() for a in fact.split(" | ")] for fact in facts]))
    return out


def cited_segments(markdown):
    """The report's cited sentences: on each line (the Sources list cut
    off), the text before each run of citation markers, Markdown escapes
    and code marks removed."""
    body = re.split(r"(?m)^## Sources\s*$", markdown)[0]
    segs = []
    for line in body.splitlines():
        line = re.sub(r"\\(.)", r"\1", line).replace("`", "")
        parts = CITE.split(line)
        for i in range(1, len(parts), 2):
            segs.append(parts[i - 1])
    return segs


def matches(alt, seg):
    if alt.startswith("="):
        return re.search(r"(?<!\w)" + re.escape(alt[1:]) + r"(?!\w)", seg) is not None
    return re.search(r"(?<!\w)" + re.escape(alt) + r"(?!\w)", seg, re.I) is not None


def main():
    qs = questions(sys.argv[1])
    out = sys.argv[2]
    only = {int(a) for a in sys.argv[3:]}
    found = total = passed = asked = 0
    for n, (q, facts) in enumerate(qs, 1):
        if only and n not in only:
            continue
        asked += 1
        path = os.path.join(out, "%02d.json" % n)
        segs, status = [], "missing"
        if os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as f:
                    rep = json.load(f)
                segs, status = cited_segments(rep.get("report_markdown", "")), rep.get("status", "?")
            except (ValueError, OSError) as e:
                status = "bad json: %s" % e
        marks = []
        for fact in facts:
            ok = any(matches(a, s) for a in fact for s in segs)
            found += ok
            total += 1
            marks.append(("+" if ok else "-") + fact[0].lstrip("="))
        passed += all(m.startswith("+") for m in marks)
        print("%02d %-9s %s  %s" % (n, status, " ".join(marks), q))
    print("TOTAL %d/%d questions passed, %d/%d facts found, cited" % (passed, asked, found, total))
    print("SUMMARY %d %d %d %d" % (passed, asked, found, total))


if __name__ == "__main__":
    main()
