// The installable app's checks in headless Chromium (tests/it/browser.rs
// reads the lines and judges them): what the DevTools protocol says of the
// page's manifest and installability, and whether the page opens and runs
// a synctest with the network cut once its service worker has a copy.
//
//   node tests/web/pwa.mjs install URL [--timeout SECS]
//   node tests/web/pwa.mjs offline URL [--timeout SECS]
//   node tests/web/pwa.mjs update TWINSTAR_BIN WEB_DIR NEXT_WEB_DIR [--timeout SECS]
//
// install: opens URL, waits for the load event and the service worker,
// and prints, one line each (JSON after the colon):
//   manifest: {"url": ..., "errors": [...], "name": ..., "display": ...,
//              "icons": [...]}    Page.getAppManifest
//   installability-errors: [...]  Page.getInstallabilityErrors
//
// offline: URL must be a page link that ends with a result line (a
// `#!synctest --headless ...`). Opens it and waits for its
// `TWINSTAR-RESULT` line and for a service worker to control the page;
// then cuts the network (Network.emulateNetworkConditions, offline),
// reloads, and waits for the result line again. Prints:
//   controlled: CACHE_NAMES      the page's caches once controlled (JSON)
//   online-result: LINE          the first run's result
//   offline: network cut
//   reloaded: from-service-worker=BOOL status=N
//   offline-result: LINE         the run after the reload
//   offline-join: LINE           then a room's link (#K7Q-2XM), still
//                                offline: the line saying online play
//                                needs the network
//   offline-join-result: LINE    and how that attempt ended
//   offline-inspect: LINE        then the inspector (/inspect), still
//                                offline: its line once its wasm loaded
//   console: TEXT                every console line, as it comes
//
// update: a new build replacing the cached one on the next visit. Serves
// WEB_DIR (`TWINSTAR_BIN serve --web WEB_DIR` on a free loopback port),
// opens the page and waits for its worker to control it; then serves
// NEXT_WEB_DIR on the same port (the same origin: a server restarted
// with a new build), reloads (the browser fetches sw.js, finds it
// changed, installs the new worker, which takes over and deletes the old
// cache), waits for the page's controller to change, and reloads again.
// Prints:
//   first: CACHE_NAMES           the caches with the first build's worker
//   next: CACHE_NAMES            once the new worker controls the page
//   page: TEXT                   the `<meta name="twinstar-build">` of
//                                the page the last reload shows, if any
// (the page opened is a headless synctest: see PAGE below)
//
// All end with exit 0 once they have printed their lines; exit 1 with a
// `pwa: WHY` line on stderr on a timeout (default 60 s), a page error or
// a crash; exit 2 for bad arguments. Chromium as in drive.mjs: Debian's
// /usr/bin/chromium (or $CHROMIUM), headless, in a persistent profile of
// its own (a fresh temporary directory): an off-the-record context, what
// a plain newContext is, is never installable ("in-incognito").
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { chromium } from "playwright-core";

const FLAGS = [
  "--no-sandbox", // root in a container
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const USAGE =
  "usage: node tests/web/pwa.mjs install|offline URL [--timeout SECS]\n" +
  "       node tests/web/pwa.mjs update TWINSTAR_BIN WEB_DIR NEXT_WEB_DIR [--timeout SECS]";
const line = (text) => process.stdout.write(`${text}\n`);

function usage(why) {
  console.error(`pwa: ${why}\n${USAGE}`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: { timeout: { type: "string", default: "60" } },
  });
} catch (e) {
  usage(e.message);
}
const [check, url] = args.positionals;
const wanted = { install: 2, offline: 2, update: 4 }[check];
if (wanted === undefined) usage("give a check: install, offline or update");
if (args.positionals.length !== wanted) usage(`wrong number of arguments for ${check}`);
const timeoutSecs = Number(args.values.timeout);
if (!(timeoutSecs > 0)) usage(`bad --timeout '${args.values.timeout}'`);

const profile = mkdtempSync(join(tmpdir(), "twinstar-pwa-"));
let context;
let finished = false;

// The server `update` runs, while it runs.
let server = null;

async function finish(code, why) {
  if (finished) return;
  finished = true;
  if (why) console.error(`pwa: ${why}`);
  server?.kill("SIGKILL");
  await Promise.race([context?.close(), new Promise((r) => setTimeout(r, 5000))]).catch(() => {});
  rmSync(profile, { recursive: true, force: true });
  process.exit(code);
}

const deadline = setTimeout(() => finish(1, `timeout: the ${check} check took over ${timeoutSecs} s`), timeoutSecs * 1000);
deadline.unref?.();

// Console lines as they come; `next(regex)` resolves with the first line
// matching it from now on.
const waiting = [];
function next(regex) {
  return new Promise((resolve) => waiting.push({ regex, resolve }));
}

async function install(page, session) {
  await page.goto(url, { waitUntil: "load" });
  // Installability looks at the worker too: let it get there first.
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  const manifest = await session.send("Page.getAppManifest");
  let parsed = {};
  try {
    parsed = JSON.parse(manifest.data || "{}");
  } catch (e) {
    parsed = { unreadable: e.message };
  }
  line(
    `manifest: ${JSON.stringify({
      url: manifest.url,
      errors: manifest.errors,
      name: parsed.name ?? null,
      display: parsed.display ?? null,
      orientation: parsed.orientation ?? null,
      icons: parsed.icons ?? [],
    })}`,
  );
  const { installabilityErrors } = await session.send("Page.getInstallabilityErrors");
  line(`installability-errors: ${JSON.stringify(installabilityErrors)}`);
}

