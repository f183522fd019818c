#!/usr/bin/env python3
"""Copies a run's reports into the repository, small:

    python3 bench/answers/keep.py OUT bench/answers/runs/NAME

For each OUT/<set>/NN.json it writes DEST/<set>/NN.json without the
sources' page texts (each source keeps its other fields and a text_chars
count) and DEST/<set>/NN.md with the report's Markdown; OUT/times.txt and
OUT/commit.txt are copied as they are. score.py reads DEST like OUT.
"""
import glob
import json
import os
import shutil
import sys


def main():
    out, dest = sys.argv[1], sys.argv[2]
    n = 0
    for path in sorted(glob.glob(os.path.join(out, "*", "[0-9][0-9].json"))):
        rel = os.path.relpath(path, out)
        try:
            with open(path, encoding="utf-8") as f:
                rep = json.load(f)
        except ValueError:
            rep = {"status": "bad-json", "report_markdown": ""}
        for s in rep.get("sources") or []:
            if "text" in s:
                s["text_chars"] = len(s.pop("text") or "")
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            json.dump(rep, f, ensure_ascii=False, indent=1)
            f.write("\n")
        with open(target[:-5] + ".md", "w", encoding="utf-8") as f:
            f.write(rep.get("report_markdown", ""))
        n += 1
    for name in ("times.txt", "commit.txt"):
        if os.path.exists(os.path.join(out, name)):
            shutil.copy(os.path.join(out, name), os.path.join(dest, name))
    print("kept %d reports in %s" % (n, dest))


if __name__ == "__main__":
    main()
