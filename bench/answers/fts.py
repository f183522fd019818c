#!/usr/bin/env python3
"""Serves a doc tree on loopback behind Whoosh, SQLite FTS5, Sphinx or
PostgreSQL full-text search, for bench/answers/run.sh.

    python3 bench/answers/fts.py -engine whoosh|fts5|sphinxsearch|pgfts -dir DIR [-addr-file F] [-template-file F] [-index-only] [-cache DIR]

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
sphinxsearch
        Sphinx search (Debian sphinxsearch 2.2): the pages are written as
        an xmlpipe2 stream (path a string attribute, title and body full-text
        fields also stored as strings) that Sphinx's `indexer` reads into an
        index (stem_en morphology); serving starts `searchd` on a loopback
        port of its own and asks it over SphinxQL (the MySQL protocol,
        Debian python3-pymysql): MATCH of every word quoted (Sphinx's
        extended syntax, the words ANDed), the default proximity_bm25
        ranker with field_weights title 10, body 1, and the results page
        shows each hit's title and CALL SNIPPETS of the body.
pgfts   PostgreSQL full-text search (Debian python3-psycopg2) on the server
        of $DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres):
        a database quarry_<cache name> created when missing, one table
        pages(path, title, body, tsv) whose tsvector is the title weighted A
        and the body weighted D (to_tsvector('english'), GIN index; a body
        too long for one tsvector is indexed from its start); a query is
        plainto_tsquery('english', words) (English stop words dropped, the
        other words stemmed and ANDed), ordered by ts_rank (weights D 0.1 …
        A 1.0, so the title counts 10 times the body; normalization 1, the
        rank divided by 1 + the log of the page's length), and the results
        page shows each hit's title and ts_headline() of the body.

The index is built once into the cache directory (default
.data/docsqa/ENGINE-PARENT-BASE; pgfts keeps only its marker there, the
pages in PostgreSQL) and reused while its "ready" marker exists (and, for
pgfts, its table).
The server (groonga.py's docs_server, with its results page) serves DIR
under /docs/ and a results page at /search?q=…, ten results.
"""
import html
import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import groonga  # noqa: E402  (page filter, text extraction and the HTTP server)

LIMIT = 10
TITLE_WEIGHT = 10.0
NAMES = {"whoosh": "Whoosh", "fts5": "SQLite FTS5", "sphinxsearch": "Sphinx search", "pgfts": "PostgreSQL full-text search"}


def log(msg):
    print("fts.py: " + msg, file=sys.stderr, flush=True)


def words(q):
    """q's words that hold a letter or digit (a word of punctuation alone
    tokenizes to nothing, which neither program takes as a phrase)."""
    return [w for w in q.split() if re.search(r"\w", w)]


def import_debian(module, package):
    """Imports a module of a Debian package (python3-whoosh,
    python3-pymysql, python3-psycopg2), which lives under dist-packages, a
    directory a python3 other than Debian's (pyenv, a venv) does not search."""
    try:
        return __import__(module)
    except ImportError:
        if "/usr/lib/python3/dist-packages" not in sys.path:
            sys.path.append("/usr/lib/python3/dist-packages")
        try:
            return __import__(module)
        except ImportError:
            sys.exit("fts.py: needs %s: install Debian package %s" % (module, package))


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


# --- Sphinx ---------------------------------------------------------------

SPHINX_SPECIAL = re.compile(r'([\\()|\-!@~"&/^$=<\'*])')


def sphinx_conf(cache, run=None, port=0):
    """Sphinx's configuration: the xmlpipe2 source and index in cache, and
    (when serving) searchd on 127.0.0.1:port with its files in run."""
    c = ["source docs\n{\n\ttype = xmlpipe2\n\txmlpipe_command = cat %s\n\txmlpipe_fixup_utf8 = 1\n}\n"
         % shlex.quote(os.path.join(cache, "docs.xml")),
         "index docs\n{\n\tsource = docs\n\tpath = %s\n\tdocinfo = extern\n\tmorphology = stem_en\n"
         "\tmin_word_len = 1\n}\n" % os.path.join(cache, "index", "docs"),
         "indexer\n{\n\tmem_limit = 256M\n\tmax_xmlpipe2_field = 16M\n}\n"]
    if run:
        c.append("searchd\n{\n\tlisten = 127.0.0.1:%d:mysql41\n\tlog = %s\n\tpid_file = %s\n\tbinlog_path =\n"
                 "\tworkers = threads\n\tmax_packet_size = 128M\n}\n"
                 % (port, os.path.join(run, "searchd.log"), os.path.join(run, "searchd.pid")))
    return "".join(c)


