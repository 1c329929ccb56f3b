// The inspector's page (web/inspect.html, docs/inspect.md): loads one or
// two peers' recordings (picked, dropped, or a ranked replay by
// #replay=ID), shows the report of the inspector's wasm (crates/
// inspect-web: the same JSON as `twinstar inspect --json`, and its SVG
// timeline), and a cursor on the timeline that draws each peer's world
// at that frame, re-simulated from its inputs.
//
// window.twinstarInspect is the page's state, for tests: ready, error
// (the one line shown, or null), report, frame, worlds (what was drawn,
// per peer) and drawn (a hash of both canvases' pixels).

import init, { Inspector } from "./twinstar_inspect.js";

const $ = (id) => document.getElementById(id);
const state = (window.twinstarInspect = { ready: false, error: null, report: null, frame: 0, worlds: [], drawn: null });
let inspector = null;
let geometry = null;

// The game's colours: player 1, player 2, enemies' shots.
const PLAYER_COLOURS = ["#59d9ff", "#ff9e33"];
const ENEMY_SHOT = "#ff4fd8";

function say(text, failed = false) {
  $("status").textContent = text;
  $("status").classList.toggle("failed", failed);
  state.error = failed ? text : null;
  console.log(`inspect: ${text}`);
}

// A peer's files sorted by kind: the replay, its sidecar, desync reports.
function classify(files) {
  const peer = { replay: null, sidecar: null, reports: [] };
  for (const file of files) {
    if (file.name.endsWith(".tsn")) peer.sidecar = file;
    else if (file.name.endsWith(".json")) peer.reports.push(file);
    else peer.replay = file;
  }
  return peer;
}

const bytesOf = async (file) => new Uint8Array(await file.arrayBuffer());

// A fresh inspector holding the peers' files ([{replay, sidecar, reports}]
// with File or {name, bytes} values); throws one line.
async function inspectorOf(peers) {
  const next = new Inspector();
  for (const peer of peers) {
    const sidecar = peer.sidecar ? await bytesOf(peer.sidecar) : undefined;
    next.add_peer(peer.replay.name, await bytesOf(peer.replay), peer.sidecar?.name, sidecar);
  }
  for (const [i, peer] of peers.entries()) {
    for (const report of peer.reports) next.add_desync_report(i, await bytesOf(report));
  }
  return next;
}

// Loads what the pickers hold now.
async function loadPicked() {
  const peers = ["a", "b"].map((p) => classify($(`peer-${p}`).files));
  ["a", "b"].forEach((p, i) => {
    const names = [...$(`peer-${p}`).files].map((f) => f.name).join(", ");
    $(`names-${p}`).textContent = names || "no files";
    if (names && !peers[i].replay) peers[i].missing = true;
  });
  const missing = peers.findIndex((p) => p.missing);
  if (missing >= 0) return say(`${"AB"[missing]}: no replay among the files (pick its .tsr)`, true);
  await load(peers.filter((p) => p.replay));
}

// Each load's number: a load that a newer one overtook shows nothing.
let loads = 0;

async function load(peers) {
  if (peers.length === 0) return;
  const mine = ++loads;
  state.ready = false;
  say("re-simulating…");
  let next;
  try {
    next = await inspectorOf(peers);
    if (mine !== loads) return next.free();
    state.report = JSON.parse(next.analyze());
  } catch (e) {
    next?.free();
    return mine === loads && say(String(e.message ?? e), true);
  }
  inspector?.free();
  inspector = next;
  geometry = JSON.parse(inspector.geometry());
  render(peers.length);
  const start = state.report.first_divergent_frame ?? 0;
  seek(start);
  state.ready = true;
  say(`loaded ${peers.map((p) => p.replay.name).join(" and ")}: ${state.report.frames} frames`);
}

