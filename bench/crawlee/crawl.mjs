// Crawlee baseline for `quarry bench fetch`: PlaywrightCrawler with the same
// system Chromium, maxConcurrency 4, visiting every URL of a list and
// extracting the page's main text (the body's innerText, the cheapest
// faithful choice). Prints the same JSON as `quarry bench fetch`.
//
//   node crawl.mjs --urls /tmp/urls.txt [--concurrency 4] [--chromium /usr/bin/chromium] [--block] [--adaptive]
//
// --adaptive uses AdaptivePlaywrightCrawler instead, which learns per site
// whether plain HTTP is enough (Crawlee's answer to the same question as
// Quarry's fetch package); its handler reads the body text through
// parseWithCheerio so it can run without a browser.
//
// --block skips images, fonts, media and stylesheets the way Crawlee
// recommends (playwrightUtils.blockRequests), as Quarry's pool does.
//
// Crawlee puts a local proxy (proxy-chain, in Node) in front of Playwright,
// so page hosts are resolved by Node's getaddrinfo, not by Chromium.
import { readFileSync } from 'node:fs';
import { PlaywrightCrawler, AdaptivePlaywrightCrawler, Configuration, playwrightUtils } from '@crawlee/playwright';
import { chromium } from 'playwright-core';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const urls = readFileSync(arg('urls'), 'utf8').split('\n').map((s) => s.trim()).filter((s) => s && !s.startsWith('#'));
const concurrency = Number(arg('concurrency', '4'));
const executablePath = arg('chromium', process.env.QUARRY_CHROMIUM || '/usr/bin/chromium');

let failures = 0;
let empty = 0;
const config = new Configuration({ persistStorage: false, purgeOnStart: true, logLevel: 'WARNING' });
const adaptive = process.argv.includes('--adaptive');
const Crawler = adaptive ? AdaptivePlaywrightCrawler : PlaywrightCrawler;
const crawler = new Crawler({
  launchContext: {
    launcher: chromium,
    launchOptions: {
      executablePath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    },
  },
  preNavigationHooks: process.argv.includes('--block') && !adaptive ? [async ({ page }) => { await playwrightUtils.blockRequests(page); }] : [],
  minConcurrency: concurrency,
  maxConcurrency: concurrency,
  // Crawlee's defaults otherwise: 60 s navigation and handler timeouts,
  // 3 retries, waitUntil "load".
  async requestHandler(ctx) {
    let text;
    if (adaptive) {
      const $ = await ctx.parseWithCheerio();
      text = $('body').text();
    } else {
      text = await ctx.page.evaluate(() => (document.body ? document.body.innerText : ''));
    }
    if (!text.trim()) empty++;
  },
  failedRequestHandler() {
    failures++;
  },
}, config);

const start = process.hrtime.bigint();
await crawler.run(urls.map((url, i) => ({ url, uniqueKey: `${i}:${url}` })));
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(JSON.stringify({
  pages: urls.length,
  failures: failures + empty,
  seconds: Math.round(seconds * 1000) / 1000,
  pages_per_s: Math.round((urls.length / seconds) * 100) / 100,
}));
