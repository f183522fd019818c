#!/usr/bin/env python3
"""Serves a doc tree on loopback behind Whoosh, SQLite FTS5, Sphinx,
PostgreSQL full-text search, lunr.js or MariaDB full-text search, for
bench/answers/run.sh.

    python3 bench/answers/fts.py -engine whoosh|fts5|sphinxsearch|pgfts|lunr|mariadb -dir DIR [-addr-file F] [-template-file F] [-index-only] [-cache DIR]

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
lunr    lunr.js (Debian node-lunr 2.3, run by node): fts.py writes the
        pages as JSON and bench/answers/lunr.js builds a lunr index of
        title (boost 10) and body with lunr's default pipeline (trimmer,
        English stop words, Porter stemmer), the text split at every
        character that is not a letter, digit or underscore (lunr splits at
        white space and hyphens only by default), saved as JSON; serving starts
        `node lunr.js serve`, which loads it and answers queries over a
        pipe: every word a required term (lunr's +term, stop words dropped,
        so the words are ANDed), lunr's BM25 score, and the results page
        shows each hit's title and up to three passages of the body that
        hold the most words starting with a matched term (cut_snippet).
mariadb MariaDB full-text search (Debian mariadb-server 10.11): a private
        mariadbd with its data directory in the cache (mariadb-install-db),
        started on a loopback port of its own (no grant tables, networking
        on 127.0.0.1 only) and asked with python3-pymysql; one InnoDB table
        pages(path, title, body) with FULLTEXT indexes on title, on body
        and on both (innodb_ft_min_token_size 2, InnoDB's default stop
        words, no stemming); a query is MATCH … AGAINST in BOOLEAN MODE,
        every word required (+word, a word of several tokens a quoted
        phrase; stop words and one-letter words dropped, since InnoDB
        indexes neither), ranked by the title's relevance times 10 plus
        the body's, and the results page shows each hit's title and up to
        three passages of the body that hold the most query words.

The index is built once into the cache directory (default
.data/docsqa/ENGINE-PARENT-BASE; pgfts keeps only its marker there, the
pages in PostgreSQL; mariadb keeps its whole data directory there) and
reused while its "ready" marker exists (and, for pgfts, its table).
The server (groonga.py's docs_server, with its results page) serves DIR
under /docs/ and a results page at /search?q=…, ten results.
"""
import html
import json
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
NAMES = {"whoosh": "Whoosh", "fts5": "SQLite FTS5", "sphinxsearch": "Sphinx search", "pgfts": "PostgreSQL full-text search",
         "lunr": "lunr.js", "mariadb": "MariaDB full-text search"}


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


def await_server(server, tries, log, name):
    """Waits up to tries tenths of a second for server (a MySQL-protocol
    server it started as server.proc) to take a connection; if it exits or
    never does, closes it and exits with the end of its log."""
    for _ in range(tries):
        if server.proc.poll() is not None:
            break
        try:
            server.db()
            return
        except server.pymysql.err.MySQLError:
            time.sleep(0.1)
    try:
        with open(log, errors="replace") as f:
            tail = f.read()[-2000:]
    except OSError:
        tail = ""
    server.close()
    sys.exit("fts.py: %s did not start: %s" % (name, tail))


def stop_server(server, wait):
    """Stops the program server started as server.proc: asks it to end,
    kills it after wait seconds, and removes its run directory if it has
    one."""
    server.closing = True
    if server.proc.poll() is None:
        server.proc.terminate()
        try:
            server.proc.wait(wait)
        except subprocess.TimeoutExpired:
            server.proc.kill()
    if getattr(server, "run", None):
        shutil.rmtree(server.run, ignore_errors=True)


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

    daemon = "searchd"

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
        await_server(self, 100, os.path.join(self.run, "searchd.log"), "searchd")

    def db(self):
        if getattr(self.local, "db", None) is None:
            self.local.db = self.pymysql.connect(host="127.0.0.1", port=self.port, user="", charset="utf8",
                                                 autocommit=None, connect_timeout=5)
        return self.local.db

    def close(self):
        stop_server(self, 10)

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


# --- snippets for programs that make none ----------------------------------

