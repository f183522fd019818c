#!/usr/bin/env node
// lunr.js (Debian node-lunr) behind bench/answers/fts.py -engine lunr.
//
//   node lunr.js build CACHE   reads CACHE/pages.json ([{path, title, body}…])
//                              and writes CACHE/lunr-index.json
//   node lunr.js serve CACHE   loads the index, prints "ready", then answers
//                              one JSON line per query line on stdin
//
// Indexing is lunr's default pipeline (trimmer, English stop words, Porter
// stemmer), the text split at every character that is not a letter, digit
// or underscore, over two fields, title (boost 10) and body, the page's path as
// its ref. A query line is {"words": [...], "limit": N}; each word is split
// by lunr's tokenizer, trimmed, dropped when a stop word (a required term
// the index never holds would match nothing), and added as a required term
// (lunr's +term presence), so the words are ANDed; the search pipeline
// stems it. The answer is [{ref, score, terms}…], best first, terms the
// stemmed index terms that matched (fts.py cuts the snippets with them).
"use strict";

let lunr;
try {
	lunr = require("lunr");
} catch (e) {
	lunr = require("/usr/share/nodejs/lunr");
}
// lunr's default tokenizer splits at white space and hyphens only, so that
// "HTTP::Client", "Process.run(command" or "fpc.cfg" would each be one
// token; split at every character that is not a letter, digit or
// underscore instead, as a query's words are split too.
lunr.tokenizer.separator = /[^\p{L}\p{N}_]+/u;

const fs = require("fs");
const path = require("path");
const readline = require("readline");

const [cmd, cache] = process.argv.slice(2);
const indexFile = path.join(cache || ".", "lunr-index.json");

if (cmd === "build") {
	const pages = JSON.parse(fs.readFileSync(path.join(cache, "pages.json"), "utf8"));
	const idx = lunr(function () {
		this.ref("path");
		this.field("title", { boost: 10 });
		this.field("body");
		for (const p of pages) this.add(p);
	});
	fs.writeFileSync(indexFile, JSON.stringify(idx));
} else if (cmd === "serve") {
	const idx = lunr.Index.load(JSON.parse(fs.readFileSync(indexFile, "utf8")));
	const rl = readline.createInterface({ input: process.stdin, terminal: false });
	rl.on("line", (line) => {
		let out = [];
		try {
			const req = JSON.parse(line);
			const terms = [];
			for (const w of req.words) {
				for (const t of lunr.tokenizer(w)) {
					const kept = lunr.stopWordFilter(lunr.trimmer(t));
					if (kept && kept.toString()) terms.push(kept.toString());
				}
			}
			if (terms.length) {
				const hits = idx.query((q) => {
					for (const t of terms) q.term(t, { presence: lunr.Query.presence.REQUIRED });
				});
				out = hits.slice(0, req.limit || 10).map((h) => ({
					ref: h.ref,
					score: h.score,
					terms: Object.keys(h.matchData.metadata),
				}));
			}
		} catch (e) {
			out = { error: String(e) };
		}
		process.stdout.write(JSON.stringify(out) + "\n");
	});
	process.stdout.write("ready\n");
} else {
	process.stderr.write("usage: lunr.js build|serve CACHE\n");
	process.exit(2);
}