def xml_text(s):
    """s as XML character data: the characters XML 1.0 forbids dropped."""
    return html.escape(re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", " ", s), quote=False)


def sphinx_build(pages, root, cache):
    if shutil.which("indexer") is None:
        sys.exit("fts.py: needs Sphinx's indexer: install Debian package sphinxsearch")
    with open(os.path.join(cache, "docs.xml"), "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<sphinx:docset>\n<sphinx:schema>\n'
                '<sphinx:field name="title" attr="string"/>\n<sphinx:field name="body" attr="string"/>\n'
                '<sphinx:attr name="path" type="string"/>\n</sphinx:schema>\n')
        for n, rel in enumerate(pages, 1):
            title, body = groonga.page_text(os.path.join(root, rel))
            f.write('<sphinx:document id="%d">\n<path>%s</path>\n<title>%s</title>\n<body>%s</body>\n</sphinx:document>\n'
                    % (n, xml_text(rel), xml_text(title or rel), xml_text(body)))
        f.write("</sphinx:docset>\n")
    os.makedirs(os.path.join(cache, "index"))
    conf = os.path.join(cache, "sphinx.conf")
    with open(conf, "w") as f:
        f.write(sphinx_conf(cache))
    out = subprocess.run(["indexer", "--config", conf, "--all", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if out.returncode != 0:
        sys.exit("fts.py: Sphinx's indexer exited %d: %s" % (out.returncode, out.stdout.decode("utf-8", "replace")))


class SphinxSearch:
    """Starts searchd over the index and asks it over SphinxQL."""

    OPEN, CLOSE = "\x01", "\x02"

    def __init__(self, cache):
        self.pymysql = import_debian("pymysql", "python3-pymysql")
        if shutil.which("searchd") is None:
            sys.exit("fts.py: needs Sphinx's searchd: install Debian package sphinxsearch")
        self.run = tempfile.mkdtemp(prefix="fts-sphinx-")
        self.port = groonga.free_port()
        conf = os.path.join(self.run, "sphinx.conf")
        with open(conf, "w") as f:
            f.write(sphinx_conf(cache, self.run, self.port))
        self.proc = subprocess.Popen(["searchd", "--config", conf, "--nodetach"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.local = threading.local()
        self.closing = False
        for _ in range(100):
            if self.proc.poll() is not None:
                break
            try:
                self.db()
                return
            except self.pymysql.err.MySQLError:
                time.sleep(0.1)
        try:
            with open(os.path.join(self.run, "searchd.log"), errors="replace") as f:
                tail = f.read()[-2000:]
        except OSError:
            tail = ""
        self.close()
        sys.exit("fts.py: searchd did not start: " + tail)

    def db(self):
        if getattr(self.local, "db", None) is None:
            self.local.db = self.pymysql.connect(host="127.0.0.1", port=self.port, user="", charset="utf8",
                                                 autocommit=None, connect_timeout=5)
        return self.local.db

    def close(self):
        self.closing = True
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.run, ignore_errors=True)

    def search(self, q):
        ws = words(q)
        if not ws:
            return []
        match = " ".join('"' + SPHINX_SPECIAL.sub(r"\\\1", w) + '"' for w in ws)
        try:
            return self.ask(match, ws)
        except self.pymysql.err.OperationalError:
            self.local.db = None  # a dropped connection: reconnect once
            return self.ask(match, ws)

    def ask(self, match, ws):
        with self.db().cursor() as c:
            c.execute("SELECT id, path, title, body FROM docs WHERE MATCH(%%s) LIMIT %d "
                      "OPTION ranker=proximity_bm25, field_weights=(title=%d, body=1)" % (LIMIT, TITLE_WEIGHT), (match,))
            rows = c.fetchall()
            if not rows:
                return []
            c.execute("CALL SNIPPETS((%s), 'docs', %%s, %%s AS before_match, %%s AS after_match, ' … ' AS chunk_separator)"
                      % ", ".join(["%s"] * len(rows)),
                      [r[3] for r in rows] + [" ".join(SPHINX_SPECIAL.sub(" ", w) for w in ws), self.OPEN, self.CLOSE])
            snips = [r[0] for r in c.fetchall()]
        out = []
        for (_, path, title, _), snip in zip(rows, snips + [""] * len(rows)):
            snip = html.escape(snip or "").replace(self.OPEN, "<b>").replace(self.CLOSE, "</b>")
            out.append((path, title or path, [snip] if snip else []))
        return out


# --- PostgreSQL full-text search -------------------------------------------

PG_URL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"


def pg_connect(cache=None):
    """A connection to $DATABASE_URL's server: to its own database, or to
    cache's (quarry_ and the cache directory's name)."""
    psycopg2 = import_debian("psycopg2", "python3-psycopg2")
    url = os.environ.get("DATABASE_URL") or PG_URL
    if cache is None:
        return psycopg2.connect(url)
    return psycopg2.connect(url, dbname=pg_database(cache))


def pg_database(cache):
    return "quarry_" + re.sub(r"[^a-z0-9]+", "_", os.path.basename(cache).lower())


def pgfts_build(pages, root, cache):
    name = pg_database(cache)
    admin = pg_connect()
    admin.autocommit = True
    with admin.cursor() as c:
        c.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
        if c.fetchone() is None:
            c.execute('CREATE DATABASE "%s"' % name)
    admin.close()
    db = pg_connect(cache)
    with db.cursor() as c:
        c.execute("DROP TABLE IF EXISTS pages")
        c.execute("CREATE TABLE pages (path text PRIMARY KEY, title text NOT NULL, body text NOT NULL, tsv tsvector NOT NULL)")
        for rel in pages:
            title, body = groonga.page_text(os.path.join(root, rel))
            title, body = (title or rel).replace("\x00", " "), body.replace("\x00", " ")
            indexed = len(body)
            while True:
                c.execute("SAVEPOINT page")
                try:
                    c.execute("INSERT INTO pages VALUES (%s, %s, %s, setweight(to_tsvector('english', %s), 'A') || "
                              "setweight(to_tsvector('english', left(%s, %s)), 'D'))", (rel, title, body, title, body, indexed))
                    c.execute("RELEASE SAVEPOINT page")
                    break
                except db.ProgrammingError as e:  # "string is too long for tsvector"
                    c.execute("ROLLBACK TO SAVEPOINT page")
                    if indexed < 1000:
                        raise
                    log("%s: %s; indexing its first %d characters" % (rel, str(e).strip(), indexed // 2))
                    indexed //= 2
        c.execute("CREATE INDEX pages_tsv ON pages USING gin (tsv)")
        c.execute("ANALYZE pages")
    db.commit()
    db.close()
    with open(os.path.join(cache, "database"), "w") as f:
        f.write(name + "\n")


def pgfts_present(cache):
    """Whether cache's database still holds its pages table."""
    try:
        db = pg_connect(cache)
    except Exception:
        return False
    try:
        with db.cursor() as c:
            c.execute("SELECT to_regclass('pages') IS NOT NULL")
            return c.fetchone()[0]
    finally:
        db.close()


class PgftsSearch:
    HEADLINE = 'StartSel="\x01", StopSel="\x02", MaxWords=35, MinWords=15, MaxFragments=3, FragmentDelimiter=" … "'
    OPEN, CLOSE = "\x01", "\x02"

    def __init__(self, cache):
        self.cache = cache
        self.local = threading.local()
        self.db()

    def db(self):
        if getattr(self.local, "db", None) is None or self.local.db.closed:
            self.local.db = pg_connect(self.cache)
            self.local.db.autocommit = True
        return self.local.db

    def search(self, q):
        ws = words(q)
        if not ws:
            return []
        with self.db().cursor() as c:
            c.execute("SELECT path, title, ts_headline('english', body, query, %s) FROM ("
                      "SELECT path, title, body, query, ts_rank('{0.1, 0.2, 0.4, 1.0}', tsv, query, 1) AS rank "
                      "FROM pages, plainto_tsquery('english', %s) AS query WHERE tsv @@ query "
                      "ORDER BY rank DESC, path LIMIT %s) AS hits ORDER BY rank DESC, path",
                      (self.HEADLINE, " ".join(ws), LIMIT))
            rows = c.fetchall()
        out = []
        for path, title, snip in rows:
            snip = html.escape(snip or "").replace(self.OPEN, "<b>").replace(self.CLOSE, "</b>")
            out.append((path, title or path, [snip] if snip else []))
        return out


# engine: (build, searcher, whether a built index is still there)
ENGINES = {
    "whoosh": (whoosh_build, WhooshSearch, None),
    "fts5": (fts5_build, Fts5Search, None),
    "sphinxsearch": (sphinx_build, SphinxSearch, None),
    "pgfts": (pgfts_build, PgftsSearch, pgfts_present),
}


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
        import_debian("whoosh", "python3-whoosh")
    present = ENGINES[a.engine][2]
    if not os.path.exists(os.path.join(cache, "ready")) or (present and not present(cache)):
        build(a.engine, root, cache)
    if a.index_only:
        return
    searcher = ENGINES[a.engine][1](cache)
    if hasattr(searcher, "close"):
        # searchd runs beside this server: stop it with the server, and
        # stop the server if searchd dies.
        def stop(*_):
            searcher.close()
            os._exit(0)

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)

        def watch():
            searcher.proc.wait()
            if searcher.closing:
                return
            log("searchd exited")
            searcher.close()
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()

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