def cut_snippet(body, terms, prefix, width=200, most=3):
    """Up to most passages of body, width characters each, that hold the
    most distinct terms in words matching them (case-insensitive, at a word start;
    the whole word when prefix is false, any word starting with the term
    when true), the earliest first among equals, shown in the page's order
    with the words in bold: for lunr and MariaDB, which return no snippet
    of their own."""
    terms = sorted({t for t in terms if t}, key=len, reverse=True)
    if not terms or not body:
        return ""
    tail = r"\w*" if prefix else r"(?!\w)"
    word = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(t) for t in terms) + ")" + tail, re.I)
    lower = [t.lower() for t in terms]

    def term(w):  # the term a matched word stands for
        w = w.lower()
        return next((t for t in lower if w.startswith(t)), w)

    hits = [(m.start(), term(m.group(0))) for _, m in zip(range(20000), word.finditer(body))]
    if not hits:
        return ""
    # For each hit as a passage's first word: how many distinct terms the
    # passage holds.
    best = []
    j = 0
    for i, (start, _) in enumerate(hits):
        j = max(j, i)
        while j + 1 < len(hits) and hits[j + 1][0] < start + width:
            j += 1
        best.append((-len({k for _, k in hits[i:j + 1]}), start))
    chosen = []
    for _, start in sorted(best):
        if all(abs(start - c) >= width for c in chosen):
            chosen.append(start)
            if len(chosen) == most:
                break
    out = []
    for start in sorted(chosen):
        a = max(0, start - 40)
        part = " ".join(body[a:start + width].split())
        out.append(word.sub(lambda m: "\x01" + m.group(0) + "\x02", part))
    return html.escape(" … ".join(out)).replace("\x01", "<b>").replace("\x02", "</b>")


# --- lunr.js ---------------------------------------------------------------

LUNR_JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lunr.js")


def node_cmd():
    n = shutil.which("node") or shutil.which("nodejs")
    if n is None:
        sys.exit("fts.py: needs node: install Debian packages nodejs and node-lunr")
    return [n, "--no-deprecation", LUNR_JS]


