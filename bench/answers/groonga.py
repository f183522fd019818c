#!/usr/bin/env python3
"""Serves a doc tree on loopback behind Groonga, for bench/answers/run.sh.

    python3 bench/answers/groonga.py -dir DIR [-addr-file F] [-template-file F] [-index-only] [-cache DIR]

It takes the flags of bench/docsqa's server (-engine is accepted and
ignored) so run.sh starts it the same way. Indexing: every *.html page of
DIR (as bench/docsqa picks them: generated genindex/search pages and
directories starting with "_" left out) is read with Python's html.parser
(script, style and head dropped, the <title> kept) and loaded into a Groonga
database (`groonga -n`): a Pages table keyed by the page's path, its title
and text as columns, one Terms lexicon (TokenBigram, NormalizerAuto) with a
positional index per column. The index is built once into the cache
directory (default .data/docsqa/groonga-PARENT-BASE) and reused while its
"ready" marker exists.

Serving: Groonga's own HTTP server (`groonga -s --protocol http`) runs on a
loopback port of its own; this server serves DIR under /docs/ and a results
page at /search?q=…, which passes the words of q, each quoted, to Groonga's
`select` (query syntax, AND of the words, title weighted ×10 over the body,
scorer_tf_idf, ten results) and lists the hits: title link, then Groonga's
snippet_html of the body.
"""
import argparse
import html
import html.parser
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

SCHEMA = """table_create Pages TABLE_HASH_KEY ShortText
column_create Pages title COLUMN_SCALAR ShortText
column_create Pages body COLUMN_SCALAR LongText
table_create Terms TABLE_PAT_KEY ShortText --default_tokenizer TokenBigram --normalizer NormalizerAuto
column_create Terms pages_title COLUMN_INDEX|WITH_POSITION Pages title
column_create Terms pages_body COLUMN_INDEX|WITH_POSITION Pages body
"""
BODY_MAX = 4_000_000  # characters of text kept per page (LongText holds 4 GiB; this bounds memory)


def log(msg):
    print("groonga.py: " + msg, file=sys.stderr, flush=True)


def indexable(name):
    return name.endswith(".html") and not name.startswith("genindex") and name not in ("search.html", "py-modindex.html")


def html_files(root):
    out = []
    for d, dirs, files in os.walk(root, followlinks=True):
        dirs[:] = sorted(x for x in dirs if not x.startswith("_"))
        for f in files:
            if indexable(f):
                out.append(os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/"))
    return sorted(out)


class Text(html.parser.HTMLParser):
    """A page's title and visible text."""

    SKIP = {"script", "style", "head", "noscript", "template"}
    BLOCK = {"p", "div", "br", "li", "tr", "td", "th", "dt", "dd", "pre", "h1", "h2", "h3", "h4", "h5", "h6",
             "section", "article", "table", "ul", "ol", "dl", "blockquote", "hr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skip = 0
        self.in_head = False
        self.in_title = False
        self.title = []
        self.parts = []

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self.in_title = True
        elif tag == "body" and self.in_head:
            # RDoc's Darkfish pages never close <head>: <body> ends it.
            self.in_head = False
            self.skip -= 1
        elif tag in self.SKIP:
            self.skip += 1
            self.in_head = self.in_head or tag == "head"
        elif tag in self.BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag == "head" and not self.in_head:
            pass  # a </head> after the <body> that ended it
        elif tag in self.SKIP and self.skip:
            self.in_head = self.in_head and tag != "head"
            self.skip -= 1
        elif tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)
        elif not self.skip:
            self.parts.append(data)


def page_text(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    p = Text()
    p.feed(text)
    p.close()
    title = " ".join("".join(p.title).split())
    lines = (" ".join(l.split()) for l in "".join(p.parts).split("\n"))
    body = "\n".join(l for l in lines if l)
    return title, body[:BODY_MAX]


def build(root, cache):
    pages = html_files(root)
    if not pages:
        sys.exit("groonga.py: no *.html pages under " + root)
    if os.path.exists(cache):
        shutil.rmtree(cache)
    os.makedirs(os.path.join(cache, "db"))
    start = time.time()
    db = os.path.join(cache, "db", "docs")
    cmds = os.path.join(cache, "load.grn")
    with open(cmds, "w", encoding="utf-8") as f:
        f.write(SCHEMA)
        f.write("load --table Pages\n[\n")
        for i, rel in enumerate(pages):
            title, body = page_text(os.path.join(root, rel))
            rec = {"_key": rel, "title": title or rel, "body": body}
            f.write(("," if i else "") + json.dumps(rec, ensure_ascii=False) + "\n")
        f.write("]\n")
    with open(cmds, "rb") as f:
        out = subprocess.run(["groonga", "-n", db], stdin=f, capture_output=True)
    os.remove(cmds)
    for line in out.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("[[-"):
            sys.exit("groonga.py: groonga failed: " + line)
    if out.returncode != 0:
        sys.exit("groonga.py: groonga exited %d: %s" % (out.returncode, out.stderr.decode("utf-8", "replace")))
    log("indexed %d pages of %s in %ds" % (len(pages), root, time.time() - start))
    with open(os.path.join(cache, "ready"), "w") as f:
        f.write(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) + "\n")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quote_words(q):
    """q's words, each a quoted phrase of Groonga's query syntax, so that
    operators and parentheses in a question stay words."""
    words = q.split()
    return " ".join('"' + w.replace("\\", "\\\\").replace('"', '\\"') + '"' for w in words)


def render(q, hits, program="Groonga"):
    """Writes the results page of query q: its hits as (path, title,
    snippets of HTML the program marked up), in order."""
    b = ['<!DOCTYPE html><html><head><meta charset="utf-8"><title>%s: %s</title></head><body>' % (program, html.escape(q))]
    b.append('<form action="/search"><input name="q" value="%s"><input type="submit" value="Search"></form>' % html.escape(q))
    b.append("<p>%d results</p><ol>" % len(hits))
    for path, title, snippets in hits:
        b.append('<li><a href="/docs/%s">%s</a>' % (html.escape(urllib.parse.quote(path)), html.escape(title)))
        if snippets:
            b.append("<br>" + " … ".join(snippets))
        b.append("</li>")
    b.append("</ol></body></html>")
    return "".join(b)


def docs_server(root, a, results, name, logf=log):
    """Returns the HTTP server of DIR's pages under /docs/ and a results
    page at /search?q=… whose HTML results(q) writes, on a.addr, after
    writing its address and search template to a.addr_file and
    a.template_file. bench/answers/fts.py serves its programs with it too.
    """

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kw):
            super().__init__(*args, directory=root, **kw)

        def log_message(self, fmt, *args):
            pass

        def do_GET(self):
            u = urllib.parse.urlsplit(self.path)
            if u.path == "/search":
                body = results(urllib.parse.parse_qs(u.query).get("q", [""])[0]).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if u.path.startswith("/docs/"):
                self.path = self.path[len("/docs"):]
                return super().do_GET()
            self.send_error(404)

    host, port = a.addr.rsplit(":", 1)
    srv = ThreadingHTTPServer((host, int(port)), Handler)
    addr = "%s:%d" % srv.server_address[:2]
    template = "http://%s/search?q={query}" % addr
    logf("%s over %s, results at %s" % (name, root, template))
    if a.addr_file:
        with open(a.addr_file, "w") as f:
            f.write(addr)
    if a.template_file:
        with open(a.template_file, "w") as f:
            f.write(template)
    return srv


