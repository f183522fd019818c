// Crawlee baseline for `quarry bench fetch`: PlaywrightCrawler with the same
// system Chromium at exactly the same concurrency, visiting every URL of a
// list and reading each page's text (the body's innerText, the cheapest
// faithful choice). Prints one JSON line with the fields of
// `quarry bench fetch`'s line (mode, pages, failures, seconds, pages_per_s,
// rendered, rendered_share) plus with_text and Crawlee's own counters.
//
//   node crawl.mjs --urls /tmp/urls.txt [--concurrency 4] [--chromium /usr/bin/chromium]
//                  [--block] [--adaptive] [--network] [--timeout 20] [-v]
//
// --adaptive uses AdaptivePlaywrightCrawler instead, which learns per site
// whether plain HTTP is enough (Crawlee's answer to the same question as
// Quarry's fetch package). Its handler reads the body text through
// parseWithCheerio (so it runs with or without a browser), pushes
// {chars} and its resultChecker accepts a result with text: Crawlee then
// takes an HTTP-only result when it has text and otherwise renders, and
// its detection runs (HTTP beside the browser) count two results alike
// when both have text. Without a pushed item every result compares equal
// and the learning is empty.
//
// Offline fairness. The served pages are saved copies of real articles: they
// reference third-party scripts, fonts, images and trackers. This machine
// has no Internet; its resolver answers some names at once and lets others
// time out after 5 s, and Crawlee always puts a local proxy (proxy-chain,
// in Node) in front of Chromium (Playwright sends even loopback through
// it), so those names are resolved in Node and Chromium's
// --host-resolver-rules does not apply. Pages then waited seconds for their
// load event, which measures this machine's DNS, not Crawlee. So by default
// every request whose host:port is not one of the list's (the loopback
// bench server) is aborted in the page before it leaves Chromium
// (page.route → "name not resolved"), as on a network where third parties
// fail at once; requests to the bench server itself (documents, and the
// pages' relative scripts and stylesheets, 404s after the added latency) go
// on as usual. --network turns that off. The served bytes are the same for
// both sides; nothing is stripped from the pages.
//
// --block treats Crawlee's browser as Quarry treats its own: it aborts the
// resource types Quarry's browser never fetches (images, media, fonts,
// stylesheets, pings, prefetches, manifests, text tracks, CSP reports;
// browser/pool_hijack.go) and launches Chromium with Quarry's flags
// (browser/pool_launch.go: images disabled in Blink, no back-forward cache,
// no site isolation), so a render costs Crawlee what it costs Quarry.
// bench/run.sh passes it. Images must be off in Blink, not only aborted:
// one saved page's <img onerror> swaps in a fallback image from an
// unreachable host, whose instant failure fires onerror again, thousands
// of times, and its load event never comes (a 20 s timeout, four times).
//
// Settings that could throttle Crawlee are set or checked here: min, max
// and desired concurrency are all --concurrency (the autoscaled pool cannot
// scale below or above it whatever the machine's load);
// maxRequestsPerMinute is Infinity and sameDomainDelaySecs 0 (Crawlee's
// defaults, stated); navigation timeout --timeout (20 s, Quarry's default);
// the browser is retired after 500 pages (Quarry's recycle default; Crawlee's
// is 100, and its sessions, which retire their browser, last 50); retries
// stay Crawlee's 3 and are reported. Quarry starts its browser before its
// clock; Crawlee starts its first one inside run(), so that launch is taken
// out of `seconds` (wall_s and launch_s say both). -v logs each page's time
// (from the navigation hook to the end of the handler) and each failure.
import { readFileSync } from 'node:fs';
import { PlaywrightCrawler, AdaptivePlaywrightCrawler, Configuration } from '@crawlee/playwright';
import { chromium } from 'playwright-core';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const urls = readFileSync(arg('urls'), 'utf8').split('\n').map((s) => s.trim()).filter((s) => s && !s.startsWith('#'));
const concurrency = Number(arg('concurrency', '4'));
const timeoutSecs = Number(arg('timeout', '20'));
const executablePath = arg('chromium', process.env.QUARRY_CHROMIUM || '/usr/bin/chromium');
const adaptive = process.argv.includes('--adaptive');
const block = process.argv.includes('--block');
const offline = !process.argv.includes('--network');

// The hosts (host:port) of the list: the bench server.
const benchHosts = new Set(urls.map((u) => new URL(u).host));
// Quarry's blockedTypes plus stylesheets (browser/pool_hijack.go), in
// Playwright's resource type names.
const blockedTypes = new Set(['image', 'media', 'font', 'stylesheet', 'ping', 'prefetch', 'manifest', 'texttrack', 'cspviolationreport']);
// The rest of the flags Quarry's browser is launched with
// (browser/pool_launch.go), its proxy jail aside (Crawlee has its own proxy).
const quarryFlags = [
  '--disable-extensions', '--mute-audio', '--blink-settings=imagesEnabled=false',
  '--disable-features=site-per-process,TranslateUI,BackForwardCache,OptimizationHints,MediaRouter,AutofillServerCommunication,Translate',
];
let offhostAborted = 0;
let typeBlocked = 0;
// The first browser launch, which Crawlee does inside run() and Quarry
// before its clock starts (browser.NewPool): taken out of `seconds`.
let launches = 0;
let launchStart = null;
let launchSecs = 0;