def lunr_build(pages, root, cache):
    docs = []
    for rel in pages:
        title, body = groonga.page_text(os.path.join(root, rel))
        docs.append({"path": rel, "title": title or rel, "body": body})
    with open(os.path.join(cache, "pages.json"), "w", encoding="utf-8") as f:
        json.dump(docs, f, ensure_ascii=False)
    out = subprocess.run(node_cmd() + ["build", cache], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if out.returncode != 0:
        sys.exit("fts.py: lunr.js build exited %d: %s" % (out.returncode, out.stdout.decode("utf-8", "replace")[-2000:]))


class LunrSearch:
    """Starts `node lunr.js serve` over the index and asks it over a pipe."""

    daemon = "node lunr.js"

    def __init__(self, cache):
        with open(os.path.join(cache, "pages.json"), encoding="utf-8") as f:
            self.pages = {d["path"]: (d["title"], d["body"]) for d in json.load(f)}
        self.proc = subprocess.Popen(node_cmd() + ["serve", cache], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8", bufsize=1)
        self.lock = threading.Lock()
        self.closing = False
        if self.proc.stdout.readline().strip() != "ready":
            self.close()
            sys.exit("fts.py: lunr.js did not start")

    def close(self):
        stop_server(self, 10)

    def search(self, q):
        ws = words(q)
        if not ws:
            return []
        with self.lock:
            self.proc.stdin.write(json.dumps({"words": ws, "limit": LIMIT}) + "\n")
            self.proc.stdin.flush()
            hits = json.loads(self.proc.stdout.readline())
        if isinstance(hits, dict):
            raise RuntimeError(hits.get("error", "lunr.js failed"))
        out = []
        for h in hits:
            title, body = self.pages.get(h["ref"], (h["ref"], ""))
            snip = cut_snippet(body, h["terms"], prefix=True)
            out.append((h["ref"], title or h["ref"], [snip] if snip else []))
        return out


# --- MariaDB full-text search ----------------------------------------------

MARIADB_MIN_TOKEN = 2


def mariadb_bin(name):
    for d in [None, "/usr/sbin", "/usr/bin"]:
        p = shutil.which(name) if d is None else os.path.join(d, name)
        if p and os.access(p, os.X_OK):
            return p
    sys.exit("fts.py: needs %s: install Debian package mariadb-server" % name)


class MariaDB:
    """A private mariadbd over the data directory in cache, on a loopback
    port of its own, its socket, pid and log in a temporary directory."""

    daemon = "mariadbd"

    def __init__(self, cache):
        self.pymysql = import_debian("pymysql", "python3-pymysql")
        self.datadir = os.path.join(cache, "mariadb")
        if not os.path.isdir(os.path.join(self.datadir, "mysql")):
            os.makedirs(self.datadir, exist_ok=True)
            cmd = [mariadb_bin("mariadb-install-db"), "--no-defaults", "--datadir=" + self.datadir,
                   "--auth-root-authentication-method=normal", "--skip-test-db"] + self.user()
            out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if out.returncode != 0:
                sys.exit("fts.py: mariadb-install-db exited %d: %s" % (out.returncode, out.stdout.decode("utf-8", "replace")[-2000:]))
        self.run = tempfile.mkdtemp(prefix="fts-mariadb-")
        self.port = groonga.free_port()
        self.proc = subprocess.Popen([
            mariadb_bin("mariadbd"), "--no-defaults", "--datadir=" + self.datadir,
            "--socket=" + os.path.join(self.run, "mysqld.sock"), "--pid-file=" + os.path.join(self.run, "mysqld.pid"),
            "--log-error=" + os.path.join(self.run, "error.log"), "--bind-address=127.0.0.1", "--port=%d" % self.port,
            "--skip-grant-tables", "--skip-name-resolve", "--skip-log-bin", "--innodb-buffer-pool-size=256M",
            "--innodb-ft-min-token-size=%d" % MARIADB_MIN_TOKEN, "--max-allowed-packet=256M",
        ] + self.user(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.local = threading.local()
        self.closing = False
        await_server(self, 600, os.path.join(self.run, "error.log"), "mariadbd")

    @staticmethod
    def user():
        # mariadbd refuses to run as root unless told to.
        return ["--user=root"] if os.geteuid() == 0 else []

    def db(self):
        if getattr(self.local, "db", None) is None:
            self.local.db = self.pymysql.connect(host="127.0.0.1", port=self.port, user="root", charset="utf8mb4",
                                                 autocommit=True, connect_timeout=5)
        return self.local.db

    def close(self):
        stop_server(self, 60)  # a clean shutdown


def mariadb_build(pages, root, cache):
    m = MariaDB(cache)
    try:
        with m.db().cursor() as c:
            c.execute("CREATE DATABASE docs CHARACTER SET utf8mb4")
            c.execute("USE docs")
            c.execute("CREATE TABLE pages (FTS_DOC_ID BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, "
                      "path VARCHAR(1024) NOT NULL, title TEXT NOT NULL, body LONGTEXT NOT NULL) "
                      "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci")
            batch = []
            for rel in pages:
                title, body = groonga.page_text(os.path.join(root, rel))
                batch.append((rel, title or rel, body))
                if len(batch) >= 200:
                    c.executemany("INSERT INTO pages (path, title, body) VALUES (%s, %s, %s)", batch)
                    batch = []
            if batch:
                c.executemany("INSERT INTO pages (path, title, body) VALUES (%s, %s, %s)", batch)
            for name, cols in (("ft_title", "title"), ("ft_body", "body"), ("ft_all", "title, body")):
                c.execute("ALTER TABLE pages ADD FULLTEXT INDEX %s (%s)" % (name, cols))
    finally:
        m.close()


class MariadbSearch(MariaDB):
    def __init__(self, cache):
        super().__init__(cache)
        with self.db().cursor() as c:
            c.execute("SELECT value FROM INFORMATION_SCHEMA.INNODB_FT_DEFAULT_STOPWORD")
            self.stop = {r[0].lower() for r in c.fetchall()}

    def db(self):
        fresh = getattr(self.local, "db", None) is None
        db = super().db()
        if fresh:
            with db.cursor() as c:
                c.execute("USE docs")
        return db

    def terms(self, q):
        """q's words as InnoDB tokenizes them (runs of letters, digits and
        underscores), stop words and tokens shorter than the index's
        minimum dropped: one list of tokens per word."""
        out = []
        for w in words(q):
            toks = [t for t in re.findall(r"\w+", w) if len(t) >= MARIADB_MIN_TOKEN and t.lower() not in self.stop]
            if toks:
                out.append(toks)
        return out

    def search(self, q):
        ws = self.terms(q)
        if not ws:
            return []
        parts = [t[0] if len(t) == 1 else '"' + " ".join(t) + '"' for t in ws]
        every = " ".join("+" + p for p in parts)
        some = " ".join(parts)
        try:
            return self.ask(every, some, [t for w in ws for t in w])
        except self.pymysql.err.OperationalError:
            self.local.db = None  # a dropped connection: reconnect once
            return self.ask(every, some, [t for w in ws for t in w])

    def ask(self, every, some, toks):
        with self.db().cursor() as c:
            c.execute("SELECT path, title, body, 10 * MATCH(title) AGAINST(%s IN BOOLEAN MODE) + "
                      "MATCH(body) AGAINST(%s IN BOOLEAN MODE) AS score FROM pages "
                      "WHERE MATCH(title, body) AGAINST(%s IN BOOLEAN MODE) ORDER BY score DESC, path LIMIT %s",
                      (some, some, every, LIMIT))
            rows = c.fetchall()
        out = []
        for path, title, body, _ in rows:
            snip = cut_snippet(body, toks, prefix=False)
            out.append((path, title or path, [snip] if snip else []))
        return out


# engine: (build, searcher, whether a built index is still there)
ENGINES = {
    "whoosh": (whoosh_build, WhooshSearch, None),
    "fts5": (fts5_build, Fts5Search, None),
    "sphinxsearch": (sphinx_build, SphinxSearch, None),
    "pgfts": (pgfts_build, PgftsSearch, pgfts_present),
    "lunr": (lunr_build, LunrSearch, None),
    "mariadb": (mariadb_build, MariadbSearch, None),
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
        # searchd, node or mariadbd runs beside this server: stop it with
        # the server, and stop the server if it dies.
        def stop(*_):
            searcher.close()
            os._exit(0)

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)

        def watch():
            searcher.proc.wait()
            if searcher.closing:
                return
            log(searcher.daemon + " exited")
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
