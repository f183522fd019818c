#!/usr/bin/env python3
"""Scores the answers benchmark (bench/answers/run.sh) for issue 22.

    python3 bench/answers/score.py OUT [--labels FILE] [--unlabelled FILE] [--markdown]

OUT holds OUT/<set>/NN.json, the `quarry research --json` output for the
NN-th question of bench/answers/<set>.tsv. For every question it reports:

- facts in Summary: every fact of the question appears in a cited sentence
  of the report's first section (`## Summary`). A fact lists alternatives
  separated by " | "; an alternative matches case-insensitively on word
  boundaries, or case-sensitively when it starts with "=". A question of
  kind "none" (no source states the answer) passes when the Summary says
  that nothing read states it.
- facts anywhere: the same, over every cited sentence of the report.
- precision: the report's sentences (the Sources list left out), each
  looked up by question id and normalised text in the labels file
  (bench/answers/labels.tsv: id<TAB>sentence<TAB>1|0); precision is the
  share of labelled sentences labelled 1. Sentences without a label are
  counted apart and, with --unlabelled FILE, written there ready to label.
- words: the words of the report, headings included, citation markers and
  the Sources list left out; medians per source and per question kind.

A question line in a .tsv that starts with "#excluded: reason" keeps its
number but is neither run nor scored.
"""
import argparse
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SETS = ["apache", "postfix", "zsh", "readability", "trafilatura", "postlight", "bind", "exim", "knot", "varnish", "rsyslog", "nut", "mutt", "aptitude", "ntpsec", "debref", "haproxy", "proftpd", "cups", "kea", "vim", "policy", "borg", "wireshark", "bash", "bup", "bird", "cmake", "krb5", "valgrind", "privoxy", "ffmpeg", "gnuplot", "octave", "libvirt", "doxygen", "rustbook", "nodejs", "imagemagick", "lua", "putty", "commonslang", "mkdocs", "glib", "erlang", "qt", "boost", "racket", "ruststd", "ghcbase", "gap", "cppreference", "gtk4", "swipl", "yard", "tioga", "nim", "fpc", "crystal", "weechat", "exiftool"]
KINDS = ["one-fact", "several-facts", "why", "how", "compare", "list", "none"]
CITE = re.compile(r"((?:\s*\[S\d+\])+)")
# What a Summary says when nothing read answers (kind "none").
ABSENT = re.compile(
    r"\b(none of the sources|no source|not (?:state|stated|say|said|mention|mentioned|found|find)|"
    r"does not (?:state|say|mention)|do not (?:state|say|mention)|could not (?:find|be found|be determined)|"
    r"cannot be determined|"
    r"did not find|no (?:answer|information)|nothing (?:read|found))", re.I)


def questions(path):
    """The questions of one set: (number, kind, question, facts, excluded)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            excluded = line.startswith("#excluded")
            if line.startswith("#") and not excluded:
                continue
            fields = line.split("\t")
            if excluded:
                fields = fields[1:]
            kind, q, facts = fields[0], fields[1], fields[2:]
            facts = [[a.strip() for a in fact.split(" | ")] for fact in facts if fact.strip()]
            out.append((len(out) + 1, kind, q, facts, excluded))
    return out


def normalise(text):
    """A sentence as labels.tsv keys it: citations and Markdown marks
    removed, whitespace collapsed."""
    text = CITE.sub(" ", text)
    text = re.sub(r"\\(.)", r"\1", text).replace("`", "").replace("**", "")
    return re.sub(r"\s+", " ", text).strip()


def split_uncited(text):
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(])", text) if s.strip()]


def sections(markdown):
    """The report's sections before the Sources list, as (heading, lines)."""
    body = re.split(r"(?m)^## Sources\s*$", markdown)[0]
    out = []
    for line in body.splitlines():
        if line.startswith("#"):
            out.append((line.lstrip("#").strip(), []))
            continue
        if not out:
            out.append(("", []))
        out[-1][1].append(line)
    return out


ENTRY = re.compile(r"\s*`([^`]+)`: ")