function render(count) {
  const report = state.report;
  $("summary").innerHTML = "";
  if (count === 2) $("summary").append(...summary(report));
  $("timeline").innerHTML = inspector.timeline();
  const svg = $("timeline").querySelector("svg");
  const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
  line.id = "cursor-line";
  line.setAttribute("y1", "14");
  line.setAttribute("y2", svg.getAttribute("height"));
  svg.append(line);
  svg.addEventListener("pointerdown", (e) => {
    svg.setPointerCapture(e.pointerId);
    seekTo(e);
  });
  svg.addEventListener("pointermove", (e) => e.buttons && seekTo(e));
  $("world-b").parentElement.hidden = count < 2;
  $("figures").textContent = JSON.stringify(report, null, 2);
}

// The first divergence in words and its fields' table.
function summary(report) {
  const heading = document.createElement("h2");
  const frame = report.first_divergent_frame;
  heading.id = "first-divergent-frame";
  heading.textContent = frame === null ? "The recordings are identical" : `First divergent frame: ${frame}`;
  if (frame === null) return [heading];
  const words = document.createElement("p");
  words.textContent = `${report.divergence.kind} (fields from ${report.fields_from}; re-simulation reproduces A: ${report.reproduces[0]}, B: ${report.reproduces[1]})`;
  const table = document.createElement("table");
  table.id = "fields";
  table.append(row("th", ["field", "A", "B"]));
  for (const f of report.fields) table.append(row("td", [f.path, f.a, f.b]));
  return [heading, words, table];
}

function row(cell, texts) {
  const tr = document.createElement("tr");
  for (const text of texts) {
    const c = document.createElement(cell);
    c.textContent = text;
    tr.append(c);
  }
  return tr;
}

// The frame under a pointer on the timeline.
function seekTo(event) {
  const svg = $("timeline").querySelector("svg");
  const box = svg.getBoundingClientRect();
  const x = ((event.clientX - box.left) * svg.viewBox.baseVal.width) / box.width;
  seek(Math.round(((x - geometry.left) / geometry.width) * geometry.frames));
}

function seek(frame) {
  if (!inspector) return;
  const frames = inspector.frames();
  frame = Math.max(0, Math.min(frames, frame));
  state.frame = frame;
  const x = geometry.left + (geometry.width * frame) / Math.max(1, frames);
  const line = $("cursor-line");
  line.setAttribute("x1", x.toFixed(1));
  line.setAttribute("x2", x.toFixed(1));
  const peers = state.report.peers.length;
  state.worlds = [];
  for (let i = 0; i < peers; i++) {
    const world = JSON.parse(inspector.world_at(i, frame));
    state.worlds.push(world);
    draw($(i === 0 ? "world-a" : "world-b"), world);
  }
  state.drawn = canvasHash(peers);
  $("frame-line").textContent = `frame ${frame} of ${frames}: ${state.worlds
    .map((w, i) => `${"AB"[i]}: ${w.inputs ? w.inputs.map(inputWords).join(", ") : "no inputs yet"}`)
    .join("; ")}`;
}

// Player i's input's 16 bits in words: moves, buttons, aim.
function inputWords(bits, i) {
  const names = ["up", "down", "left", "right", "fire", "focus", "start", "bomb"];
  const held = names.filter((_, i) => bits & (1 << i));
  if (bits & (1 << 13)) held.push(`aim ${(bits >> 8) & 31}`);
  return `P${i + 1} ${held.join("+") || "-"}`;
}

// Each canvas's context, read back for `drawn` too.
const context = (canvas) => canvas.getContext("2d", { willReadFrequently: true });

