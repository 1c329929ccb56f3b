// The inspector's page in headless Chromium (tests/it/browser/inspect_page.rs
// reads the lines and judges them): picks each peer's files in its file
// input (the DevTools protocol's DOM.setFileInputFiles), waits for the
// report, then moves the cursor by a click on the timeline and by keys.
//
//   node tests/web/inspect.mjs URL [--a FILE,FILE.. [--b FILE,...]] [--junk FILE]
//        [--timeout SECS] [--chromium PATH]
//
// Without --a, the page loads what its URL names (`#replay=ID`).
//
// stdout, one line each (JSON after the colon):
//   console: TEXT    every console message of the page
//   loaded: {"report": ..., "heading": TEXT, "fields": [[path, a, b]...],
//            "frame": N}                     once the report is shown
//   cursor: {"how": "click"|"keys", "frame": N, "drawn": HASH, "worlds": [...]}
//                                           after each cursor move
//   junk: {"error": TEXT, "lines": N}       with --junk: FILE as A's only file
// Exit 0 when done; 1 with `drive: ...` on stderr on a timeout or an
// uncaught error in the page.

import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    a: { type: "string" },
    b: { type: "string" },
    junk: { type: "string" },
    timeout: { type: "string", default: "60" },
    chromium: { type: "string", default: process.env.CHROMIUM || "/usr/bin/chromium" },
  },
});
if (positionals.length !== 1 || (values.b && !values.a)) {
  console.error("usage: node tests/web/inspect.mjs URL [--a FILES [--b FILES]] [--junk FILE]");
  process.exit(2);
}
const timeoutMs = Number(values.timeout) * 1000;
const fail = (why) => {
  console.error(`drive: ${why}`);
  process.exit(1);
};
setTimeout(() => fail(`timeout after ${values.timeout} s`), timeoutMs).unref();

const browser = await chromium.launch({ executablePath: values.chromium, headless: true });
const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
page.on("console", (m) => console.log(`console: ${m.text()}`));
page.on("pageerror", (e) => fail(`uncaught error in the page: ${e.message}`));
const cdp = await page.context().newCDPSession(page);

// Sets a file input's files by the DevTools protocol (which fires its
// change event, as a person's pick does).
async function pick(selector, files) {
  const { root } = await cdp.send("DOM.getDocument");
  const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector });
  await cdp.send("DOM.setFileInputFiles", { nodeId, files });
}

const inspectState = () => page.evaluate(() => window.twinstarInspect);
const cursor = async (how) => {
  const s = await inspectState();
  console.log(`cursor: ${JSON.stringify({ how, frame: s.frame, drawn: s.drawn, worlds: s.worlds })}`);
};

await page.goto(positionals[0]);
if (values.a) {
  await page.waitForFunction(() => window.twinstarInspect && /pick/.test(document.getElementById("status").textContent));
  await pick("#peer-a", values.a.split(","));
}
if (values.b) {
  await page.waitForFunction(() => window.twinstarInspect.ready || window.twinstarInspect.error);
  await pick("#peer-b", values.b.split(","));
  await page.waitForFunction(() => window.twinstarInspect.report?.peers.length === 2 || window.twinstarInspect.error);
}
await page.waitForFunction(() => window.twinstarInspect?.ready || window.twinstarInspect?.error, null, { timeout: timeoutMs });
const loaded = await page.evaluate(() => ({
  report: window.twinstarInspect.report,
  error: window.twinstarInspect.error,
  heading: document.getElementById("first-divergent-frame")?.textContent ?? null,
  fields: [...document.querySelectorAll("#fields tr")].slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)),
  frame: window.twinstarInspect.frame,
}));
console.log(`loaded: ${JSON.stringify(loaded)}`);

// A click a third of the way along the timeline, then ten frames on by keys.
const svg = await page.$("#timeline svg");
if (svg) {
  const box = await svg.boundingBox();
  const geometry = await page.evaluate(() => ({ w: document.querySelector("#timeline svg").viewBox.baseVal.width }));
  const scale = box.width / geometry.w;
  await page.mouse.click(box.x + (130 + 1100 / 3) * scale, box.y + 40);
  await cursor("click");
  for (let i = 0; i < 10; i++) await page.keyboard.press("ArrowRight");
  await cursor("keys");
}

if (values.junk) {
  // B's input emptied (as its browser's own clear does), then junk as A.
  await page.evaluate(() => {
    const b = document.getElementById("peer-b");
    b.value = "";
    b.dispatchEvent(new Event("change"));
  });
  await page.waitForFunction(() => window.twinstarInspect.ready && window.twinstarInspect.report.peers.length === 1);
  await pick("#peer-a", [values.junk]);
  await page.waitForFunction(() => window.twinstarInspect.error);
  const junk = await page.evaluate(() => ({
    error: window.twinstarInspect.error,
    lines: document.getElementById("status").textContent.split("\n").length,
  }));
  console.log(`junk: ${JSON.stringify(junk)}`);
}
await browser.close();
process.exit(0);
