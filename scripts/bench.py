#!/usr/bin/env python3
"""The benchmark report behind scripts/bench.sh (run that, not this).

    python3 scripts/bench.py --bin BIN --out DIR --report FILE [--quick]

Measures the simulation (criterion, benches/sim.rs), replay verification,
connect time and payload (scripts/net_bench.py connect), the memory of a
headless peer, and the input-delay policy on a grid of simulated links (two
headless bot peers per run), once with the scripted bots and once with the
human-like bot on both sides, judged by the criterion stated below, and
what spectators cost the players and how fast a late one catches up
(scripts/net_bench.py spectators, catch-up). Writes the report (Markdown tables, machine,
date, exact commands) and PNG plots into DIR, and prints one JSON line of
headline figures last. Plots need matplotlib; without it they are skipped
with a warning and everything else still runs.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import random
import shlex
import socket
import statistics
import subprocess
import sys
import threading
import time

from net_bench import vm_hwm_kib

# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
os.environ["TWINSTAR_LAN_DISCOVERY"] = "off"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRAME_MS = 1000.0 / 60.0
POLICIES = ["auto", "0", "2", "4"]
RTTS = [0, 40, 80, 120, 160, 200]
JITTERS = [0, 20]
LOSSES = [0, 5]
# Every run of the grid plays the same seed: the bots' inputs, and so the
# frames where a prediction can fail, are the same for every policy.
GRID_SEED = 1
ROOM_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
# A fixed delay dominates auto only when it is better by more than the run
# to run noise: this much lower latency and this much fewer rollback frames
# per frame (absolute, or relative to auto's, whichever is larger).
LATENCY_TOLERANCE_MS = 1.0
ROLLBACK_TOLERANCE_ABS = 0.005
ROLLBACK_TOLERANCE_REL = 0.10

# The second grid: human-like input on both peers (`--bot-style human`), the
# same links, auto against fixed delays 0-4 and the Fightcade/nullDC ping
# table. Its criterion, stated before the run (BENCHMARKS.md says why):
HUMAN_POLICIES = ["auto", "0", "1", "2", "3", "4", "table"]
HUMAN_BOT_STYLE = "human"
# A correction of this many frames is what players see as teleporting: at
# 4 units a frame the ship jumps 12 units, its own diameter (radius 6).
TELEPORT_FRAMES = 3
# So a policy keeps rollback acceptable when its p99 rollback (over both
# peers' frames) is at most this...
HUMAN_P99_LIMIT = TELEPORT_FRAMES - 1
# ...and among those auto must have the lowest effective latency, within
# this: the most that skipped and stalled frames moved a fixed delay's
# latency in the runs behind this criterion was ~0.1 ms, and one frame of
# delay is 16.7 ms, so 1 ms separates noise from any real difference.
HUMAN_LATENCY_TOLERANCE_MS = 1.0
# Where no policy keeps p99 within the limit: auto within this many frames
# of the lowest p99, at no more latency than the policy that achieves it.
HUMAN_FALLBACK_P99_SLACK = 1
# Frames per run and runs in parallel. 1800 frames as in the first grid:
# 3600 frames per cell and policy, so p99 rests on the worst 36. A match
# costs ~12 % of one core (2.5 s of CPU for both peers over 32 s), so four
# at once use half a core of the two: 168 runs in ~25 min, and the whole
# bench.sh stays near an hour (the first grid runs two at a time, as before).
HUMAN_FRAMES = 1800
HUMAN_JOBS = 4

COMMANDS = []  # (what, command line) for the report
PRINT_LOCK = threading.Lock()
STARTED = time.time()


def log(message):
    # The time since the start on every line, so a slow CI run shows which
    # part of the benchmark grew.
    with PRINT_LOCK:
        print(f"bench: [{time.time() - STARTED:4.0f} s] {message}", file=sys.stderr, flush=True)


def record(what, argv, env=None):
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
    line = " ".join(shlex.quote(str(a)) for a in argv)
    COMMANDS.append((what, f"{prefix} {line}".strip()))


def rel(path):
    return os.path.relpath(path, ROOT)


# ---------------------------------------------------------------- simulation

SIM_OPS = ["step", "save", "load", "checksum", "save+checksum", "rollback8", "baseline_copy+hash"]


def run_sim(args):
    home = os.path.join(args.work, "criterion")
    # The binary's profile (release, not `bench`, which adds debug info):
    # the same code, and it reuses the dependencies bench.sh's build built.
    argv = ["cargo", "bench", "--locked", "--profile", args.profile, "--bench", "sim", "--"]
    if args.quick:
        argv += ["--warm-up-time", "0.3", "--measurement-time", "0.7"]
    env = {"CRITERION_HOME": home}
    record("simulation (criterion)", argv, env)
    log("simulation benchmarks (criterion)")
    proc = subprocess.run(argv, cwd=ROOT, env={**os.environ, **env},
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"bench: cargo bench failed:\n{proc.stderr[-3000:]}")
    meta = {}
    for line in proc.stderr.splitlines():
        if line.startswith("bench-meta "):
            m = json.loads(line[len("bench-meta "):])
            meta[m["name"]] = m

    def estimate(*parts):
        path = os.path.join(home, *parts, "new", "estimates.json")
        with open(path) as f:
            e = json.load(f)
        return e["median"]["point_estimate"] / 1000.0  # ns -> us

    presets = {}
    for preset in ["default", "stress"]:
        ops = {op: estimate(preset, op) for op in SIM_OPS}
        ops["meta"] = meta.get(preset, {})
        ops["ratio"] = ops["save+checksum"] / ops["baseline_copy+hash"]
        presets[preset] = ops
    scaling = []
    for name, m in sorted(meta.items()):
        if name.startswith("scaling/step/"):
            cap = name.rsplit("/", 1)[1]
            scaling.append({
                "enemy_cap": int(cap),
                "enemies": m["enemies"],
                "bullets": m["bullets"],
                "entities": m["enemies"] + m["bullets"],
                "step_us": estimate("scaling", "step", cap),
            })
    scaling.sort(key=lambda s: s["entities"])
    return {"presets": presets, "scaling": scaling}


def run_verify(args):
    """Replay verification speed, as a multiple of real time."""
    results = {}
    for preset, frames in [("default", 18000 if args.quick else 108000),
                           ("stress", 1200 if args.quick else 7200)]:
        path = os.path.join(args.work, f"verify-{preset}.tsr")
        if os.path.exists(path):
            os.remove(path)
        rec = [args.bin, "local", "--headless", "--frames", str(frames), "--seed", "7",
               "--preset", preset, "--record", path, "--json"]
        record(f"replay to verify ({preset})", rec)
        subprocess.run(rec, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ver = [args.bin, "replay", path, "--headless", "--verify", "--json"]
        record(f"verify speed ({preset}, median of runs)", ver)
        walls = []
        for _ in range(1 if args.quick else 3):
            start = time.perf_counter()
            out = subprocess.run(ver, check=True, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True).stdout
            walls.append(time.perf_counter() - start)
            summary = json.loads(out.strip().splitlines()[-1])
            assert summary["mismatches"] == 0, summary
        wall = statistics.median(walls)
        results[preset] = {"frames": frames, "wall_s": wall,
                           "x_realtime": frames / 60.0 / wall}
        log(f"verify {preset}: {results[preset]['x_realtime']:.0f}x real time")
    return results


# ------------------------------------------------------------------- network

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`twinstar serve` on a free loopback port, shared by every run."""

    def __init__(self, binary):
        port = free_port()
        self.url = f"ws://127.0.0.1:{port}"
        self.proc = subprocess.Popen([binary, "serve", "--bind", f"127.0.0.1:{port}"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("bench: the signaling server did not start")

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def play(args, server, frames, extra=(), seed=None):
    """One headless bot match; returns (host, join) summaries plus the peak
    resident memory (VmHWM, KiB) seen while it ran. Raises on failure.
    `seed` (the host's; the joiner uses it too) fixes both bots' inputs."""
    room = "".join(random.choice(ROOM_ALPHABET) for _ in range(7))
    common = ["--server", server.url, "--stun", "none", "--headless", "--bot",
              "--frames", str(frames), "--json", "--no-record", "--timeout", "30", *extra]
    seeded = ["--seed", str(seed)] if seed is not None else []
    host = subprocess.Popen([args.bin, "host", "--room", room, *seeded, *common],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.1)
    join = subprocess.Popen([args.bin, "join", room, *common],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    hwm = 0
    outputs = {}

    def collect(name, proc):
        outputs[name] = proc.communicate(timeout=frames / 60 + 90)

    threads = [threading.Thread(target=collect, args=(n, p)) for n, p in
               [("host", host), ("join", join)]]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        for p in (host, join):
            v = vm_hwm_kib(p.pid)
            if v:
                hwm = max(hwm, v)
        time.sleep(0.5)
    results = []
    failed = [(n, p.returncode, outputs[n][1].strip().splitlines()[-1:])
              for n, p in [("host", host), ("join", join)] if p.returncode != 0]
    if failed:
        raise RuntimeError("; ".join(f"{n} exit {rc}: {' '.join(e)}" for n, rc, e in failed))
    for name in ("host", "join"):
        results.append(json.loads(outputs[name][0].strip().splitlines()[-1]))
    if results[0]["checksum"] != results[1]["checksum"]:
        raise RuntimeError("the peers ended with different checksums")
    return results[0], results[1], hwm


def run_connect(args):
    runs, frames = (10, 180) if args.quick else (10, 600)
    argv = [sys.executable, os.path.join(ROOT, "scripts", "net_bench.py"), "connect",
            "--runs", str(runs), "--frames", str(frames)]
    env = {"TWINSTAR_BIN": args.bin}
    record("connect time and payload (net_bench.py)", ["python3", rel(argv[1]), *argv[2:]], env)
    log(f"connect: {runs} matches")
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, text=True,
                         env={**os.environ, **env}).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_browser_join(args):
    """A browser (headless Chromium) joining a native host, room code to
    first frame (scripts/web_bench.py --join-only); None with the reason
    where the web client, the driver or Chromium is missing or it fails:
    the rest of the report does not need a browser."""
    runs = 3 if args.quick else 5
    argv = [sys.executable, os.path.join(ROOT, "scripts", "web_bench.py"), "--join-only",
            "--runs", str(runs), "--frames", "300"]
    env = {"TWINSTAR_BIN": args.bin}
    record("browser join (web_bench.py)", ["python3", rel(argv[1]), *argv[2:]], env)
    log(f"browser join: {runs} matches")
    try:
        proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, **env}, timeout=900)
        if proc.returncode != 0:
            return None, (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]
        return json.loads(proc.stdout.strip().splitlines()[-1]), None
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as e:
        return None, str(e)[:300]


