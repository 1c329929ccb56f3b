// The browser driver of the web tests: opens a page in headless Chromium,
// prints what it logs, presses keys, and ends when a line says so.
//
//   node tests/web/drive.mjs URL [--timeout SECS] [--screenshot PATH]
//        [--keys "ArrowDown,Enter@1500,ArrowLeft@3000+400"] [--until REGEX]
//        [--size WxH] [--chromium PATH] [--flag CHROMIUM_FLAG]...
//        [--downloads DIR] [--reload-on REGEX [--reload-delay MS]]
//        [--gamepad JSON] [--touch JSON] [--phone [--dpr N] [--safe-area T,R,B,L]]
//        [--screenshot-at MS]
//        [--stamp-console] [--stop "hide@MS+LEN,pause@MS+LEN" [--stop-on REGEX]]
//        [--cpu-throttle RATE]
//
// --cpu-throttle RATE: the page's CPU slowed RATE times (1 to 20) through
// the DevTools protocol (Emulation.setCPUThrottlingRate) from before the
// page loads: a phone-class CPU is about 4x slower than this machine's
// (issue 60). Chromium throttles the page's main thread, where the wasm,
// its drawing calls and the network's handlers run.
//
// --stamp-console: also write every console line to stderr after the time
// it arrived (ISO 8601 UTC, as the native game's log lines begin), so that
// scripts time the page's events as they time a native peer's
// (scripts/nat-testbed.sh --browser --cut).
//
// --screenshot-at MS: take the --screenshot MS after the first animation
// frame (mid-match, say) instead of at the end.
//
// --gamepad JSON: the page's navigator.getGamepads is replaced (an init
// script, before the game loads) by one that reports a scripted pad with
// the W3C "standard" mapping. JSON: {"period": MS, "steps": [{"at": MS,
// "buttons": [INDEX...], "axes": [LX, LY, RX, RY], "values": {"INDEX": V}}],
// "plug_at": MS, "unplug_at": MS}. Times count from the page's first
// animation frame; the steps repeat every period (the last step that has
// started is held). The pad appears at plug_at (default 0) and is gone
// from unplug_at on (absent: never).
//
// --phone: a phone-sized page (use with --size 390x844) with a touch screen
// (isMobile, hasTouch) whose device pixel ratio is --dpr (default 1; real
// phones are 2 to 3.5). --touch JSON: touches sent through the DevTools
// protocol (Input.dispatchTouchEvent), [{"at": MS, "type": "touchStart" |
// "touchMove" | "touchEnd", "points": [[X, Y, ID]...]}] in CSS pixels,
// times from the first animation frame; a "period" key instead of a list
// repeats {"period": MS, "from": MS, "events": [...]} until the page ends.
// A point may name a button instead of X, Y: ["fire", ID] (or "focus",
// "start") is the centre the game published for it in
// window.twinstarTouchLayout; an event is skipped while there is none.
// --safe-area "T,R,B,L": the phone's safe-area insets in CSS pixels (a
// notch, the home indicator), through the DevTools protocol's
// Emulation.setSafeAreaInsetsOverride. With --phone, the last published
// touch layout is printed at the end as `touch-layout: JSON`.
//
// --stop "KIND@MS+LEN,...": the page stops running for LEN ms, MS after
// the console line matching --stop-on (default: the first animation
// frame), one stop after the other. The main thread is stopped through the
// DevTools protocol (Debugger.pause, then Debugger.resume): no animation
// frame, timer or handler runs, while the browser's network stack keeps
// receiving, as for a frozen tab or a locked phone. KIND `pause` stops it
// without warning; `hide` first makes document.visibilityState say
// "hidden" and fires visibilitychange (as switching tabs does), and after
// the stop says "visible" again and fires it. Prints `stop: ...` lines.
//
// --reload-on: once a console line matches REGEX, wait --reload-delay ms
// (default 0) and reload the page, as a player closing the tab and opening
// the same link again would (local storage survives; the game does not).
//
// stdout, one line each, as it happens:
//   console: TEXT     every console message of the page (any level)
//   dialog: TEXT      an alert() (dismissed), e.g. macroquad's "no WebGL"
//   http: STATUS URL  a response with status 400 or more
//   timing: ...       navigation start to the load event and to the first
//                     animation frame (the game's first frame); at the end,
//                     frames drawn and their rate
//   download: PATH    a file the page offered, saved (with --downloads DIR
//                     under its suggested name; before the exit)
//   TEXT              last, the console line that matched --until
//
// Exit 0 once a console line matches --until (default ^TWINSTAR-RESULT ),
// after the screenshot if one was asked for. Exit 1 on a timeout (default
// 60 s), an uncaught error in the page or a crash, with one line on stderr
// saying which (`drive: ...`); the screenshot is still taken if it can be.
// Exit 2 for bad arguments.
//
// --keys: comma-separated KEY[@MS][+HOLD]. KEY is a Playwright key name
// (ArrowDown, Enter, Escape, KeyA, Digit1, F1, ...: it sets the event's
// `code`, which macroquad reads). MS is when to press it, in ms after the
// page's first animation frame (keys sent before the game runs are lost);
// without it, 250 ms after the previous key (the first: 1000 ms). HOLD is
// how long it is held down (default 80 ms, about 5 frames). An item
// `on:REGEX` makes the keys after it wait for a console line matching
// REGEX (one seen earlier counts) and count their MS from it: what a key
// is for, not how fast a loaded machine got there.
// An item `fill:SELECTOR=TEXT[@MS]` types TEXT into the page element
// SELECTOR as a phone's keyboard would (Playwright's fill: input events on
// the element), waiting up to 10 s for the element; the keys after it
// wait for it. No such element: the run fails.
//
// --screenshot PATH: a PNG of the canvas, read inside an animation frame
// right after the game drew it (`canvas.toDataURL`; a WebGL canvas reads
// blank outside the frame that drew it, and Chromium's own --screenshot
// captures black), else Playwright's screenshot of the canvas element.
//
// Chromium: /usr/bin/chromium (or --chromium, or $CHROMIUM), headless, with
// the flags a root container needs (see DEFAULT_FLAGS) plus each --flag.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { chromium } from "playwright-core";