def parse_flags(engines=None):
    """Parses bench/docsqa's server flags and returns them with the tree
    served and its index cache (-cache, or
    .data/docsqa/ENGINE-PARENT-BASE). -engine is one of engines when
    given (fts.py), else accepted and ignored."""
    ap = argparse.ArgumentParser()
    ap.add_argument("-dir", required=True)
    ap.add_argument("-addr", default="127.0.0.1:0")
    ap.add_argument("-addr-file", default="")
    ap.add_argument("-template-file", default="")
    ap.add_argument("-index-only", action="store_true")
    ap.add_argument("-cache", default="")
    if engines:
        ap.add_argument("-engine", required=True, choices=sorted(engines))
    else:
        ap.add_argument("-engine", default="groonga")
    a = ap.parse_args()
    root = os.path.abspath(os.path.realpath(a.dir))
    name = a.engine if engines else "groonga"
    cache = a.cache or os.path.join(".data", "docsqa", name + "-" + os.path.basename(os.path.dirname(root)) + "-" + os.path.basename(root))
    return a, root, os.path.abspath(cache)


def main():
    a, root, cache = parse_flags()
    if shutil.which("groonga") is None:
        sys.exit("groonga.py: needs groonga: install Debian package groonga-bin")
    if not os.path.exists(os.path.join(cache, "ready")):
        build(root, cache)
    if a.index_only:
        return

    gport = free_port()
    groonga = subprocess.Popen(["groonga", "-s", "--protocol", "http", "--bind-address", "127.0.0.1",
                                "-p", str(gport), os.path.join(cache, "db", "docs")])

    stopping = []

    def stop(*_):
        stopping.append(True)
        groonga.terminate()
        try:
            groonga.wait(5)
        except subprocess.TimeoutExpired:
            groonga.kill()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    gbase = "http://127.0.0.1:%d/d/select" % gport
    for _ in range(100):
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/d/status" % gport, timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)
    else:
        stop()

    def results(q):
        hits = []
        if q.strip():
            params = {
                "table": "Pages", "match_columns": "scorer_tf_idf(title) * 10 || scorer_tf_idf(body)",
                "query": quote_words(q), "output_columns": "_key,title,_score,snippet_html(body)",
                "sort_keys": "-_score", "limit": "10", "command_version": "2",
            }
            try:
                with urllib.request.urlopen(gbase + "?" + urllib.parse.urlencode(params), timeout=30) as r:
                    res = json.load(r)
                rows = res[1][0][2:] if res[0][0] == 0 else []
                for key, title, _score, snips in rows:
                    hits.append((key, title or key, snips or []))
            except (OSError, ValueError, IndexError) as e:
                log("select %r: %s" % (q, e))
        return render(q, hits)

    srv = docs_server(root, a, results, "groonga")

    def watch():
        groonga.wait()
        if not stopping:
            log("groonga exited")
            os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()