def sentences(lines):
    """The sentences of some report lines: (normalised text, cited, as
    labelled). A sentence that follows one of the same entry in a
    paragraph ("`name`: First. [S1] Second. [S1]") is labelled as the
    entry's, with its name in front, as the report wrote it before it gave
    an entry's name once per paragraph."""
    out = []
    named = None  # the entry the last paragraph named, for the list after it
    for line in lines:
        item = re.match(r"^\s*(?:[-*+]|\d+[.)])\s+", line) is not None
        line = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line).strip()
        if not line or line.startswith("|---"):
            continue
        parts = CITE.split(line)
        entry = named if item else None
        for i in range(0, len(parts), 2):
            seg = parts[i]
            cited = i + 1 < len(parts)
            if cited:
                if normalise(seg):
                    m = ENTRY.match(seg)
                    if m:
                        entry = m.group(1)
                        if not item and i == 0:
                            named = entry
                    elif seg.strip().startswith("`"):
                        entry = None
                    keyed = normalise(entry + ": " + seg) if entry and not m else normalise(seg)
                    out.append((normalise(seg), True, keyed))
            else:
                for s in split_uncited(seg):
                    if normalise(s):
                        out.append((normalise(s), False, normalise(s)))
    return out


def words(secs):
    n = 0
    for heading, lines in secs:
        for text in [heading] + lines:
            n += sum(1 for w in normalise(text).split() if re.search(r"\w", w))
    return n


def matches(alt, text):
    if alt.startswith("="):
        return re.search(r"(?<!\w)" + re.escape(alt[1:]) + r"(?!\w)", text) is not None
    return re.search(r"(?<!\w)" + re.escape(alt) + r"(?!\w)", text, re.I) is not None


def facts_found(facts, sents, kind):
    """Whether every fact is in a cited sentence (kind none: whether an
    absence is stated), and the per-fact marks."""
    if kind == "none":
        ok = any(ABSENT.search(s) for s, _, _ in sents)
        return ok, ["+absent" if ok else "-absent"]
    marks = []
    for fact in facts:
        hit = any(matches(a, s) for a in fact for s, cited, _ in sents if cited)
        marks.append(("+" if hit else "-") + fact[0].lstrip("="))
    return all(m.startswith("+") for m in marks), marks


def load_labels(path):
    labels = {}
    if not os.path.exists(path):
        return labels
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            try:
                qid, text, label = line.split("\t")
            except ValueError:
                sys.exit("%s:%d: want id<TAB>sentence<TAB>1|0" % (path, n))
            if label not in ("0", "1"):
                sys.exit("%s:%d: label must be 1 or 0, not %r" % (path, n, label))
            # The text is stored normalised already; normalising it again
            # would drop a backslash the sentence itself holds (zsh's quote-line writes '\'').
            labels[(qid, text)] = label == "1"
            labels.setdefault((qid, normalise(text)), label == "1")
    return labels


def score_report(markdown, kind, facts, qid, labels):
    """One report's measures."""
    secs = sections(markdown)
    summary = secs[0][1] if secs else []
    all_sents = [s for _, lines in secs for s in sentences(lines)]
    in_summary, summary_marks = facts_found(facts, sentences(summary), kind)
    anywhere, _ = facts_found(facts, all_sents, kind)
    rel = lab = 0
    unlabelled = []
    for text, _, keyed in all_sents:
        label = labels.get((qid, text))
        if label is None:
            label = labels.get((qid, keyed))
        if label is None:
            unlabelled.append(text)
        else:
            lab += 1
            rel += label
    return {
        "summary": in_summary, "anywhere": anywhere, "marks": summary_marks,
        "relevant": rel, "labelled": lab, "unlabelled": unlabelled, "words": words(secs),
    }


def pct(a, b):
    return "%5.1f%%" % (100.0 * a / b) if b else "    –"


def score_run(out, labels, sets):
    """Every question's measures, per set: {set: [row, …]}."""
    rows = {}
    for name in sets:
        if not os.path.isdir(os.path.join(out, name)):
            continue  # a run of other sets (SET=…), or one made before this set existed
        rows[name] = []
        for n, kind, q, facts, excluded in questions(os.path.join(HERE, name + ".tsv")):
            if excluded:
                continue
            qid = "%s-%02d" % (name, n)
            path = os.path.join(out, name, "%02d.json" % n)
            status, markdown = "missing", ""
            if os.path.exists(path):
                try:
                    with open(path, encoding="utf-8") as f:
                        rep = json.load(f)
                    status, markdown = rep.get("status", "?"), rep.get("report_markdown", "")
                except (ValueError, OSError):
                    status = "bad-json"
            r = score_report(markdown, kind, facts, qid, labels)
            r.update(qid=qid, kind=kind, status=status, question=q)
            rows[name].append(r)
    return rows