function draw(canvas, world) {
  const g = context(canvas);
  g.fillStyle = "#000";
  g.fillRect(0, 0, canvas.width, canvas.height);
  for (const [x, y] of world.markers) circle(g, x, y, 9, "#665", false);
  for (const [x, y, kind] of world.pickups) {
    g.fillStyle = "#6e6";
    g.fillRect(x - 4, y - 4, 8, 8);
    g.fillText(String(kind), x + 6, y + 3);
  }
  for (const [x, y, kind, , windup] of world.enemies) {
    circle(g, x, y, 6 + (kind % 4) * 2, windup ? "#ffdd55" : "#e84a5f", true);
  }
  for (const [x, y, owner] of world.bullets) {
    g.fillStyle = owner < 2 ? PLAYER_COLOURS[owner] : ENEMY_SHOT;
    g.fillRect(x - 1.5, y - 1.5, 3, 3);
  }
  world.players.forEach((p, i) => ship(g, p, PLAYER_COLOURS[i]));
  g.fillStyle = "#dde";
  g.font = "12px monospace";
  g.fillText(`frame ${world.frame}  score ${world.score}  wave ${world.wave}${world.game_over ? "  game over" : ""}`, 6, 14);
}

function circle(g, x, y, r, colour, fill) {
  g.beginPath();
  g.arc(x, y, r, 0, 2 * Math.PI);
  if (fill) {
    g.fillStyle = colour;
    g.fill();
  } else {
    g.strokeStyle = colour;
    g.stroke();
  }
}

// A player's ship: a triangle along its facing (64 directions, 48 up),
// hollow when downed or out.
function ship(g, p, colour) {
  const a = (p.facing * 2 * Math.PI) / 64;
  const point = (r, da) => [p.x + r * Math.cos(a + da), p.y + r * Math.sin(a + da)];
  g.beginPath();
  g.moveTo(...point(10, 0));
  g.lineTo(...point(7, 2.4));
  g.lineTo(...point(7, -2.4));
  g.closePath();
  if (p.alive && !p.downed) {
    g.fillStyle = colour;
    g.fill();
  } else {
    g.strokeStyle = colour;
    g.stroke();
  }
}

// FNV-1a of both canvases' pixels: the test's "the drawing changed".
function canvasHash(peers) {
  let h = 0x811c9dc5;
  for (let i = 0; i < peers; i++) {
    const c = $(i === 0 ? "world-a" : "world-b");
    const pixels = context(c).getImageData(0, 0, c.width, c.height).data;
    for (let j = 0; j < pixels.length; j += 4) h = Math.imul(h ^ pixels[j] ^ (pixels[j + 1] << 8) ^ (pixels[j + 2] << 16), 16777619);
  }
  return (h >>> 0).toString(16);
}

// #replay=ID: a ranked replay of the server this page came from.
async function loadLinked() {
  const id = new URLSearchParams(location.hash.slice(1)).get("replay");
  if (!id) return false;
  say(`downloading replay ${id}…`);
  try {
    const response = await fetch(new URL(`replays/${encodeURIComponent(id)}`, location.href));
    if (!response.ok) throw new Error(`replay ${id}: ${(await response.text()).trim() || response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const file = { name: `${id}.tsr`, arrayBuffer: async () => bytes };
    await load([{ replay: file, sidecar: null, reports: [] }]);
  } catch (e) {
    say(String(e.message ?? e), true);
  }
  return true;
}

function listen() {
  for (const p of ["a", "b"]) {
    $(`peer-${p}`).addEventListener("change", () => loadPicked());
    const box = $(`drop-${p}`);
    box.addEventListener("dragover", (e) => {
      e.preventDefault();
      box.classList.add("over");
    });
    box.addEventListener("dragleave", () => box.classList.remove("over"));
    box.addEventListener("drop", (e) => {
      e.preventDefault();
      box.classList.remove("over");
      $(`peer-${p}`).files = e.dataTransfer.files;
      loadPicked();
    });
  }
  document.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    e.preventDefault();
    const step = (e.shiftKey ? 60 : 1) * (e.key === "ArrowLeft" ? -1 : 1);
    seek(state.frame + step);
  });
}

try {
  await init();
  listen();
  if (!(await loadLinked())) say("pick one or two peers' recordings");
} catch (e) {
  say(`the inspector did not load: ${e.message ?? e}`, true);
}