async function offline(page, session) {
  const result = /^TWINSTAR-RESULT /;
  const first = next(result);
  await page.goto(url, { waitUntil: "commit" });
  line(`online-result: ${await first}`);
  // clients.claim() in sw.js's activate hands this page to the worker
  // once its copy of the client is complete.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, {
    timeout: timeoutSecs * 1000,
    polling: 50,
  });
  line(`controlled: ${JSON.stringify(await page.evaluate(() => caches.keys()))}`);
  await session.send("Network.enable");
  await session.send("Network.emulateNetworkConditions", {
    offline: true,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  line("offline: network cut");
  const second = next(result);
  const response = await page.reload({ waitUntil: "commit" });
  line(`reloaded: from-service-worker=${response?.fromServiceWorker() ?? false} status=${response?.status() ?? 0}`);
  line(`offline-result: ${await second}`);
  // Online play from the same offline copy: a room's link.
  const needs = next(/online play needs the network/);
  const ended = next(result);
  const room = new URL(url);
  room.hash = "#K7Q-2XM";
  await page.goto(room.href, { waitUntil: "commit" }); // the fragment only: no load
  await page.reload({ waitUntil: "commit" });
  line(`offline-join: ${await needs}`);
  line(`offline-join-result: ${await ended}`);
  // The inspector, its page and its own wasm from the same offline copy.
  const inspector = next(/^inspect: (pick one|the inspector did not load)/);
  await page.goto(new URL("inspect", url).href, { waitUntil: "commit" });
  line(`offline-inspect: ${await inspector}`);
}

// A loopback port free now.
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// Starts `BIN serve` with the web client in `dir` on `port`; resolves once
// it says it serves it, and the previous one has exited.
async function serve(bin, dir, port) {
  if (server) {
    const old = server;
    const gone = new Promise((resolve) => old.once("exit", resolve));
    old.kill("SIGKILL"); // a test's server: nothing to drain
    await gone;
  }
  const child = spawn(bin, ["serve", "--bind", `127.0.0.1:${port}`, "--metrics-bind", "127.0.0.1:0", "--web", dir], {
    stdio: ["ignore", "ignore", "pipe"],
    // No multicast outside a test's own namespaces (DESIGN.md decision 9).
    env: { ...process.env, TWINSTAR_LAN_DISCOVERY: "off" },
  });
  server = child;
  let said = "";
  await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      said += chunk;
      if (said.includes("web client at http://")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`twinstar serve --web ${dir} exited (${code}): ${said.trim()}`)));
  });
}

// The page `update` opens: a short synctest without a window. With a
// window, in this headless Chromium (software WebGL keeps the page's
// thread busy drawing), the browser does not start the worker's update
// while the match runs: no new worker version appears (DevTools'
// ServiceWorker domain, seen 15 s into a 3600-frame match) and
// `registration.update()` stays pending. Once the match ended, the new
// worker was fetched, installed and took over within 0.2 s in 4 runs of
// 6 (one 300-frame match, five of 120 frames); in the other 2 it had not
// within this check's 60 s. Stubbing out the screen wake lock changed
// nothing, so it is not the cause. A page that draws nothing updates
// within 2 s.
const PAGE = "#!synctest%20--headless%20--frames%2060%20--no-record";

async function update(page) {
  const [, bin, dir, nextDir] = args.positionals;
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}/`;
  const controlled = () =>
    page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, {
      timeout: timeoutSecs * 1000,
      polling: 50,
    });
  const cacheNames = () => page.evaluate(() => caches.keys());
  await serve(bin, dir, port);
  // A page that runs no window: see the comment on `update` above.
  await page.goto(`${origin}${PAGE}`, { waitUntil: "load" });
  await controlled();
  const first = await cacheNames();
  line(`first: ${JSON.stringify(first)}`);
  await serve(bin, nextDir, port);
  // The visit that finds the new worker: it installs, takes over this
  // page (its controller) and deletes the old cache.
  await page.reload({ waitUntil: "load" });
  const names = await page.evaluate(
    (old) =>
      new Promise((resolve) => {
        const poll = async () => {
          const names = await caches.keys();
          if (navigator.serviceWorker.controller && !names.includes(old)) resolve(names);
          else setTimeout(poll, 50);
        };
        poll();
      }),
    first[0] ?? "",
  );
  line(`next: ${JSON.stringify(names)}`);
  await page.reload({ waitUntil: "load" });
  const built = await page.evaluate(() => document.querySelector('meta[name="twinstar-build"]')?.content);
  line(`page: ${built ?? "(no twinstar-build meta)"}`);
}

try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
  });
  context.on("close", () => finish(1, "the browser closed or crashed"));
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (message) => {
    const text = message.text();
    line(`console: ${text}`);
    for (const w of waiting.splice(0)) {
      if (w.regex.test(text)) w.resolve(text);
      else waiting.push(w);
    }
  });
  page.on("pageerror", (error) => finish(1, `page error: ${error.message.split("\n")[0]}`));
  page.on("crash", () => finish(1, "the page crashed"));
  const session = await context.newCDPSession(page);
  await { install, offline, update }[check](page, session);
  await finish(0);
} catch (e) {
  await finish(1, e.message.split("\n")[0]);
}