def run_page_throttled(args):
    """The page on a phone-class CPU (Chromium's CPU slowed 4x): the
    simulation's and the drawing's time per display frame in a stress
    synctest, a default local match and an online match against a native
    host over a 100 ms, 2 %-loss simulated link (scripts/web_bench.py
    --throttled-only); None with the reason where it cannot run."""
    frames = 600 if args.quick else 12000
    argv = [sys.executable, os.path.join(ROOT, "scripts", "web_bench.py"), "--throttled-only",
            "--cpu-throttle", "4", "--frames", str(frames)]
    env = {"TWINSTAR_BIN": args.bin}
    record("the page at 4x CPU throttling (web_bench.py)", ["python3", rel(argv[1]), *argv[2:]], env)
    log(f"page at 4x CPU throttling: {frames} frames each")
    try:
        proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, **env}, timeout=600 + frames // 5)
        if proc.returncode != 0:
            return None, (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]
        return json.loads(proc.stdout.strip().splitlines()[-1]), None
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as e:
        return None, str(e)[:300]


def run_reference(args, server):
    """One clean match on loopback: payload per direction and peak memory."""
    frames = 300 if args.quick else 1800
    record("payload per direction, resident memory (one match, /proc/PID/status VmHWM)",
           [args.bin, "host|join", "--headless", "--bot", "--frames", frames, "--json",
            "--no-record", "--stun", "none", "--server", "ws://127.0.0.1:PORT"])
    log("reference match")
    host, join, hwm = play(args, server, frames)
    return {
        "frames": frames,
        "host_to_join_bytes_per_s": host["bytes_sent"] / host["elapsed_s"],
        "join_to_host_bytes_per_s": join["bytes_sent"] / join["elapsed_s"],
        "host_packets_per_s": host["packets_sent"] / host["elapsed_s"],
        "join_packets_per_s": join["packets_sent"] / join["elapsed_s"],
        "vm_hwm_mib": hwm / 1024.0,
    }


# ---------------------------------------------------------------- spectators

def run_spectators(args):
    """The players' upload with 0, 1 and 8 spectators watching, then a
    spectator's catch-up after minutes of play with each preset. The two
    catch-up matches run at once, the stress one started later so that the
    catch-ups themselves (the CPU-bound part) do not overlap."""
    env = {"TWINSTAR_BIN": args.bin}
    script = os.path.join(ROOT, "scripts", "net_bench.py")
    seconds, minutes, stagger = (10, 0.5, 15) if args.quick else (30, 10, 60)

    def net_bench(argv):
        out = subprocess.run([sys.executable, script, *argv], check=True, stdout=subprocess.PIPE,
                             text=True, env={**os.environ, **env}).stdout
        return [json.loads(line) for line in out.splitlines() if line.startswith("{")]

    upload_argv = ["spectators", "--seconds", str(seconds), "--counts", "0,1,8"]
    record("players' upload with 0, 1 and 8 spectators (net_bench.py)",
           ["python3", rel(script), *upload_argv], env)
    log(f"spectators: three {seconds} s matches with 0, 1 and 8 watching")
    upload = net_bench(upload_argv)
    catch_up_argv = {preset: ["catch-up", "--minutes", str(minutes), "--preset", preset]
                     for preset in ["default", "stress"]}
    for argv in catch_up_argv.values():
        record("a spectator's catch-up after minutes of play, its memory (net_bench.py)",
               ["python3", rel(script), *argv], env)
    log(f"spectators: catch-up after {minutes} min of play, default and stress")

    def catch_up(i, preset):
        time.sleep(i * stagger)
        return net_bench(catch_up_argv[preset])[0]

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(catch_up, [0, 1], ["default", "stress"]))
    return {"upload": upload, "catch_up": runs}


def write_spectators_section(w, spectators):
    w("## Spectators")
    w("")
    w("A spectator is a replay still being written: the host streams it the "
      "confirmed inputs (the match so far first), and it re-simulates them. "
      "Players' upload, in KB a minute, with that many spectators watching "
      "from the start (script bots, loopback):")
    w("")
    w("| spectators | host: GGRS packets | host: stream to spectators | per spectator | joiner: GGRS packets |")
    w("|---|---|---|---|---|")
    for u in spectators["upload"]:
        per = "" if u["per_spectator_kb_per_min"] is None else f"{u['per_spectator_kb_per_min']:.1f}"
        w(f"| {u['spectators']} | {u['host_ggrs_kb_per_min']:.1f} | "
          f"{u['host_stream_kb_per_min']:.1f} | {per} | {u['join_ggrs_kb_per_min']:.1f} |")
    w("")
    w("A spectator arriving after minutes of human-bot play: from `twinstar watch` "
      "to following live (connecting, the match so far received and re-simulated), "
      "and its peak resident memory:")
    w("")
    w("| preset | minutes played | following live after | of it re-simulating | at frame | bytes received | behind live | peak RSS |")
    w("|---|---|---|---|---|---|---|---|")
    for c in spectators["catch_up"]:
        w(f"| {c['preset']} | {c['minutes']:g} | {c['caught_up_ms']} ms | {c['fast_forward_ms']} ms | "
          f"{c['caught_up_at_frame']} | {c['bytes_received'] / 1000:.1f} KB | {c['behind_live_ms']} ms | "
          f"{c['peak_rss_mib']:.1f} MiB |")
    w("")


