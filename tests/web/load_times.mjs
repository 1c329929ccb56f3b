// How long the page takes to open to its menu, cold and from the service
// worker's copy (issue 60's figure (a)), in headless Chromium.
//
//   node tests/web/load_times.mjs URL [--runs N] [--timeout SECS]
//
// Each run is a new browser profile (nothing cached: a first visit). It
// opens URL and waits for the menu to be drawn, then for the service
// worker to hold the client (the wasm in its cache), then opens URL twice
// more in new tabs of the same profile: the first is served by the worker
// from its cache, the second also finds the wasm's compiled code that
// Chromium keeps once a module has been compiled from a cache. One line
// per visit, then a summary:
//
//   visit: {"run": 1, "visit": "cold" | "warm" | "warm-again",
//           "html_ms": ..., "wasm_ms": ..., "instantiated_ms": ...,
//           "menu_ms": ..., "wasm_bytes": ...}
//   load-times: {"cold": {"median_ms": ..., "all": [...], "steps_ms": {...}},
//                "warm": {...}, "warm-again": {...}}
//
// Times count from the visit's navigation start: the page's HTML has
// arrived (html_ms), the wasm has (wasm_ms; Chromium compiles it while it
// streams in), the module is instantiated (instantiated_ms: the page's
// `twinstar-instantiated` mark, just before the game's `main`), and the
// menu is on screen (menu_ms: the end of the first animation frame after
// the game logged `main menu:`). steps_ms are the medians of the
// differences: page, wasm, compile (what compiling took after the last
// byte), start (the game's setup and first menu frame). wasm_bytes is what
// the network delivered for the wasm (0 from a cache).
//
// Exit 0 after the summary; 1 with `load_times: WHY` on stderr on a
// timeout (default 60 s per visit), a page error or a crash; 2 for bad
// arguments. Chromium as drive.mjs launches it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { chromium } from "playwright-core";

const FLAGS = [
  "--no-sandbox", // root in a container
  "--disable-gpu", // software WebGL, as drive.mjs
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

function usage(why) {
  console.error(`load_times: ${why}\nusage: node tests/web/load_times.mjs URL [--runs N] [--timeout SECS]`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: { runs: { type: "string", default: "5" }, timeout: { type: "string", default: "60" } },
  });
} catch (e) {
  usage(e.message);
}
if (args.positionals.length !== 1) usage("one URL");
const url = args.positionals[0];
const runs = Number(args.values.runs);
const timeoutMs = Number(args.values.timeout) * 1000;
if (!Number.isInteger(runs) || runs < 1 || runs > 100) usage(`bad --runs '${args.values.runs}'`);
if (!(timeoutMs > 0)) usage(`bad --timeout '${args.values.timeout}'`);

// Runs in the page before its scripts: notes when the game logs its menu
// and the end of the first animation frame after that.
function instrument() {
  const state = { menuLogged: false, menuDrawn: null };
  window.__load = state;
  for (const level of ["log", "info", "debug", "warn"]) {
    const original = console[level].bind(console);
    console[level] = (...parts) => {
      if (!state.menuLogged && parts.some((p) => String(p).includes("main menu:"))) state.menuLogged = true;
      original(...parts);
    };
  }
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) =>
    raf((time) => {
      try {
        callback(time);
      } finally {
        if (state.menuLogged && state.menuDrawn === null) state.menuDrawn = performance.now();
      }
    });
}

// The visit's times, read in the page once its menu is drawn.
function measured() {
  const nav = performance.getEntriesByType("navigation")[0];
  const wasm = performance.getEntriesByType("resource").find((e) => e.name.endsWith("twinstar_bg.wasm"));
  const mark = performance.getEntriesByName("twinstar-instantiated")[0];
  return {
    html_ms: Math.round(nav.responseEnd),
    wasm_ms: wasm ? Math.round(wasm.responseEnd) : null,
    instantiated_ms: mark ? Math.round(mark.startTime) : null,
    menu_ms: Math.round(window.__load.menuDrawn),
    wasm_bytes: wasm ? wasm.transferSize : null,
  };
}

async function visit(context, run, kind) {
  const page = await context.newPage();
  let failure = null;
  page.on("pageerror", (e) => (failure = `page error: ${e.message.split("\n")[0]}`));
  page.on("crash", () => (failure = "the page crashed"));
  await page.addInitScript(instrument);
  await page.goto(url, { waitUntil: "commit", timeout: timeoutMs });
  await page
    .waitForFunction(() => window.__load && window.__load.menuDrawn !== null, null, {
      timeout: timeoutMs,
      polling: 20,
    })
    .catch((e) => {
      throw new Error(failure ?? `the menu was not drawn: ${e.message.split("\n")[0]}`);
    });
  const times = { run, visit: kind, ...(await page.evaluate(measured)) };
  console.log(`visit: ${JSON.stringify(times)}`);
  return { page, times };
}

// Until the page's worker has the wasm in its cache (it copies the
// client's files once installed; the next visit is served from there).
async function workerHasTheClient(page) {
  await page.waitForFunction(
    async () => {
      if (!("serviceWorker" in navigator) || !(await navigator.serviceWorker.getRegistration())) return false;
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        if (await cache.match(new URL("twinstar_bg.wasm", location.href).href)) return true;
      }
      return false;
    },
    null,
    { timeout: timeoutMs, polling: 100 },
  );
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function summary(visits) {
  const steps = (v) => ({
    page: v.html_ms,
    wasm: v.wasm_ms - v.html_ms,
    compile: v.instantiated_ms - v.wasm_ms,
    start: v.menu_ms - v.instantiated_ms,
  });
  const out = {};
  for (const kind of ["cold", "warm", "warm-again"]) {
    const of = visits.filter((v) => v.visit === kind);
    const all = of.map((v) => v.menu_ms);
    const each = of.filter((v) => v.wasm_ms !== null && v.instantiated_ms !== null).map(steps);
    out[kind] = {
      median_ms: median(all),
      all,
      steps_ms: Object.fromEntries(
        ["page", "wasm", "compile", "start"].map((k) => [k, each.length ? median(each.map((s) => s[k])) : null]),
      ),
    };
  }
  return out;
}

const visits = [];
try {
  for (let run = 1; run <= runs; run++) {
    const profile = mkdtempSync(join(tmpdir(), "twinstar-load-"));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      headless: true,
      args: FLAGS,
    });
    try {
      for (const page of context.pages()) await page.close();
      const cold = await visit(context, run, "cold");
      visits.push(cold.times);
      await workerHasTheClient(cold.page);
      await cold.page.close();
      for (const kind of ["warm", "warm-again"]) {
        const warm = await visit(context, run, kind);
        visits.push(warm.times);
        await warm.page.close();
      }
    } finally {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    }
  }
} catch (e) {
  console.error(`load_times: ${e.message.split("\n")[0]}`);
  process.exit(1);
}
console.log(`load-times: ${JSON.stringify(summary(visits))}`);
