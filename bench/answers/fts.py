#!/usr/bin/env python3
"""Serves a doc tree on loopback behind Whoosh or SQLite FTS5, for bench/answers/run.sh.

    python3 bench/answers/fts.py -engine whoosh|fts5 -dir DIR [-addr-file F] [-template-file F] [-index-only] [-cache DIR]

It takes the flags of bench/docsqa's server, as bench/answers/groonga.py
does, and reads pages the same way (groonga.py's page filter and text
extraction: every *.html page as bench/docsqa picks them, script, style and
head dropped, the <title> kept). -engine chooses the search program:

whoosh  Whoosh (Debian python3-whoosh), the pure-Python search library: an
        index of path (ID), title and body (TEXT, StemmingAnalyzer, body
        stored for highlighting); a query is parsed by Whoosh's
        MultifieldParser over title (boost 10) and body, every word quoted,
        the words ANDed (the parser's default group), scored by BM25F, and
        the results page shows each hit's title and Whoosh's highlights of
        the body.
fts5    SQLite's FTS5 (Python's sqlite3 module): one virtual table
        pages(path UNINDEXED, title, body) with the porter/unicode61
        tokenizer; a query is FTS5 query syntax, every word a quoted string,
        the words ANDed (FTS5's implicit AND), ordered by bm25() with the
        title weighted 10, and the results page shows each hit's title and
        FTS5's snippet() of the body.

The index is built once into the cache directory (default
.data/docsqa/ENGINE-PARENT-BASE) and reused while its "ready" marker exists.
The server (groonga.py's docs_server, with its results page) serves DIR
under /docs/ and a results page at /search?q=…, ten results.
"""
import html
import os
import re
import shutil
import sqlite3
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import groonga  # noqa: E402  (page filter, text extraction and the HTTP server)

LIMIT = 10
TITLE_WEIGHT = 10.0
NAMES = {"whoosh": "Whoosh", "fts5": "SQLite FTS5"}


def log(msg):
    print("fts.py: " + msg, file=sys.stderr, flush=True)


def words(q):
    """q's words that hold a letter or digit (a word of punctuation alone
    tokenizes to nothing, which neither program takes as a phrase)."""
    return [w for w in q.split() if re.search(r"\w", w)]


def import_whoosh():
    try:
        import whoosh  # noqa: F401
    except ImportError:
        # Debian's python3-whoosh is pure Python under dist-packages, which
        # a python3 other than Debian's (pyenv, a venv) does not search.
        sys.path.append("/usr/lib/python3/dist-packages")
        try:
            import whoosh  # noqa: F401
        except ImportError:
            sys.exit("fts.py: needs Whoosh: install Debian package python3-whoosh")


# --- Whoosh ---------------------------------------------------------------

def whoosh_build(pages, root, cache):
    from whoosh import index
    from whoosh.analysis import StemmingAnalyzer
    from whoosh.fields import ID, TEXT, Schema
    schema = Schema(path=ID(stored=True, unique=True),
                    title=TEXT(stored=True, analyzer=StemmingAnalyzer()),
                    body=TEXT(stored=True, analyzer=StemmingAnalyzer()))
    d = os.path.join(cache, "index")
    os.makedirs(d)
    ix = index.create_in(d, schema)
    w = ix.writer(limitmb=256)
    for rel in pages:
        title, body = groonga.page_text(os.path.join(root, rel))
        w.add_document(path=rel, title=title or rel, body=body)
    w.commit()


class WhooshSearch:
    def __init__(self, cache):
        from whoosh import index
        from whoosh.qparser import MultifieldParser
        self.ix = index.open_dir(os.path.join(cache, "index"))
        self.parser = MultifieldParser(["title", "body"], self.ix.schema, fieldboosts={"title": TITLE_WEIGHT})
        from whoosh.highlight import ContextFragmenter, HtmlFormatter
        self.fragmenter = ContextFragmenter(maxchars=200, surround=60)
        self.formatter = HtmlFormatter(tagname="b", classname="", termclass="")

    def search(self, q):
        ws = words(q)
        if not ws:
            return []
        text = " ".join('"' + w.replace('"', "") + '"' for w in ws)
        query = self.parser.parse(text)
        out = []
        with self.ix.searcher() as s:
            results = s.search(query, limit=LIMIT)
            results.fragmenter = self.fragmenter
            results.formatter = self.formatter
            for hit in results:
                snip = re.sub(r'<b class="[^"]*">', "<b>", hit.highlights("body", top=3))
                out.append((hit["path"], hit["title"], [snip] if snip else []))
        return out


# --- SQLite FTS5 ----------------------------------------------------------

def fts5_build(pages, root, cache):
    db = sqlite3.connect(os.path.join(cache, "docs.sqlite"))
    db.execute("CREATE VIRTUAL TABLE pages USING fts5(path UNINDEXED, title, body, tokenize='porter unicode61')")
    for rel in pages:
        title, body = groonga.page_text(os.path.join(root, rel))
        db.execute("INSERT INTO pages(path, title, body) VALUES (?, ?, ?)", (rel, title or rel, body))
    db.commit()
    db.execute("INSERT INTO pages(pages) VALUES ('optimize')")
    db.commit()
    db.close()


class Fts5Search:
    OPEN, CLOSE = "\x01", "\x02"

    def __init__(self, cache):
        self.path = os.path.join(cache, "docs.sqlite")
        self.local = threading.local()

    def db(self):
        if getattr(self.local, "db", None) is None:
            self.local.db = sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(self.path), uri=True)
        return self.local.db

    def search(self, q):
        ws = words(q)
        if not ws:
            return []
        match = " ".join('"' + w.replace('"', '""') + '"' for w in ws)
        rows = self.db().execute(
            "SELECT path, title, snippet(pages, 2, ?, ?, ' … ', 32) FROM pages WHERE pages MATCH ? "
            "ORDER BY bm25(pages, 0.0, ?, 1.0) LIMIT ?",
            (self.OPEN, self.CLOSE, match, TITLE_WEIGHT, LIMIT)).fetchall()
        out = []
        for path, title, snip in rows:
            snip = html.escape(snip or "").replace(self.OPEN, "<b>").replace(self.CLOSE, "</b>")
            out.append((path, title or path, [snip] if snip else []))
        return out


ENGINES = {"whoosh": (whoosh_build, WhooshSearch), "fts5": (fts5_build, Fts5Search)}


def build(engine, root, cache):
    pages = groonga.html_files(root)
    if not pages:
        sys.exit("fts.py: no *.html pages under " + root)
    if os.path.exists(cache):
        shutil.rmtree(cache)
    os.makedirs(cache)
    start = time.time()
    ENGINES[engine][0](pages, root, cache)
    log("%s indexed %d pages of %s in %ds" % (NAMES[engine], len(pages), root, time.time() - start))
    with open(os.path.join(cache, "ready"), "w") as f:
        f.write(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) + "\n")


def main():
    a, root, cache = groonga.parse_flags(ENGINES)
    if a.engine == "whoosh":
        import_whoosh()
    if not os.path.exists(os.path.join(cache, "ready")):
        build(a.engine, root, cache)
    if a.index_only:
        return
    searcher = ENGINES[a.engine][1](cache)

    def results(q):
        hits = []
        if q.strip():
            try:
                hits = searcher.search(q)
            except Exception as e:  # a query the program rejects is a page of no results
                log("search %r: %s" % (q, e))
        return groonga.render(q, hits, NAMES[a.engine])

    groonga.docs_server(root, a, results, NAMES[a.engine], log).serve_forever()


if __name__ == "__main__":
    main()