# ---------------------------------------------------------------- delay grid

def grid_cells(quick):
    if quick:
        return [(80, 0, 0), (160, 20, 5)]
    return [(r, j, l) for l in LOSSES for j in JITTERS for r in RTTS]


def percentile(histogram, q):
    total = sum(histogram)
    if total == 0:
        return 0
    need = q * total
    seen = 0
    for value, count in enumerate(histogram):
        seen += count
        if seen >= need:
            return value
    return len(histogram) - 1


def link_flags(rtt, jitter, loss, policy):
    return ["--sim-latency", f"{rtt / 2:g}", "--sim-jitter", str(jitter),
            "--sim-loss", str(loss), "--input-delay", policy]


def measure(summaries):
    """Per-run figures from both peers' summaries. `rollback_teleport` is the
    share of frames preceded by a rollback of `TELEPORT_FRAMES` or more."""
    hist = [0] * max(len(s["rollback_histogram"]) for s in summaries)
    for s in summaries:
        for i, c in enumerate(s["rollback_histogram"]):
            hist[i] += c
    frames = sum(hist)
    latencies = []
    for s in summaries:
        lost = s["stalled_frames"] + s.get("skipped_frames", 0)
        latencies.append((s["mean_input_delay"] + lost / max(s["frames"], 1)) * FRAME_MS)
    return {
        "latency_ms": statistics.mean(latencies),
        "delay_frames": statistics.mean(s["mean_input_delay"] for s in summaries),
        "final_delay": [s["input_delay"] for s in summaries],
        "rollback_mean": sum(i * c for i, c in enumerate(hist)) / max(frames, 1),
        "rollback_p99": percentile(hist, 0.99),
        "rollback_max": max((i for i, c in enumerate(hist) if c), default=0),
        "rollback_teleport": sum(hist[TELEPORT_FRAMES:]) / max(frames, 1),
        "rollback_share": sum(hist[1:]) / max(frames, 1),
        "rollback_histogram": hist,
        "stalled": sum(s["stalled_frames"] for s in summaries),
        "skipped": sum(s.get("skipped_frames", 0) for s in summaries),
        "delay_changes": sum(s["delay_changes"] for s in summaries),
        "rtt_measured_ms": summaries[0]["handshake_rtt_ms"],
        "jitter_measured_ms": summaries[0]["jitter_ms"],
    }


def play_links(args, server, frames, jobs, workers, label, extra=(), describe=None):
    """Plays each (cell, policy) job once (one retry after a failure), `workers`
    at a time; returns ({job: figures or None}, peak memory KiB, seconds)."""
    hwm = [0]

    def one(job):
        (rtt, jitter, loss), policy = job
        flags = link_flags(rtt, jitter, loss, policy) + list(extra)
        what = f"{label}rtt {rtt} jitter {jitter} loss {loss} delay {policy}"
        for attempt in range(2):
            try:
                host, join, peak = play(args, server, frames, flags, seed=GRID_SEED)
                hwm[0] = max(hwm[0], peak)
                m = measure([host, join])
                log(f"{what}: {describe(m)}")
                return job, m
            except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:
                log(f"{what}: attempt {attempt + 1} failed: {e}")
        return job, None

    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        results = dict(pool.map(one, jobs))
    elapsed = time.time() - started
    log(f"{label}grid: {len(jobs)} runs in {elapsed:.0f} s")
    return results, hwm[0], elapsed


def run_grid(args, server):
    frames = 600 if args.quick else 1800
    cells = grid_cells(args.quick)
    record("delay grid, per cell and policy (both peers the same flags)",
           [args.bin, "host|join", "--headless", "--bot", "--frames", frames, "--json",
            "--no-record", "--stun", "none", "--sim-latency", "RTT/2", "--sim-jitter", "J",
            "--sim-loss", "L", "--input-delay", "auto|0|2|4", "(host: --seed 1)"])
    jobs = [(cell, policy) for cell in cells for policy in POLICIES]
    results, hwm, _ = play_links(
        args, server, frames, jobs, args.jobs, "",
        describe=lambda m: (f"{m['latency_ms']:.1f} ms, rollback {m['rollback_mean']:.3f}/frame "
                            f"p99 {m['rollback_p99']}, stalls {m['stalled']}"))
    rows = []
    for cell in cells:
        runs = {p: results[(cell, p)] for p in POLICIES}
        rows.append({"cell": cell, "runs": runs, **pareto(runs), "closest": closest(runs)})
    return {"frames": frames, "rows": rows, "vm_hwm_mib": hwm / 1024.0}


def dominates(fixed, auto):
    """The issue's test: lower latency AND fewer rollbacks AND no more stalls,
    each strict comparison beyond the noise tolerance."""
    tol = max(ROLLBACK_TOLERANCE_ABS, ROLLBACK_TOLERANCE_REL * auto["rollback_mean"])
    return (fixed["latency_ms"] < auto["latency_ms"] - LATENCY_TOLERANCE_MS
            and fixed["rollback_mean"] < auto["rollback_mean"] - tol
            and fixed["stalled"] <= auto["stalled"])


def closest(runs):
    """Among fixed delays with lower latency than auto: the smallest ratio of
    their rollback frames per frame to auto's (how near auto came to being
    dominated), or None when no fixed delay is faster."""
    auto = runs["auto"]
    if auto is None:
        return None
    ratios = [runs[p]["rollback_mean"] / max(auto["rollback_mean"], 1e-9)
              for p in POLICIES[1:]
              if runs[p] and runs[p]["latency_ms"] < auto["latency_ms"] - LATENCY_TOLERANCE_MS]
    return min(ratios) if ratios else None


def pareto(runs):
    auto = runs["auto"]
    if auto is None or any(runs[p] is None for p in POLICIES[1:]):
        return {"on_front": False, "dominated_by": ["failed run"]}
    by = [p for p in POLICIES[1:] if dominates(runs[p], auto)]
    return {"on_front": not by, "dominated_by": by}


# ------------------------------------------------------ human-input delay grid

def human_cells(quick):
    """The first grid's links; in the quick run two of them, one clean and
    one with jitter and loss."""
    if quick:
        return [(80, 0, 0), (160, 20, 5)]
    return grid_cells(False)


def human_policies(quick):
    # All seven in the quick run too: 14 runs of 600 frames, about a minute.
    return HUMAN_POLICIES


def run_human_grid(args, server):
    frames = 600 if args.quick else HUMAN_FRAMES
    cells = human_cells(args.quick)
    policies = human_policies(args.quick)
    record("human-input delay grid, per cell and policy (both peers the same flags)",
           [args.bin, "host|join", "--headless", "--bot", "--bot-style", HUMAN_BOT_STYLE,
            "--frames", frames, "--json", "--no-record", "--stun", "none",
            "--sim-latency", "RTT/2", "--sim-jitter", "J", "--sim-loss", "L",
            "--input-delay", "|".join(policies), "(host: --seed 1)"])
    jobs = [(cell, policy) for cell in cells for policy in policies]
    results, _, elapsed = play_links(
        args, server, frames, jobs, args.human_jobs, "human: ",
        extra=["--bot-style", HUMAN_BOT_STYLE],
        describe=lambda m: (f"{m['latency_ms']:.1f} ms, rollback p99 {m['rollback_p99']} "
                            f"(>= {TELEPORT_FRAMES}: {m['rollback_teleport']:.2%}), "
                            f"stalls {m['stalled']}"))
    rows = []
    for cell in cells:
        runs = {p: results[(cell, p)] for p in policies}
        rows.append({"cell": cell, "runs": runs, **judge(runs)})
    return {"frames": frames, "policies": policies, "rows": rows, "elapsed_s": elapsed}


def keeps_rollback(m):
    """Rollback a player accepts: p99 below teleporting."""
    return m["rollback_p99"] <= HUMAN_P99_LIMIT