const verbose = process.argv.includes('-v');
const navStart = new Map();

async function routeRequests(ctx) {
  navStart.set(ctx.request.uniqueKey, process.hrtime.bigint());
  let page;
  try {
    page = ctx.page;
  } catch {
    return; // AdaptivePlaywrightCrawler's HTTP-only pass has no page
  }
  if (!page || (!offline && !block)) return;
  await page.route('**/*', (route) => {
    const req = route.request();
    let host = '';
    try {
      host = new URL(req.url()).host;
    } catch {}
    if (offline && !benchHosts.has(host)) {
      offhostAborted++;
      return route.abort('namenotresolved');
    }
    if (block && blockedTypes.has(req.resourceType())) {
      typeBlocked++;
      return route.abort('blockedbyclient');
    }
    return route.continue();
  });
}

const config = new Configuration({ persistStorage: false, purgeOnStart: true, logLevel: 'WARNING' });
const Crawler = adaptive ? AdaptivePlaywrightCrawler : PlaywrightCrawler;
const hasText = (result) => result.datasetItems.length > 0 && result.datasetItems.every(({ item }) => item.chars > 0);
const crawler = new Crawler({
  launchContext: {
    launcher: chromium,
    launchOptions: {
      executablePath,
      headless: true,
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
        ...(block ? quarryFlags : []),
      ],
    },
  },
  // A session retires its browser with it; Crawlee's sessions last 50 pages.
  sessionPoolOptions: { sessionOptions: { maxUsageCount: 500 } },
  browserPoolOptions: {
    retireBrowserAfterPageCount: 500,
    preLaunchHooks: [() => { if (launches++ === 0) launchStart = process.hrtime.bigint(); }],
    postLaunchHooks: [() => { if (launchSecs === 0 && launchStart) launchSecs = Number(process.hrtime.bigint() - launchStart) / 1e9; }],
  },
  preNavigationHooks: [routeRequests],
  minConcurrency: concurrency,
  maxConcurrency: concurrency,
  autoscaledPoolOptions: { desiredConcurrency: concurrency },
  maxRequestsPerMinute: Infinity,
  sameDomainDelaySecs: 0,
  navigationTimeoutSecs: timeoutSecs,
  ...(adaptive ? { resultChecker: hasText } : {}),
  failedRequestHandler({ request }, error) {
    console.error(`failed ${request.url}: ${error.message.split('\n')[0]}`);
  },
  async requestHandler(ctx) {
    let text;
    if (adaptive) {
      const $ = await ctx.parseWithCheerio();
      $('script, style, noscript, template').remove();
      text = $('body').text();
    } else {
      text = await ctx.page.evaluate(() => (document.body ? document.body.innerText : ''));
    }
    await ctx.pushData({ key: ctx.request.uniqueKey, chars: text.trim().length });
    if (verbose) {
      const t = navStart.get(ctx.request.uniqueKey);
      const ms = t ? Number(process.hrtime.bigint() - t) / 1e6 : -1;
      console.error(`page ${ctx.request.url} ${Math.round(ms)} ms ${text.trim().length} chars`);
    }
  },
}, config);

const start = process.hrtime.bigint();
await crawler.run(urls.map((url, i) => ({ url, uniqueKey: `${i}:${url}` })));
const wall = Number(process.hrtime.bigint() - start) / 1e9;
const seconds = wall - launchSecs;

// Pages with text: the committed results (a detection run's HTTP pass is
// not committed), one per page.
const { items } = await crawler.getData({ limit: 10 * urls.length });
const withText = new Set(items.filter((i) => i.chars > 0).map((i) => i.key)).size;
const s = crawler.stats.state;
const rendered = adaptive ? s.browserRequestHandlerRuns : s.requestsFinished + s.requestsFailed;
const out = {
  mode: adaptive ? 'crawlee-adaptive' : 'crawlee-playwright',
  pages: urls.length,
  // As Quarry counts them: a page fails when its request failed (after
  // Crawlee's retries) or it yielded no text.
  failures: urls.length - withText,
  seconds: Math.round(seconds * 1000) / 1000,
  pages_per_s: Math.round((urls.length / seconds) * 100) / 100,
  rendered,
  rendered_share: Math.round((rendered / urls.length) * 1000) / 1000,
  with_text: withText,
  wall_s: Math.round(wall * 1000) / 1000,
  launch_s: Math.round(launchSecs * 1000) / 1000,
  launches,
  failed_requests: s.requestsFailed,
  retries: s.requestsRetries,
  offhost_aborted: offhostAborted,
  type_blocked: typeBlocked,
};
if (adaptive) {
  out.http_only_runs = s.httpOnlyRequestHandlerRuns;
  out.mispredictions = s.renderingTypeMispredictions;
}
console.log(JSON.stringify(out));