const DEFAULT_FLAGS = [
  "--no-sandbox", // root in a container
  "--disable-gpu", // no GPU here: WebGL in software (SwiftShader)
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--autoplay-policy=no-user-gesture-required",
];

const USAGE =
  "usage: node tests/web/drive.mjs URL [--timeout SECS] [--screenshot PATH] " +
  '[--keys "ArrowDown,Enter@1500,..."] [--until REGEX] [--size WxH] [--chromium PATH] [--flag FLAG]... [--downloads DIR]';

function usage(why) {
  console.error(`drive: ${why}\n${USAGE}`);
  process.exit(2);
}

const line = (text) => process.stdout.write(`${text}\n`);

// The --keys groups: the keys before any `on:` item count from the first
// frame (`on` null), each later group from its console line (`seen`, the
// time it came; `ready` resolves then).
function parseKeys(spec) {
  const groups = [{ on: null, keys: [] }];
  let at = 750;
  for (const item of spec.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (item.startsWith("on:")) {
      let on;
      try {
        on = new RegExp(item.slice(3));
      } catch (e) {
        usage(`bad --keys item '${item}': ${e.message}`);
      }
      const group = { on, keys: [], seen: null };
      group.ready = new Promise((resolve) => (group.resolve = resolve));
      groups.push(group);
      at = 0;
      continue;
    }
    const fill = /^fill:([^=]+)=([^@]*)(?:@(\d+))?$/.exec(item);
    if (fill) {
      at = fill[3] !== undefined ? Number(fill[3]) : at + 250;
      groups[groups.length - 1].keys.push({ fill: { selector: fill[1], text: fill[2] }, at });
      continue;
    }
    if (item.startsWith("fill:")) usage(`bad --keys item '${item}': fill:SELECTOR=TEXT[@MS]`);
    const m = /^([^@+]+)(?:@(\d+))?(?:\+(\d+))?$/.exec(item);
    if (!m) usage(`bad --keys item '${item}': KEY[@MS][+HOLD], fill:SELECTOR=TEXT[@MS] or on:REGEX`);
    at = m[2] !== undefined ? Number(m[2]) : at + 250;
    groups[groups.length - 1].keys.push({ key: m[1], at, hold: m[3] !== undefined ? Number(m[3]) : 80 });
  }
  for (const group of groups) group.keys.sort((a, b) => a.at - b.at);
  return groups;
}