def passes(name, runs):
    """The human-input criterion for policy `name` among `runs` (policy ->
    figures; failed runs left out): among the policies that keep rollback
    within the limit, the lowest latency (within the tolerance); where none
    does, within the slack of the lowest p99 at no more latency than the
    (fastest) policy achieving it."""
    ms = {p: m for p, m in runs.items() if m is not None}
    if name not in ms:
        return False
    me = ms[name]
    within = [m for m in ms.values() if keeps_rollback(m)]
    if within:
        best = min(m["latency_ms"] for m in within)
        return keeps_rollback(me) and me["latency_ms"] <= best + HUMAN_LATENCY_TOLERANCE_MS
    low = min(m["rollback_p99"] for m in ms.values())
    ref = min(m["latency_ms"] for m in ms.values() if m["rollback_p99"] == low)
    return (me["rollback_p99"] <= low + HUMAN_FALLBACK_P99_SLACK
            and me["latency_ms"] <= ref + HUMAN_LATENCY_TOLERANCE_MS)


def versus(auto, other):
    """Auto against one alternative: the criterion applied to the two of
    them. 'win': only auto passes; 'tie': both do; 'loss': auto does not."""
    if auto is None or other is None:
        return "n/a"
    pair = {"auto": auto, "other": other}
    a, o = passes("auto", pair), passes("other", pair)
    return "tie" if a and o else "win" if a else "loss"


def judge(runs):
    auto = runs.get("auto")
    vs = {p: versus(auto, runs[p]) for p in runs if p != "auto"}
    best = passes("auto", runs)
    why = ""
    if not best and auto is not None:
        beaten_by = [p for p in runs if p != "auto" and runs[p] and passes(p, runs)]
        why = ", ".join(beaten_by)
    return {"auto_best": best, "versus": vs, "beaten_by": why}


# --------------------------------------------------------------------- plots