def agg(rs):
    """A set's totals: questions, Summary passes, anywhere passes, relevant,
    labelled, unlabelled, median words, median words of one-fact questions."""
    n = len(rs)
    s = sum(r["summary"] for r in rs)
    a = sum(r["anywhere"] for r in rs)
    rel = sum(r["relevant"] for r in rs)
    lab = sum(r["labelled"] for r in rs)
    unl = sum(len(r["unlabelled"]) for r in rs)
    w = statistics.median([r["words"] for r in rs]) if rs else 0
    w1 = [r["words"] for r in rs if r["kind"] == "one-fact"]
    return n, s, a, rel, lab, unl, w, (statistics.median(w1) if w1 else 0)


def table(rows):
    everything = [r for rs in rows.values() for r in rs]
    return [(name, agg(rs)) for name, rs in rows.items()] + [("overall", agg(everything))]


def by_kind(rows):
    out = {}
    for rs in rows.values():
        for r in rs:
            out.setdefault(r["kind"], []).append(r["words"])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--labels", default=os.path.join(HERE, "labels.tsv"))
    ap.add_argument("--unlabelled", help="write unlabelled sentences here (id<TAB>sentence<TAB>)")
    ap.add_argument("--markdown", action="store_true", help="print the per-source table as Markdown")
    ap.add_argument("--baseline", help="another run's OUT: print a Markdown table of it beside this one")
    ap.add_argument("--sets", default=",".join(SETS))
    args = ap.parse_args()
    labels = load_labels(args.labels)
    sets = args.sets.split(",")
    rows = score_run(args.out, labels, sets)
    kinds = by_kind(rows)

    if args.baseline:
        base = table(score_run(args.baseline, labels, sets))
        print("| source | facts in Summary (baseline → this) | facts anywhere | precision | unlabelled | median words, one-fact |")
        print("|---|---|---|---|---|---|")
        for (name, b), (_, c) in zip(base, table(rows)):
            print("| %s | %d/%d → %d/%d | %d/%d → %d/%d | %s → %s | %d → %d | %g → %g |" % (
                name, b[1], b[0], c[1], c[0], b[2], b[0], c[2], c[0],
                pct(b[3], b[4]).strip(), pct(c[3], c[4]).strip(), b[5], c[5], b[7], c[7]))
        return
    if args.markdown:
        print("| source | questions | facts in Summary | facts anywhere | precision | unlabelled | median words | median words, one-fact |")
        print("|---|---|---|---|---|---|---|---|")
        for name, (n, s, a, rel, lab, unl, w, w1) in table(rows):
            print("| %s | %d | %d/%d = %s | %d/%d = %s | %d/%d = %s | %d | %g | %g |" % (
                name, n, s, n, pct(s, n).strip(), a, n, pct(a, n).strip(), rel, lab, pct(rel, lab).strip(), unl, w, w1))
        print()
        print("| kind | questions | median words |")
        print("|---|---|---|")
        for k in KINDS:
            if k in kinds:
                print("| %s | %d | %g |" % (k, len(kinds[k]), statistics.median(kinds[k])))
    else:
        for rs in rows.values():
            for r in rs:
                print("%-14s %-13s %-9s S%s A%s %3d words %2d/%-2d rel %2d unl  %s  %s" % (
                    r["qid"], r["kind"], r["status"], "+" if r["summary"] else "-", "+" if r["anywhere"] else "-",
                    r["words"], r["relevant"], r["labelled"], len(r["unlabelled"]), " ".join(r["marks"]), r["question"]))
        print()
        print("%-12s %4s  %-18s %-18s %-22s %5s %7s %9s" % ("source", "qs", "facts in Summary", "facts anywhere", "precision", "unlab", "words", "words 1f"))
        for name, (n, s, a, rel, lab, unl, w, w1) in table(rows):
            print("%-12s %4d  %3d/%-3d %s     %3d/%-3d %s     %4d/%-4d %s     %5d %7g %9g" % (
                name, n, s, n, pct(s, n), a, n, pct(a, n), rel, lab, pct(rel, lab), unl, w, w1))
        print()
        print("median words by kind: " + ", ".join(
            "%s %g (%d)" % (k, statistics.median(kinds[k]), len(kinds[k])) for k in KINDS if k in kinds))
    if args.unlabelled:
        unl = ["%s\t%s\t" % (r["qid"], t) for rs in rows.values() for r in rs for t in r["unlabelled"]]
        with open(args.unlabelled, "w", encoding="utf-8") as f:
            f.write("\n".join(unl) + ("\n" if unl else ""))


if __name__ == "__main__":
    main()