let args;
try {
  args = parseArgs({
    allowPositionals: true,
    options: {
      timeout: { type: "string", default: "60" },
      screenshot: { type: "string" },
      keys: { type: "string", default: "" },
      until: { type: "string", default: "^TWINSTAR-RESULT " },
      size: { type: "string", default: "960x540" },
      chromium: { type: "string", default: process.env.CHROMIUM || "/usr/bin/chromium" },
      flag: { type: "string", multiple: true, default: [] },
      downloads: { type: "string" },
      "reload-on": { type: "string" },
      "reload-delay": { type: "string", default: "0" },
      gamepad: { type: "string" },
      touch: { type: "string" },
      phone: { type: "boolean", default: false },
      dpr: { type: "string", default: "1" },
      "safe-area": { type: "string" },
      "stamp-console": { type: "boolean", default: false },
      "screenshot-at": { type: "string" },
      stop: { type: "string", default: "" },
      "stop-on": { type: "string" },
      "cpu-throttle": { type: "string", default: "1" },
      help: { type: "boolean", short: "h" },
    },
  });
} catch (e) {
  usage(e.message);
}
if (args.values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (args.positionals.length !== 1) usage("give exactly one URL");
const url = args.positionals[0];
const timeoutSecs = Number(args.values.timeout);
if (!(timeoutSecs > 0)) usage(`bad --timeout '${args.values.timeout}'`);
let until;
try {
  until = new RegExp(args.values.until);
} catch (e) {
  usage(`bad --until: ${e.message}`);
}
const size = /^(\d+)x(\d+)$/.exec(args.values.size);
if (!size) usage(`bad --size '${args.values.size}': WxH`);
const dpr = Number(args.values.dpr);
if (!(dpr >= 1 && dpr <= 4)) usage(`bad --dpr '${args.values.dpr}': a device pixel ratio from 1 to 4`);
const cpuThrottle = Number(args.values["cpu-throttle"]);
if (!(cpuThrottle >= 1 && cpuThrottle <= 20)) {
  usage(`bad --cpu-throttle '${args.values["cpu-throttle"]}': a slow-down from 1 to 20`);
}
let safeArea = null;
if (args.values["safe-area"] !== undefined) {
  const insets = args.values["safe-area"].split(",").map(Number);
  if (insets.length !== 4 || !insets.every((v) => v >= 0 && v <= 200)) {
    usage(`bad --safe-area '${args.values["safe-area"]}': T,R,B,L in CSS pixels (0 to 200)`);
  }
  const [top, right, bottom, left] = insets;
  safeArea = { top, right, bottom, left };
}
const keyGroups = parseKeys(args.values.keys);
let reloadOn = null;
if (args.values["reload-on"] !== undefined) {
  try {
    reloadOn = new RegExp(args.values["reload-on"]);
  } catch (e) {
    usage(`bad --reload-on: ${e.message}`);
  }
}
// --stop: [{kind, at, length}] in order.
function parseStops(text) {
  const stops = [];
  for (const spec of text.split(",").filter((s) => s.trim() !== "")) {
    const m = /^(hide|pause)@(\d+)\+(\d+)$/.exec(spec.trim());
    if (!m) usage(`bad --stop '${spec}': KIND@MS+LEN with KIND hide or pause`);
    stops.push({ kind: m[1], at: Number(m[2]), length: Number(m[3]) });
  }
  return stops;
}
const stops = parseStops(args.values.stop);
let stopOn = null;
if (args.values["stop-on"] !== undefined) {
  try {
    stopOn = new RegExp(args.values["stop-on"]);
  } catch (e) {
    usage(`bad --stop-on: ${e.message}`);
  }
}

function parseJson(name) {
  const text = args.values[name];
  if (text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch (e) {
    usage(`bad --${name} JSON: ${e.message}`);
  }
}
const gamepad = parseJson("gamepad");
const touch = parseJson("touch");
const reloadDelay = Number(args.values["reload-delay"]);
if (!(reloadDelay >= 0)) usage(`bad --reload-delay '${args.values["reload-delay"]}'`);

// Runs in the page before any of its scripts: counts animation frames,
// notes the first, and captures the canvas inside a frame when asked.
function instrument() {
  const state = { frames: 0, firstFrame: null, capture: null };
  window.__drive = state;
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) =>
    raf((time) => {
      try {
        callback(time);
      } finally {
        state.frames++;
        if (state.firstFrame === null) state.firstFrame = performance.now();
        if (state.capture) {
          const done = state.capture;
          state.capture = null;
          const canvas = document.querySelector("canvas");
          try {
            done(canvas ? canvas.toDataURL("image/png") : null);
          } catch (e) {
            done(null);
          }
        }
      }
    });
}

// Runs in the page before any of its scripts: a scripted standard pad
// behind navigator.getGamepads (what a real pad reports, in its shape).
function scriptedPad(script) {
  const period = script.period || 1e12;
  const steps = (script.steps || []).slice().sort((a, b) => a.at - b.at);
  let reads = 0;
  const pad = (t) => {
    const phase = t % period;
    let step = { buttons: [], axes: [0, 0, 0, 0], values: {} };
    for (const s of steps) if (s.at <= phase) step = s;
    const buttons = [];
    for (let i = 0; i < 17; i++) {
      const value = Number((step.values || {})[i] ?? ((step.buttons || []).includes(i) ? 1 : 0));
      buttons.push({ pressed: value >= 0.5, touched: value > 0, value });
    }
    const axes = [0, 1, 2, 3].map((i) => Number((step.axes || [])[i] ?? 0));
    return {
      id: "Scripted pad (STANDARD GAMEPAD Vendor: 045e Product: 028e)",
      index: 0,
      connected: true,
      mapping: "standard",
      timestamp: performance.now(),
      axes,
      buttons,
      vibrationActuator: null,
    };
  };
  navigator.getGamepads = () => {
    reads++;
    window.__drive_pad_reads = reads;
    const first = window.__drive && window.__drive.firstFrame;
    if (first === null || first === undefined) return [null, null, null, null];
    const t = performance.now() - first;
    const plugged = t >= (script.plug_at || 0) && !(script.unplug_at !== undefined && t >= script.unplug_at);
    return [plugged ? pad(t) : null, null, null, null];
  };
}

// Sends the --touch script through the DevTools protocol.
async function sendTouches(session, t0) {
  const one = async (ev) => {
    const points = ev.points || [];
    let layout = null;
    if (points.some((p) => typeof p[0] === "string")) {
      layout = JSON.parse((await page.evaluate(() => window.twinstarTouchLayout)) || "null");
      if (!layout) {
        line(`touch: ${ev.type} skipped: the page has published no touch layout yet`);
        return;
      }
    }
    const touchPoints = points.map((p) => {
      if (typeof p[0] !== "string") return { x: p[0], y: p[1], id: p[2] ?? 0 };
      const button = layout[p[0]];
      if (!button) throw new Error(`the touch layout has no '${p[0]}'`);
      return { x: Math.round(button.x), y: Math.round(button.y), id: p[1] ?? 0 };
    });
    await session.send("Input.dispatchTouchEvent", { type: ev.type, touchPoints });
  };
  const at = async (ms) => {
    const wait = t0 + ms - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  };
  if (Array.isArray(touch)) {
    for (const ev of touch.slice().sort((a, b) => a.at - b.at)) {
      await at(ev.at);
      if (finished) return;
      await one(ev);
      line(`touch: ${ev.type} at ${ev.at} ms`);
    }
    return;
  }
  const period = Number(touch.period);
  if (!(period > 0)) return;
  for (let start = Number(touch.from || 0); !finished; start += period) {
    for (const ev of (touch.events || []).slice().sort((a, b) => a.at - b.at)) {
      await at(start + ev.at);
      if (finished) return;
      await one(ev).catch(() => {});
    }
  }
}

let browser;
let page;
let finished = false;
// Downloads being saved: the exit waits for them.
const saving = [];

let shotTaken = false;
async function screenshot() {
  const path = args.values.screenshot;
  if (!path || !page || shotTaken) return;
  shotTaken = true;
  try {
    const data = await Promise.race([
      page.evaluate(() => new Promise((resolve) => (window.__drive.capture = resolve))),
      new Promise((resolve) => setTimeout(() => resolve(null), 2000)),
    ]);
    if (data && data.startsWith("data:image/png;base64,")) {
      writeFileSync(path, Buffer.from(data.slice(22), "base64"));
    } else {
      // No frame came (the game stopped drawing): the element as composited.
      await page.locator("canvas").first().screenshot({ path, timeout: 5000 });
    }
    line(`screenshot: ${path}`);
  } catch (e) {
    console.error(`drive: could not take the screenshot: ${e.message.split("\n")[0]}`);
  }
}

async function timing() {
  if (!page) return;
  try {
    const t = await page.evaluate(() => ({
      frames: window.__drive.frames,
      first: window.__drive.firstFrame,
      now: performance.now(),
    }));
    if (t.first !== null) {
      const secs = (t.now - t.first) / 1000;
      const fps = secs > 0 ? (t.frames - 1) / secs : 0;
      line(`timing: first frame ${Math.round(t.first)} ms after navigation start`);
      line(`timing: ${t.frames} frames in ${secs.toFixed(1)} s since the first (${fps.toFixed(1)} per second)`);
    } else {
      line("timing: no animation frame was drawn");
    }
  } catch {
    // The page is gone; nothing to report.
  }
}

async function finish(code, why, matched) {
  if (finished) return;
  finished = true;
  clearTimeout(deadline);
  await Promise.allSettled(saving);
  await screenshot();
  await timing();
  if (args.values.phone && page) {
    const layout = await Promise.race([
      page.evaluate(() => window.twinstarTouchLayout || null).catch(() => null),
      new Promise((resolve) => setTimeout(() => resolve(null), 2000)),
    ]);
    if (layout) line(`touch-layout: ${layout}`);
  }
  if (matched !== undefined) line(matched);
  if (why) console.error(`drive: ${why}`);
  // A browser that will not close must not keep the test waiting.
  await Promise.race([browser?.close(), new Promise((r) => setTimeout(r, 5000))]).catch(() => {});
  process.exit(code);
}

const deadline = setTimeout(
  () => finish(1, `timeout: no console line matched /${until.source}/ within ${timeoutSecs} s`),
  timeoutSecs * 1000,
);

// Sets what document.visibilityState says and fires visibilitychange, as a
// browser does when its tab goes to the background and comes back.
async function setVisibility(state) {
  await page.evaluate((state) => {
    Object.defineProperty(document, "visibilityState", { get: () => state, configurable: true });
    Object.defineProperty(document, "hidden", { get: () => state === "hidden", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  }, state);
}

let stopsStarted = false;
// Runs the --stop list, timed from now.
async function runStops() {
  if (stopsStarted || stops.length === 0) return;
  stopsStarted = true;
  const t0 = Date.now();
  const session = await page.context().newCDPSession(page);
  await session.send("Debugger.enable");
  for (const { kind, at, length } of stops) {
    const wait = t0 + at - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (finished) return;
    if (kind === "hide") await setVisibility("hidden");
    await session.send("Debugger.pause");
    line(`stop: ${kind} at ${Date.now() - t0} ms for ${length} ms`);
    await new Promise((r) => setTimeout(r, length));
    await session.send("Debugger.resume");
    if (kind === "hide") await setVisibility("visible");
    line(`stop: running again at ${Date.now() - t0} ms`);
  }
}

function startStops() {
  runStops().catch((e) => {
    if (!finished) finish(1, `stop failed: ${e.message.split("\n")[0]}`);
  });
}

async function pressKeys() {
  const first = await page.waitForFunction(() => window.__drive.firstFrame, null, {
    timeout: timeoutSecs * 1000,
    polling: 50,
  });
  const t0 = Date.now();
  line(`timing: first frame ${Math.round(await first.jsonValue())} ms after navigation start`);
  await page.locator("canvas").first().focus().catch(() => {});
  if (!stopOn) startStops();
  if (args.values["screenshot-at"] !== undefined) {
    const ms = Number(args.values["screenshot-at"]);
    setTimeout(() => screenshot().catch(() => {}), ms);
  }
  if (touch) {
    const session = await page.context().newCDPSession(page);
    sendTouches(session, t0).catch((e) => {
      if (!finished) console.error(`drive: touch failed: ${e.message.split("\n")[0]}`);
    });
  }
  for (const group of keyGroups) {
    let base = t0;
    if (group.on) {
      base = await group.ready;
      if (finished) return;
      line(`keys: after the line matching ${group.on}`);
    }
    for (const { key, fill, at, hold } of group.keys) {
      const wait = base + at - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (finished) return;
      if (fill) {
        try {
          await page.fill(fill.selector, fill.text, { timeout: 10000 });
        } catch (e) {
          await finish(1, `fill ${fill.selector}: ${e.message.split("\n")[0]}`);
          return;
        }
        line(`fill: ${fill.selector} = ${fill.text} at ${at} ms`);
        continue;
      }
      await page.keyboard.down(key);
      await new Promise((r) => setTimeout(r, hold));
      await page.keyboard.up(key);
      line(`key: ${key} at ${at} ms (+${hold})`);
    }
  }
}

try {
  browser = await chromium.launch({
    executablePath: args.values.chromium,
    headless: true,
    args: [...DEFAULT_FLAGS, ...args.values.flag],
  });
  browser.on("disconnected", () => finish(1, "the browser closed or crashed"));
  const context = await browser.newContext({
    viewport: { width: Number(size[1]), height: Number(size[2]) },
    acceptDownloads: Boolean(args.values.downloads),
    ...(args.values.phone
      ? { isMobile: true, hasTouch: true, deviceScaleFactor: dpr }
      : {}),
  });
  page = await context.newPage();
  page.on("download", (download) => {
    if (!args.values.downloads) return;
    const path = join(args.values.downloads, download.suggestedFilename());
    saving.push(
      download
        .saveAs(path)
        .then(() => line(`download: ${path}`))
        .catch((e) => console.error(`drive: could not save ${path}: ${e.message}`)),
    );
  });
  if (safeArea) {
    const session = await context.newCDPSession(page);
    await session.send("Emulation.setSafeAreaInsetsOverride", { insets: safeArea });
  }
  if (cpuThrottle !== 1) {
    const session = await context.newCDPSession(page);
    await session.send("Emulation.setCPUThrottlingRate", { rate: cpuThrottle });
    line(`cpu-throttle: ${cpuThrottle}x`);
  }
  await page.addInitScript(instrument);
  if (gamepad) await page.addInitScript(scriptedPad, gamepad);
  page.on("console", (message) => {
    const text = message.text();
    // Chromium leaves the resource out of this one; its location has it.
    const where = text.startsWith("Failed to load resource") ? ` (${message.location().url})` : "";
    line(`console: ${text}${where}`);
    if (args.values["stamp-console"]) process.stderr.write(`${new Date().toISOString()} ${text}\n`);
    if (!finished && until.test(text)) finish(0, null, text);
    for (const group of keyGroups) {
      if (group.on && group.seen === null && group.on.test(text)) {
        group.seen = Date.now();
        group.resolve(group.seen);
      }
    }
    if (!finished && stopOn && stopOn.test(text)) {
      stopOn = null;
      startStops();
    }
    if (!finished && reloadOn && reloadOn.test(text)) {
      reloadOn = null;
      setTimeout(() => {
        line(`reload: after '${text.slice(0, 80)}' + ${reloadDelay} ms`);
        page.reload({ waitUntil: "commit" }).catch((e) => finish(1, `reload failed: ${e.message}`));
      }, reloadDelay);
    }
  });
  page.on("pageerror", (error) => {
    line(`console: [uncaught] ${error.message}`);
    finish(1, `page error: ${error.message.split("\n")[0]}`);
  });
  page.on("crash", () => finish(1, "the page crashed"));
  page.on("dialog", (dialog) => {
    line(`dialog: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  page.on("response", (response) => {
    if (response.status() >= 400) line(`http: ${response.status()} ${response.url()}`);
  });
  page.on("load", async () => {
    try {
      const ms = await page.evaluate(
        () => performance.getEntriesByType("navigation")[0]?.loadEventStart ?? performance.now(),
      );
      line(`timing: load event ${Math.round(ms)} ms after navigation start`);
    } catch {
      // Navigated away or closed.
    }
  });
  // Chromium aborts a navigation with ERR_NETWORK_CHANGED when it sees its
  // interfaces change under it (seen once in a NAT testbed namespace set up
  // just before); a player would press reload, so try again, twice at most.
  for (let tries = 1; ; tries++) {
    try {
      await page.goto(url, { waitUntil: "commit", timeout: timeoutSecs * 1000 });
      break;
    } catch (e) {
      if (tries >= 3 || !e.message.includes("ERR_NETWORK_CHANGED")) throw e;
      line(`navigation: ERR_NETWORK_CHANGED, trying again (${tries})`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  await pressKeys();
} catch (e) {
  if (!finished) await finish(1, e.message.split("\n")[0]);
}