def make_plots(args, sim, grid, human):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is not installed: no plots (scripts/bench.sh sets it up)")
        return []
    made = []

    scaling = sim["scaling"]
    fig, ax = plt.subplots(figsize=(6, 4), dpi=110)
    xs = [s["entities"] for s in scaling]
    ax.plot(xs, [s["step_us"] for s in scaling], "o-", color="tab:blue")
    for s in scaling:
        ax.annotate(f"{s['enemies']}e+{s['bullets']}b", (s["entities"], s["step_us"]),
                    textcoords="offset points", xytext=(4, -12), fontsize=7)
    ax.set_xlabel("live entities (enemies + bullets)")
    ax.set_ylabel("step time (µs, criterion median)")
    ax.set_title("Simulation step cost vs entity count (stress rules)")
    ax.grid(alpha=0.3)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    fig.tight_layout()
    path = os.path.join(args.out, "sim_scaling.png")
    fig.savefig(path)
    plt.close(fig)
    made.append(path)

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ops = ["step", "save", "load", "checksum", "save+checksum", "baseline_copy+hash", "rollback8"]
    width = 0.38
    for i, preset in enumerate(["default", "stress"]):
        vals = [sim["presets"][preset][op] for op in ops]
        ax.bar([k + (i - 0.5) * width for k in range(len(ops))], vals, width, label=preset)
    ax.set_xticks(range(len(ops)))
    ax.set_xticklabels(ops, rotation=20, fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("µs (log scale)")
    ax.axhline(1000, color="tab:red", ls="--", lw=0.8)
    ax.axhline(200, color="tab:orange", ls="--", lw=0.8)
    ax.set_title("Simulation costs (dashed: rollback targets 1 ms stress, 0.2 ms default)")
    ax.legend()
    fig.tight_layout()
    path = os.path.join(args.out, "sim_costs.png")
    fig.savefig(path)
    plt.close(fig)
    made.append(path)

    colors = {"auto": "tab:red", "0": "tab:blue", "2": "tab:green", "4": "tab:purple"}
    markers = {"auto": "*", "0": "o", "2": "s", "4": "^"}
    rows = grid["rows"]
    fig, ax = plt.subplots(figsize=(7, 5), dpi=110)
    for policy in POLICIES:
        pts = [(r["runs"][policy]["latency_ms"], r["runs"][policy]["rollback_mean"])
               for r in rows if r["runs"][policy]]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], c=colors[policy],
                   marker=markers[policy], s=90 if policy == "auto" else 30,
                   label=f"delay {policy}", alpha=0.8, edgecolors="none")
    ax.set_xlabel("effective local input latency (ms)")
    ax.set_ylabel("rollback frames per frame (mean)")
    ax.set_title(f"Input-delay policies over {len(rows)} simulated links")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = os.path.join(args.out, "delay_latency_vs_rollback.png")
    fig.savefig(path)
    plt.close(fig)
    made.append(path)

    cols = 6 if len(rows) > 4 else len(rows)
    nrows = (len(rows) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(2.6 * cols, 2.3 * nrows), dpi=100,
                             squeeze=False)
    for k, row in enumerate(rows):
        ax = axes[k // cols][k % cols]
        rtt, jitter, loss = row["cell"]
        for policy in POLICIES:
            m = row["runs"][policy]
            if m:
                ax.scatter(m["latency_ms"], m["rollback_mean"], c=colors[policy],
                           marker=markers[policy], s=80 if policy == "auto" else 25)
        mark = "" if row["on_front"] else "  NOT on front"
        ax.set_title(f"RTT {rtt} J {jitter} L {loss}%{mark}", fontsize=8)
        ax.tick_params(labelsize=6)
        ax.grid(alpha=0.3)
    for k in range(len(rows), nrows * cols):
        axes[k // cols][k % cols].axis("off")
    handles = [plt.Line2D([], [], ls="", marker=markers[p], color=colors[p], label=f"delay {p}")
               for p in POLICIES]
    # Legend above the panels: below them it covered the x-axis label.
    fig.legend(handles=handles, loc="upper center", ncol=4, fontsize=8)
    fig.supxlabel("effective input latency (ms)", fontsize=9)
    fig.supylabel("rollback frames / frame", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    path = os.path.join(args.out, "delay_grid.png")
    fig.savefig(path)
    plt.close(fig)
    made.append(path)

    # The human-input grid, the same layout: latency against the share of
    # frames after a rollback of TELEPORT_FRAMES or more; p99 <= the limit
    # is exactly "at most 1 %" (dashed).
    hcolors = {"auto": "tab:red", "0": "tab:blue", "1": "tab:cyan", "2": "tab:green",
               "3": "tab:olive", "4": "tab:purple", "table": "black"}
    hmarkers = {"auto": "*", "0": "o", "1": "v", "2": "s", "3": "D", "4": "^", "table": "x"}
    rows = human["rows"]
    policies = human["policies"]
    cols = 6 if len(rows) > 4 else len(rows)
    nrows = (len(rows) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(2.6 * cols, 2.3 * nrows), dpi=100,
                             squeeze=False)
    for k, row in enumerate(rows):
        ax = axes[k // cols][k % cols]
        rtt, jitter, loss = row["cell"]
        for policy in policies:
            m = row["runs"][policy]
            if m:
                ax.scatter(m["latency_ms"], 100 * m["rollback_teleport"], c=hcolors[policy],
                           marker=hmarkers[policy], s=80 if policy == "auto" else 25)
        ax.axhline(1.0, color="gray", ls="--", lw=0.8)
        ax.set_yscale("symlog", linthresh=1.0)
        ax.set_ylim(bottom=0)
        mark = "" if row["auto_best"] else "  auto NOT best"
        ax.set_title(f"RTT {rtt} J {jitter} L {loss}%{mark}", fontsize=8)
        ax.tick_params(labelsize=6)
        ax.grid(alpha=0.3)
    for k in range(len(rows), nrows * cols):
        axes[k // cols][k % cols].axis("off")
    handles = [plt.Line2D([], [], ls="", marker=hmarkers[p], color=hcolors[p],
                          label=p if p in ("auto", "table") else f"delay {p}")
               for p in policies]
    fig.legend(handles=handles, loc="upper center", ncol=len(policies), fontsize=8)
    fig.supxlabel("effective input latency (ms)", fontsize=9)
    fig.supylabel(f"% of frames after a rollback >= {TELEPORT_FRAMES} (dashed: p99 limit)",
                  fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    path = os.path.join(args.out, "delay_grid_human.png")
    fig.savefig(path)
    plt.close(fig)
    made.append(path)
    return made


# -------------------------------------------------------------------- report

def sh(argv):
    try:
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return "?"


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            mem = f"{int(f.readline().split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": mem,
        "os": f"{platform.system()} {platform.release()}",
        "rustc": sh(["rustc", "--version"]),
        # TWINSTAR_BENCH_COMMIT: when measuring an exported tree (git archive).
        "commit": os.environ.get("TWINSTAR_BENCH_COMMIT")
        or sh(["git", "rev-parse", "--short", "HEAD"]) or "unknown",
        "dirty": not os.environ.get("TWINSTAR_BENCH_COMMIT")
        and bool(sh(["git", "status", "--porcelain", "--untracked-files=no"])),
    }


def verdict(ok):
    return "met" if ok else "**missed**"


def write_report(args, sim, verify, connect, ref, grid, human, spectators, plots, headline,
                 elapsed):
    m = machine()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    P = sim["presets"]
    L = []
    w = L.append
    w("# Benchmarks")
    w("")
    flags = (" --quick" if args.quick else "") + \
        (f" --profile {args.profile}" if args.profile != "release" else "")
    w(f"Generated by `scripts/bench.sh{flags}` on {now} "
      f"in {elapsed / 60:.0f} min. Do not edit by hand; rerun the script.")
    if args.profile != "release":
        w("")
        w(f"**Built with the `{args.profile}` profile, not release**: the speed "
          "figures (simulation costs, verification, memory) are not the game's.")
    if args.quick:
        w("")
        w("**Quick (smoke) run**: shorter criterion runs, 2 grid cells of 600 frames "
          "in each delay grid, fewer connects, 10 s spectator matches and a "
          "catch-up after 30 s of play. The committed full report is "
          "`BENCHMARKS.md` at the root.")
    w("")
    w("## Machine")
    w("")
    w(f"- CPU: {m['cpu']}, {m['cores']} cores; memory {m['memory']}; {m['os']}")
    w(f"- {m['rustc']}; commit `{m['commit']}`{' (with local changes)' if m['dirty'] else ''}")
    w("- Shared machine: other builds may have run at the same time. Criterion "
      "reports medians of 100 samples; network figures are medians or single "
      f"{grid['frames']}-frame runs (see Method).")
    w("")
    w("## Headline")
    w("")
    w("```json")
    w(json.dumps(headline))
    w("```")
    w("")
    w("| target | measured | |")
    w("|---|---|---|")
    r8s, r8d = P["stress"]["rollback8"], P["default"]["rollback8"]
    ratio = max(P["default"]["ratio"], P["stress"]["ratio"])
    w(f"| 8-frame rollback, stress ≤ 1 ms | {r8s:.0f} µs | {verdict(r8s <= 1000)} |")
    w(f"| 8-frame rollback, default ≤ 0.2 ms | {r8d:.0f} µs | {verdict(r8d <= 200)} |")
    w(f"| save + checksum ≤ 2 × copy + hash | {ratio:.2f} × (worse preset) | {verdict(ratio <= 2)} |")
    w(f"| connect ≤ 500 ms median (loopback, {connect['connects']} connects) | "
      f"{connect['connect_ms_median']:.0f} ms | "
      f"{verdict(connect['connect_ms_median'] <= 500)} |")
    if "connect_ms_join_median" in connect:
        w(f"| native join ≤ 100 ms median (loopback, {len(connect['connect_ms_join_all'])} joins) | "
          f"{connect['connect_ms_join_median']:.0f} ms | "
          f"{verdict(connect['connect_ms_join_median'] <= 100)} |")
    bj = connect["browser_join"]
    if bj:
        w(f"| browser joining a native host ≤ 1.0 s median (headless Chromium, "
          f"{len(bj['connect_ms_browser_join_all'])} joins) | "
          f"{bj['connect_ms_browser_join']:.0f} ms | "
          f"{verdict(bj['connect_ms_browser_join'] <= 1000)} |")
        ml = bj["page_load"]
        w(f"| page load to menu ≤ 1.0 s cold (headless Chromium, loopback, "
          f"{len(ml['cold']['all'])} loads) | {ml['cold']['median_ms']:.0f} ms | "
          f"{verdict(ml['cold']['median_ms'] <= 1000)} |")
        w(f"| page load to menu ≤ 300 ms warm (the service worker's copy) | "
          f"{ml['warm']['median_ms']:.0f} ms (again: {ml['warm-again']['median_ms']:.0f} ms) | "
          f"{verdict(ml['warm']['median_ms'] <= 300)} |")
        w(f"| page open at its menu, code to first frame ≤ 500 ms median "
          f"({len(bj['page_menu_join_ms_all'])} joins) | {bj['page_menu_join_ms']:.0f} ms | "
          f"{verdict(bj['page_menu_join_ms'] <= 500)} |")
    else:
        w(f"| browser joining a native host ≤ 1.0 s median | not measured: "
          f"{connect['browser_join_error']} | |")
    p4 = connect.get("page_4x")
    if p4:
        on4 = p4["throttled_online_default"]
        w(f"| page at 4× CPU throttling: simulation p99 ≤ 8 ms (default preset, online, "
          f"100 ms RTT, 2 % loss) | {on4['sim_ms_p99']} ms | {verdict(on4['sim_ms_p99'] <= 8)} |")
    else:
        w(f"| page at 4× CPU throttling: simulation p99 ≤ 8 ms | not measured: "
          f"{connect.get('page_4x_error')} | |")
    worst_dir = max(ref["host_to_join_bytes_per_s"], ref["join_to_host_bytes_per_s"])
    w(f"| payload ≤ 2 KB/s per direction | {connect['payload_bytes_per_s']:.0f} B/s median, "
      f"{worst_dir:.0f} B/s worst direction | {verdict(max(connect['payload_bytes_per_s'], worst_dir) <= 2000)} |")
    on = headline["auto_delay_pareto_cells"]
    w(f"| auto delay on the Pareto front in every cell | {on} of {headline['grid_cells']} | "
      f"{verdict(on == headline['grid_cells'])} |")
    hb, hn = headline["human_auto_best_cells"], headline["human_grid_cells"]
    w(f"| human input: auto best by the criterion in every cell | {hb} of {hn} | "
      f"{verdict(hb == hn)} |")
    noisy = [r for r in human["rows"] if r["cell"][1] or r["cell"][2]]
    tw = sum(1 for r in noisy if r["versus"].get("table") == "win")
    w(f"| human input: auto strictly better than the table in most cells with jitter or loss | "
      f"{tw} of {len(noisy)} ({headline['human_vs_table_wins']} of {hn} in all) | "
      f"{verdict(2 * tw > len(noisy))} |")
    w("")

    w("## Simulation")
    w("")
    w("Criterion medians in µs (`benches/sim.rs`), each preset's busiest world "
      "(most enemies + bullets) in the first 3600 (default) or 1200 (stress) frames "
      "of a bot match. `save` is a copy of the Pod world into GGRS's `GameStateCell`, "
      "`checksum` XXH3-128 of its bytes, `rollback8` what GGRS asks for when it "
      "rolls back 8 frames: load, then 8 × (step + save + checksum). "
      "`baseline_copy+hash` copies the same bytes into a plain buffer and hashes them.")
    w("")
    w("| preset | entities | state | step | save | load | checksum | save+checksum | copy+hash | ratio | rollback8 |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in ["default", "stress"]:
        p = P[name]
        meta = p["meta"]
        ents = f"{meta.get('enemies', '?')} enemies, {meta.get('bullets', '?')} bullets"
        size = f"{meta.get('state_bytes', 0) / 1024:.0f} KiB"
        w(f"| {name} | {ents} | {size} | {p['step']:.2f} | {p['save']:.2f} | {p['load']:.2f} | "
          f"{p['checksum']:.2f} | {p['save+checksum']:.2f} | {p['baseline_copy+hash']:.2f} | "
          f"{p['ratio']:.2f} | {p['rollback8']:.1f} |")
    w("")
    w("Step cost against live entities (stress rules, enemy cap varied, after 600 frames):")
    w("")
    w("| enemy cap | enemies | bullets | step (µs) | ns per entity |")
    w("|---|---|---|---|---|")
    for s in sim["scaling"]:
        w(f"| {s['enemy_cap']} | {s['enemies']} | {s['bullets']} | {s['step_us']:.2f} | "
          f"{s['step_us'] * 1000 / max(s['entities'], 1):.1f} |")
    w("")
    if any(p.endswith("sim_scaling.png") for p in plots):
        w("![step cost vs entities](bench/sim_scaling.png)" if not args.quick else
          "![step cost vs entities](sim_scaling.png)")
        w("")
    w("Replay verification (`twinstar replay FILE --headless --verify --json`, "
      "re-simulates every frame and checks every recorded checksum):")
    w("")
    w("| preset | frames | wall (ms, whole process) | × real time |")
    w("|---|---|---|---|")
    for name, v in verify.items():
        w(f"| {name} | {v['frames']} | {v['wall_s'] * 1000:.0f} | {v['x_realtime']:.0f} |")
    w("")

    w("## Network (two processes on loopback)")
    w("")
    w(f"- Connect, room code to first frame: median **{connect['connect_ms_median']:.0f} ms**, "
      f"max {connect['connect_ms_max']:.0f} ms over {connect['connects']} connects "
      f"({connect['runs']} matches, both peers' times).")
    b = connect["breakdown_ms_median"]
    w(f"  Where it goes (each step's median, ms): signaling {b['signaling']:.0f}, "
      f"peer {b['peer']:.0f} (the host's includes waiting ~0.1 s for the joiner to start), "
      f"handshake {b['handshake']:.0f}, GGRS sync {b['sync']:.0f}, first frame "
      f"{b['first_frame']:.0f}.")
    jb = connect.get("join_breakdown_ms_median")
    if jb:
        w(f"  The joiner alone: median {connect['connect_ms_join_median']:.0f} ms (each: "
          f"{', '.join(str(v) for v in connect['connect_ms_join_all'])}); signaling "
          f"{jb['signaling']:.0f}, peer {jb['peer']:.0f}, handshake {jb['handshake']:.0f}, "
          f"GGRS sync {jb['sync']:.0f}, first frame {jb['first_frame']:.0f}.")
    split = connect.get("joiner_peer_split_ms")
    if split:
        w(f"  One joiner's peer step from webrtc-rs's log: signaling and ICE {split['ice']} ms, "
          f"DTLS {split['dtls']} ms, data channels {split['channels']} ms.")
    if bj:
        b = bj["browser_join_breakdown_ms"]
        w(f"- A browser joining a native host (headless Chromium, `scripts/web_bench.py "
          f"--join-only`): median **{bj['connect_ms_browser_join']:.0f} ms** "
          f"(each: {', '.join(str(v) for v in bj['connect_ms_browser_join_all'])}); each "
          f"step's median: signaling {b['signaling']:.0f}, peer {b['peer']:.0f}, handshake "
          f"{b['handshake']:.0f}, GGRS sync {b['sync']:.0f} (the window's GL setup and "
          f"first frames: a joining page opens its window once connected), first frame "
          f"{b['first_frame']:.0f}; {bj['crossplay_frames']} frames, "
          f"{bj['crossplay_desyncs']} desyncs.")
        mb = bj["page_menu_join_breakdown_ms"]
        w(f"- The page open at its menu joining a native host (Online, Join, the code "
          f"typed, Enter): median **{bj['page_menu_join_ms']:.0f} ms** (each: "
          f"{', '.join(str(v) for v in bj['page_menu_join_ms_all'])}); signaling "
          f"{mb['signaling']:.0f}, peer {mb['peer']:.0f}, handshake {mb['handshake']:.0f}, "
          f"GGRS sync {mb['sync']:.0f}, first frame {mb['first_frame']:.0f}.")
        for kind in ["cold", "warm", "warm-again"]:
            load = bj["page_load"][kind]
            st = load["steps_ms"]
            w(f"- Page load to menu, {kind} (`tests/web/load_times.mjs`): median "
              f"**{load['median_ms']:.0f} ms** (each: {', '.join(str(v) for v in load['all'])}); "
              f"page {st['page']}, wasm {st['wasm']}, compile after the last byte "
              f"{st['compile']}, start to the menu's first frame {st['start']}.")
    if p4:
        parts = []
        for key, what in [("throttled_online_default", "online, default preset, 100 ms RTT, 2 % loss"),
                          ("throttled_local_default", "local, default preset"),
                          ("throttled_synctest_stress", "synctest, stress preset")]:
            f4 = p4[key]
            extra = ""
            if "wave" in f4:
                extra = (f", at wave {f4['wave']} at the end ({f4.get('restarts', 0)} restarts "
                         f"after a game over), {f4.get('bosses_defeated', 0)} bosses "
                         f"defeated, {f4.get('rollback_frames', 0)} frames rolled back")
            parts.append(f"{what}: simulation p50 {f4['sim_ms_p50']} / p99 {f4['sim_ms_p99']} ms, "
                         f"drawing mean {f4['draw_ms_mean']} / p99 {f4['draw_ms_p99']} ms, "
                         f"{f4['fps']} frames drawn per second{extra}")
        w(f"- The page with Chromium's CPU slowed 4× (`scripts/web_bench.py --throttled-only`; "
          f"software GL, so drawing is slow everywhere here): " + "; ".join(parts) + ".")
    w(f"- GGRS payload (bytes our socket hands to the data channel, without "
      f"SCTP/DTLS/UDP overhead): median {connect['payload_bytes_per_s']:.0f} B/s per direction; "
      f"in a {ref['frames']}-frame match host → join {ref['host_to_join_bytes_per_s']:.0f} B/s "
      f"({ref['host_packets_per_s']:.0f} packets/s), join → host "
      f"{ref['join_to_host_bytes_per_s']:.0f} B/s ({ref['join_packets_per_s']:.0f} packets/s).")
    w(f"- Resident memory of a headless peer (peak `VmHWM`): {ref['vm_hwm_mib']:.1f} MiB "
      f"in that match; at most {grid['vm_hwm_mib']:.1f} MiB over every grid run.")
    w("")

    w("## Input-delay policy")
    w("")
    w(f"Each run: two headless bot peers, {grid['frames']} frames at 60 Hz over the "
      "in-process link simulator with the same flags on both sides "
      "(`--sim-latency` = RTT/2 one way, `--sim-jitter` up to J ms extra per packet, "
      "`--sim-loss` L %). Figures are over both peers.")
    w("")
    w("- **latency**: effective local input latency = (input delay averaged over "
      "the frames + (stalled + skipped frames) / frames) × 16.67 ms. A stalled frame "
      "(GGRS at its 8-frame prediction limit) or a frame skipped on GGRS's wait "
      "recommendation is a tick in which local input is not taken. Display and "
      "OS latency, equal for every policy, are left out.")
    w("- **rb mean / p99**: frames re-simulated before each new frame "
      "(the per-frame rollback histogram of the summary).")
    w("- **stalls**: frames GGRS refused to advance (both peers).")
    w(f"- A fixed delay **dominates** auto when it has lower latency (by more than "
      f"{LATENCY_TOLERANCE_MS:g} ms) *and* fewer rollback frames per frame (by more than "
      f"max({ROLLBACK_TOLERANCE_ABS}, {ROLLBACK_TOLERANCE_REL:.0%} of auto's)) *and* no "
      "more stalls. The tolerances are for run-to-run noise: auto and a fixed "
      "delay equal to auto's pick are the same policy, and differ only by noise. "
      f"Every run of a cell plays seed {GRID_SEED}, so the bots press the same "
      "buttons on the same frames under every policy and the comparison is "
      "paired; what still varies is timing (and the link simulator's draws).")
    close = [(r["closest"], r["cell"]) for r in grid["rows"] if r.get("closest")]
    if close:
        ratio, (rtt, jitter, loss) = min(close)
        w(f"- How near auto came to being dominated: every fixed delay with lower "
          f"latency than auto re-simulated at least **{ratio:.2f} ×** as many frames "
          f"per frame as auto (closest: RTT {rtt}, jitter {jitter}, loss {loss} %).")
    w("")
    w("| RTT | jitter | loss | policy | delay | latency (ms) | rb mean | rb p99 | rb max | stalls | skipped | delay changes | on front |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in grid["rows"]:
        rtt, jitter, loss = row["cell"]
        for policy in POLICIES:
            mm = row["runs"][policy]
            front = ""
            if policy == "auto":
                front = "yes" if row["on_front"] else "**no** (" + ", ".join(row["dominated_by"]) + ")"
            if mm is None:
                w(f"| {rtt} | {jitter} | {loss}% | {policy} | failed | | | | | | | | {front} |")
                continue
            w(f"| {rtt} | {jitter} | {loss}% | {policy} | {mm['delay_frames']:.2f} | "
              f"{mm['latency_ms']:.1f} | {mm['rollback_mean']:.3f} | {mm['rollback_p99']} | "
              f"{mm['rollback_max']} | {mm['stalled']} | {mm['skipped']} | "
              f"{mm['delay_changes']} | {front} |")
    w("")
    prefix = "" if args.quick else "bench/"
    for p in plots:
        name = os.path.basename(p)
        if name.startswith("delay_") and "_human" not in name:
            w(f"![{name}]({prefix}{name})")
            w("")
    w("Caveats:")
    w("")
    w("- The bots (`src/input/bot.rs`) hold each input for 10 to 60 frames, so a "
      "remote input changes about once every 35 frames and about 3 % of frames "
      "follow a misprediction. Human players change inputs more often, so real "
      "rollback rates are higher than these, roughly in proportion for every "
      "policy; the comparison between policies (which is what the Pareto test "
      "uses) holds, the absolute rollback rates do not. The bots are not changed: "
      "their inputs feed the golden determinism checksums.")
    w("- The link simulator delays each peer's outgoing packets by a fixed one-way "
      "latency plus uniform jitter; real links have burstier loss and queueing.")
    w("- One run per cell and policy (two peers each, same seed); the tolerances "
      "above absorb the noise between runs of the same delay. At RTT 0 the "
      "rollback rates are tiny and their noise relatively large.")
    w("")

    write_human_section(w, args, human, grid, plots)
    write_repeated_grid(w)
    write_spectators_section(w, spectators)

    w("## Method: exact commands")
    w("")
    w("```sh")
    w(f"bash scripts/bench.sh{' --quick' if args.quick else ''}   # all of the below")
    for what, cmd in COMMANDS:
        w(f"# {what}")
        w(cmd.replace(ROOT + "/", ""))
    w("```")
    w("")
    with open(args.report, "w") as f:
        f.write("\n".join(L))
    log(f"wrote {args.report}")


def pct(x):
    return f"{100 * x:.2f}"


# The human-input grid with repeated runs (scripts/delay_grid.py, about
# 1 h 45 min on its own): the report carries its last committed table.
REPEATED_GRID = os.path.join(ROOT, "bench", "delay-grid-repeated.md")


def write_repeated_grid(w):
    w("## Input-delay policy, repeated runs")
    w("")
    if not os.path.exists(REPEATED_GRID):
        w("Not run yet: `python3 scripts/delay_grid.py --markdown bench/delay-grid-repeated.md`.")
        w("")
        return
    with open(REPEATED_GRID) as f:
        w(f.read().rstrip("\n"))
    w("")


def write_human_section(w, args, human, grid, plots):
    rows = human["rows"]
    policies = human["policies"]
    alts = [p for p in policies if p != "auto"]
    runs = [m for r in rows for m in r["runs"].values() if m]
    w("## Input-delay policy with human-like input")
    w("")
    w(f"The same links, both peers played by the human-like bot (`--bot-style "
      f"{HUMAN_BOT_STYLE}`, `src/input/human.rs`: 3.5-4.5 input changes a second, "
      "dwell median 9-10 frames, as docs/architecture/simulation.md \"Bots\" documents), "
      f"{human['frames']} frames a run, seed {GRID_SEED}, auto against fixed delays "
      f"{', '.join(p for p in alts if p != 'table')} and `table`, the ping-to-delay "
      "table Fightcade/nullDC netplay players use (RTT < 25 ms → 1 frame, < 60 → 2, "
      "< 100 → 3, < 130 → 4, < 155 → 5, < 180 → 6, above → 7). Latency, rollback "
      "and stalls are measured as in the first grid.")
    w("")
    w("### The criterion (fixed before the run; constants in `scripts/bench.py`)")
    w("")
    w(f"1. **Rollbacks of {TELEPORT_FRAMES} frames or more are teleporting.** A rollback "
      "of k frames corrects the other player's ship by what it did differently in those "
      "k frames. Ships move 4 units a frame (1.5 focused) and have a radius of 6: after "
      "a stop or start the correction is 4k units, 8 at 2 frames (two thirds of the "
      "ship: a nudge) and 12 at 3 (the ship's whole diameter: it jumps by its own size; "
      "a reversal doubles these). A shot fired 3 frames earlier appears 30 units out "
      "(shots move 10 a frame).")
    w(f"2. **A policy keeps rollback acceptable when its p99 rollback is at most "
      f"{HUMAN_P99_LIMIT} frames** (over both peers' frames; the same as: at most 1 % "
      f"of frames follow a rollback of {TELEPORT_FRAMES} or more, the \"≥ 3\" column). "
      "Why p99: with this input a rollback precedes "
      + share_range(rows, "auto") +
      " of frames under auto, so p99 ≤ 2 allows at most one rollback in several to be a "
      "jump (≤ 0.6 a second). p95 would let most rollbacks jump; p99.9 is 4 frames of a "
      "3600-frame run, one packet-loss burst. Max is set by single lost packets.")
    w(f"3. **Among the policies that keep rollback acceptable, auto must have the "
      f"lowest effective latency, within {HUMAN_LATENCY_TOLERANCE_MS:g} ms.** Effective "
      "latency moves in steps of 16.7 ms (a frame of delay); what else moves it is "
      "skipped and stalled frames: "
      + latency_noise(rows) +
      f" {HUMAN_LATENCY_TOLERANCE_MS:g} ms is far above that and far below a frame.")
    w(f"4. **Where no policy keeps p99 within {HUMAN_P99_LIMIT}**, auto must be within "
      f"{HUMAN_FALLBACK_P99_SLACK} frame of the lowest p99 at no more latency (+ the "
      "tolerance) than the fastest policy achieving that p99. p99 is an integer and "
      "moves by a frame between runs of the same policy near the limit.")
    w("5. **Auto against each alternative**: the same rule applied to the two of them. "
      "*win*: only auto passes (it keeps rollback acceptable and the other does not, "
      "or both do and auto is faster by more than the tolerance); *tie*: both pass; "
      "*loss*: auto does not. **Auto is best in a cell** when it passes against all "
      "policies at once.")
    w("")
    best = sum(1 for r in rows if r["auto_best"])
    w(f"**Result: auto is best in {best} of {len(rows)} cells.**")
    w("")
    w("| auto against | wins | ties | losses |")
    w("|---|---|---|---|")
    for p in alts:
        c = {k: sum(1 for r in rows if r["versus"].get(p) == k) for k in ("win", "tie", "loss")}
        w(f"| {'table' if p == 'table' else 'delay ' + p} | {c['win']} | {c['tie']} | {c['loss']} |")
    w("")
    lost = [r for r in rows if not r["auto_best"]]
    if lost:
        w("Cells where auto is not best:")
        w("")
        for r in lost:
            rtt, jitter, loss = r["cell"]
            a = r["runs"]["auto"]
            if a is None:
                w(f"- RTT {rtt}, jitter {jitter}, loss {loss} %: the auto run failed.")
                continue
            w(f"- RTT {rtt}, jitter {jitter}, loss {loss} %: auto picked "
              f"{a['delay_frames']:.2f} frames ({a['latency_ms']:.1f} ms, p99 "
              f"{a['rollback_p99']}, {pct(a['rollback_teleport'])} % ≥ {TELEPORT_FRAMES}); "
              f"passing instead: {r['beaten_by'] or '?'}.")
        w("")
    w("Per cell: auto's run, and how it fares against each alternative "
      "(W win, T tie, **L** loss).")
    w("")
    w("| RTT | jitter | loss | auto delay | latency (ms) | p99 | ≥ 3 (%) | "
      + " | ".join(f"vs {p}" for p in alts) + " | auto best |")
    w("|---|---|---|---|---|---|---|" + "---|" * len(alts) + "---|")
    mark = {"win": "W", "tie": "T", "loss": "**L**", "n/a": "–"}
    for r in rows:
        rtt, jitter, loss = r["cell"]
        a = r["runs"]["auto"]
        head = (f"{a['delay_frames']:.2f} | {a['latency_ms']:.1f} | {a['rollback_p99']} | "
                f"{pct(a['rollback_teleport'])}") if a else "failed | | |"
        w(f"| {rtt} | {jitter} | {loss}% | {head} | "
          + " | ".join(mark[r["versus"][p]] for p in alts)
          + f" | {'yes' if r['auto_best'] else '**no**'} |")
    w("")
    w("Every run (rb: rollback frames per frame; ≥ 3: % of frames after a rollback of "
      f"{TELEPORT_FRAMES} or more; any: % of frames after any rollback):")
    w("")
    w("| RTT | jitter | loss | policy | delay | latency (ms) | rb mean | rb p99 | ≥ 3 (%) | "
      "any (%) | rb max | stalls | skipped | delay changes |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        rtt, jitter, loss = r["cell"]
        for p in policies:
            m = r["runs"][p]
            if m is None:
                w(f"| {rtt} | {jitter} | {loss}% | {p} | failed | | | | | | | | | |")
                continue
            w(f"| {rtt} | {jitter} | {loss}% | {p} | {m['delay_frames']:.2f} | "
              f"{m['latency_ms']:.1f} | {m['rollback_mean']:.3f} | {m['rollback_p99']} | "
              f"{pct(m['rollback_teleport'])} | {pct(m['rollback_share'])} | "
              f"{m['rollback_max']} | {m['stalled']} | {m['skipped']} | "
              f"{m['delay_changes']} |")
    w("")
    names = [os.path.basename(p) for p in plots]
    prefix = "" if args.quick else "bench/"
    if "delay_grid_human.png" in names:
        w("The two grids side by side (left: the scripted bots, rollback frames per "
          "frame; right: human-like input, % of frames after a rollback of "
          f"{TELEPORT_FRAMES} or more, dashed at the p99 limit):")
        w("")
        w("| scripted bots (`delay_grid.png`) | human-like input (`delay_grid_human.png`) |")
        w("|---|---|")
        w(f"| ![delay_grid.png]({prefix}delay_grid.png) | "
          f"![delay_grid_human.png]({prefix}delay_grid_human.png) |")
        w("")
    w("Caveats:")
    w("")
    w("- One run per cell and policy. p99 is an integer: a policy whose ≥ 3 share sits "
      "near 1 % can land on either side of the limit from one run to the next, so read "
      "the ≥ 3 column for the margin.")
    w("- Online, each peer's human bot sees its own (possibly predicted) world, so the "
      "two bots' inputs differ a little between policies: the runs are paired by seed, "
      "not frame for frame.")
    w("")


def share_range(rows, policy):
    shares = [r["runs"][policy]["rollback_share"] for r in rows if r["runs"].get(policy)]
    if not shares:
        return "an unknown share"
    return f"{pct(min(shares))}-{pct(max(shares))} %"


def latency_noise(rows):
    """How far skipped and stalled frames moved fixed delays' latency."""
    extra = [m["latency_ms"] - m["delay_frames"] * FRAME_MS
             for r in rows for p, m in r["runs"].items()
             if m and p not in ("auto", "table")]
    if not extra:
        return "none measured."
    return (f"in this grid they added at most {max(extra):.2f} ms to a fixed delay's "
            f"latency (median {statistics.median(extra):.3f} ms).")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--bin", required=True, help="the twinstar binary")
    parser.add_argument("--profile", default="release",
                        help="the Cargo profile it was built with (the simulation benchmarks use it too)")
    parser.add_argument("--out", required=True, help="directory for the plots")
    parser.add_argument("--work", required=True, help="scratch directory")
    parser.add_argument("--report", required=True, help="the Markdown report to write")
    parser.add_argument("--jobs", type=int, default=2, help="grid runs in parallel")
    parser.add_argument("--human-jobs", type=int, default=HUMAN_JOBS,
                        help="human-input grid runs in parallel")
    args = parser.parse_args()
    args.bin = os.path.abspath(args.bin)
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    started = time.time()

    sim = run_sim(args)
    verify = run_verify(args)
    connect = run_connect(args)
    connect["browser_join"], connect["browser_join_error"] = run_browser_join(args)
    connect["page_4x"], connect["page_4x_error"] = run_page_throttled(args)
    server = Server(args.bin)
    try:
        ref = run_reference(args, server)
        grid = run_grid(args, server)
        human = run_human_grid(args, server)
    finally:
        server.close()
    spectators = run_spectators(args)
    headline = {
        "rollback8_stress_us": round(sim["presets"]["stress"]["rollback8"], 1),
        "rollback8_default_us": round(sim["presets"]["default"]["rollback8"], 1),
        "save_checksum_vs_copy_hash": round(max(p["ratio"] for p in sim["presets"].values()), 2),
        "connect_ms_median": connect["connect_ms_median"],
        "connect_breakdown_ms": connect["breakdown_ms_median"],
        "connect_ms_join_median": connect.get("connect_ms_join_median"),
        "connect_ms_browser_join": (connect["browser_join"] or {}).get("connect_ms_browser_join"),
        "page_menu_join_ms": (connect["browser_join"] or {}).get("page_menu_join_ms"),
        "page_load_ms": {kind: v["median_ms"] for kind, v in
                         ((connect["browser_join"] or {}).get("page_load") or {}).items()},
        "page_4x_online_sim_ms_p99": ((connect["page_4x"] or {}).get("throttled_online_default")
                                      or {}).get("sim_ms_p99"),
        "payload_bytes_per_s": connect["payload_bytes_per_s"],
        "verify_speed_x_realtime": round(verify["default"]["x_realtime"], 1),
        "auto_delay_pareto_cells": sum(1 for r in grid["rows"] if r["on_front"]),
        "grid_cells": len(grid["rows"]),
        "human_auto_best_cells": sum(1 for r in human["rows"] if r["auto_best"]),
        "human_grid_cells": len(human["rows"]),
        "human_vs_table_wins": sum(1 for r in human["rows"]
                                   if r["versus"].get("table") == "win"),
        "spectator_catch_up_ms": {c["preset"]: c["caught_up_ms"] for c in spectators["catch_up"]},
        "stream_kb_per_min_per_spectator": next(
            u["per_spectator_kb_per_min"] for u in spectators["upload"] if u["spectators"] == 1),
    }
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump({"sim": sim, "verify": verify, "connect": connect, "reference": ref,
                   "grid": {**grid, "rows": [{**r, "cell": list(r["cell"])} for r in grid["rows"]]},
                   "human_grid": {**human, "rows": [{**r, "cell": list(r["cell"])}
                                                    for r in human["rows"]]},
                   "spectators": spectators, "headline": headline}, f, indent=1)
    plots = make_plots(args, sim, grid, human)
    write_report(args, sim, verify, connect, ref, grid, human, spectators, plots, headline,
                 time.time() - started)
    print(json.dumps(headline), flush=True)


if __name__ == "__main__":
    sys.exit(main())
