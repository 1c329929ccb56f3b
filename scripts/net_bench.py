#!/usr/bin/env python3
"""Online-play figures from two real twinstar processes on loopback.

    python3 scripts/net_bench.py connect [--runs 10]
        room code to first frame, median of both peers' connects over N
        matches, with each step's median (signaling, peer, handshake, sync,
        first frame) and one joiner's peer step split into ICE, DTLS and the
        data channels from webrtc-rs's log (also payload bytes/s)
    python3 scripts/net_bench.py link --rtt 100 --jitter 10 [--loss 5] [--delay auto|table|N]
            [--bot-style script|human] [--frames 1800]
        one match over the in-process link simulator: effective input
        latency (latency_ms), rollback frames per frame (rb_mean, rb_p99;
        rb_teleport_pct: % of frames after a rollback of 3 or more), stalls,
        input delay; the same figures as a cell of bench.sh's grids

Every result is printed as one JSON line. The binary is target/release/twinstar
(built if missing) unless TWINSTAR_BIN says otherwise. A signaling server is
started on a free loopback port for the duration of the run.
"""

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time

# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
os.environ["TWINSTAR_LAN_DISCOVERY"] = "off"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Characters of a failed peer's stderr shown.
TAIL = int(os.environ.get("NET_BENCH_TAIL", "1500"))
BIN = os.environ.get("TWINSTAR_BIN", os.path.join(ROOT, "target", "release", "twinstar"))


def ensure_binary():
    if not os.path.exists(BIN):
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`twinstar serve` on a free loopback port (`extra`: more arguments)."""

    def __init__(self, extra=()):
        self.extra = list(extra)

    def __enter__(self):
        port = free_port()
        self.url = f"ws://127.0.0.1:{port}"
        self.page = f"http://127.0.0.1:{port}/"
        self.proc = subprocess.Popen(
            [BIN, "serve", "--bind", f"127.0.0.1:{port}", *self.extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise SystemExit("net_bench: the signaling server did not start")

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def match(server, frames, host_extra=(), join_extra=(), room="BNC-H23"):
    """Plays one headless bot match; returns (host summary, join summary)."""
    summaries, _ = match_logged(server, frames, host_extra, join_extra, room)
    return summaries


def match_logged(server, frames, host_extra=(), join_extra=(), room="BNC-H23", env=None):
    """`match` with `env` added to both peers' environment; returns both
    summaries and both stderrs."""
    common = ["--server", server.url, "--stun", "none", "--headless", "--bot",
              "--frames", str(frames), "--json", "--no-record", "--timeout", "30"]
    env = {**os.environ, **(env or {})}
    host = subprocess.Popen([BIN, "host", "--room", room, *common, *host_extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(0.1)
    join = subprocess.Popen([BIN, "join", room, *common, *join_extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    limit = frames / 60 + 60
    peers = [("host", host), ("join", join)]
    outputs = [proc.communicate(timeout=limit) for _, proc in peers]
    failed = [name for name, proc in peers if proc.returncode != 0]
    if failed:
        # Both sides' last lines: the failing peer often only reports what the
        # other one did ("closed the connection").
        report = "\n".join(f"--- {name} (exit {proc.returncode}):\n{err.strip()[-TAIL:]}"
                           for (name, proc), (_, err) in zip(peers, outputs))
        raise SystemExit(f"net_bench: {', '.join(failed)} failed\n{report}")
    results = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
    if results[0]["checksum"] != results[1]["checksum"]:
        raise SystemExit("net_bench: the peers ended with different checksums")
    return (results[0], results[1]), (outputs[0][1], outputs[1][1])


def vm_hwm_kib(pid):
    """Peak resident memory of a running process, from /proc (Linux)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


class Spectator(threading.Thread):
    """`twinstar watch ROOM` started `at` seconds from now, headless, to the
    match's end; keeps its summary, its stderr and its peak memory."""

    def __init__(self, server, room, at):
        super().__init__(daemon=True)
        self.server, self.room, self.at = server, room, at
        self.summary, self.stderr, self.code, self.hwm_kib = None, "", None, 0

    def run(self):
        time.sleep(self.at)
        proc = subprocess.Popen(
            [BIN, "watch", self.room, "--server", self.server.url, "--stun", "none",
             "--headless", "--json", "--no-record", "--timeout", "60"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = []
        reader = threading.Thread(target=lambda: out.append(proc.communicate()), daemon=True)
        reader.start()
        while reader.is_alive():
            self.hwm_kib = max(self.hwm_kib, vm_hwm_kib(proc.pid) or 0)
            reader.join(0.2)
        stdout, self.stderr = out[0]
        self.code = proc.returncode
        if self.code == 0:
            self.summary = json.loads(stdout.strip().splitlines()[-1])


def watched_match(server, frames, spectators_at, extra=(), room="WCH-B23"):
    """One headless bot match with a spectator starting at each of
    `spectators_at` (seconds after the host); returns (host, join,
    spectators). Every spectator must end with the players' checksum."""
    spectators = [Spectator(server, room, at) for at in spectators_at]
    for s in spectators:
        s.start()
    host, join = match(server, frames, extra, extra, room=room)
    for s in spectators:
        s.join(60)
        if s.code != 0 or s.summary is None:
            raise SystemExit(f"net_bench: a spectator failed (exit {s.code})\n{s.stderr.strip()[-TAIL:]}")
        if s.summary["checksum"] != host["checksum"]:
            raise SystemExit("net_bench: a spectator ended apart from the players")
    return host, join, spectators


def cmd_spectators(args):
    with Server() as server:
        for count in [int(c) for c in args.counts.split(",")]:
            extra = ["--bot-style", args.bot_style]
            host, join, spectators = watched_match(server, args.seconds * 60, [0] * count, extra)
            behind = [s.summary["behind_live_ms"] for s in spectators]
            minutes = host["elapsed_s"] / 60
            stream = host["spectator_bytes_sent"]
            print(json.dumps({
                "spectators": count,
                "seconds": round(host["elapsed_s"], 1),
                "host_ggrs_kb_per_min": round(host["bytes_sent"] / minutes / 1000, 1),
                "host_stream_kb_per_min": round(stream / minutes / 1000, 1),
                "per_spectator_kb_per_min": round(stream / minutes / 1000 / count, 1) if count else None,
                "join_ggrs_kb_per_min": round(join["bytes_sent"] / minutes / 1000, 1),
                # Mean frames received but not yet shown, as time.
                "spectator_behind_live_ms": max(behind) if behind else None,
            }), flush=True)


def cmd_catch_up(args):
    played = round(args.minutes * 3600)
    # The spectator comes once the match has run MINUTES (about a second
    # of connecting first); the match goes on 10 s more.
    at = args.minutes * 60 + 1
    extra = ["--preset", args.preset, "--bot-style", args.bot_style]
    with Server() as server:
        host, _, (spectator,) = watched_match(server, played + 600, [at], extra)
    s = spectator.summary
    frame = None
    marker = "brought up to the present (frame "
    if marker in spectator.stderr:
        frame = int(spectator.stderr.split(marker, 1)[1].split(" ", 1)[0])
    # The first fast-forward is the match so far: the re-simulation's share.
    fast = re.search(r"fast-forwarded (\d+) frames to frame \d+ in (\d+) ms", spectator.stderr)
    print(json.dumps({
        "minutes": args.minutes,
        "preset": args.preset,
        "bot_style": args.bot_style,
        "caught_up_ms": s["caught_up_ms"],
        "caught_up_at_frame": frame,
        "fast_forward_frames": int(fast.group(1)) if fast else None,
        "fast_forward_ms": int(fast.group(2)) if fast else None,
        "bytes_received": s["bytes_received"],
        "behind_live_ms": s["behind_live_ms"],
        "peak_rss_mib": round(spectator.hwm_kib / 1024, 1),
        "players_frames": host["checksum_frame"],
    }), flush=True)


def per_second(summary, key):
    return summary[key] / max(summary["elapsed_s"], 1e-9)


# The steps of `connect_breakdown_ms`, in order (they add up to connect_ms).
STEPS = ["signaling", "peer", "handshake", "sync", "first_frame"]
# Log lines that split the joiner's `peer` step (webrtc-rs's own, at info):
# ICE connected, DTLS done (the peer connection connected), and ours when
# the partner's data channel is open.
PEER_MARKS = [("start", "contacting the signaling server"),
              ("ice", "Setting new connection state: Connected"),
              ("dtls", "peer connection state changed: connected"),
              ("channels", "twinstar_netcode::net::connect::player: hearing")]


def log_times(stderr):
    """Seconds of each PEER_MARKS line's first timestamp (RFC 3339, UTC)."""
    times = {}
    for line in stderr.splitlines():
        for name, mark in PEER_MARKS:
            if name not in times and mark in line:
                stamp = line.split(" ", 1)[0].rstrip("Z")
                hms = stamp.split("T")[1]
                h, m, sec = hms.split(":")
                times[name] = int(h) * 3600 + int(m) * 60 + float(sec)
    return times


def peer_split(server, frames):
    """One more match with webrtc-rs logging: the joiner's `peer` step as ICE,
    DTLS and the data channels' opening (ms), or None if a line is missing."""
    env = {"RUST_LOG": "info,rtc_ice=info,rtc=info"}
    _, (_, join_err) = match_logged(server, frames, env=env)
    t = log_times(join_err)
    if len(t) < len(PEER_MARKS):
        return None
    return {"ice": round((t["ice"] - t["start"]) * 1000),
            "dtls": round((t["dtls"] - t["ice"]) * 1000),
            "channels": round((t["channels"] - t["dtls"]) * 1000)}


def cmd_connect(args):
    connect, payload_up, payload_down, packets = [], [], [], []
    steps = {step: [] for step in STEPS}
    # The joiner's own: from its room code to its first frame (the host's
    # also holds the wait for the joiner's process to start).
    joins, join_steps = [], {step: [] for step in STEPS}
    with Server() as server:
        for _ in range(args.runs):
            host, join = match(server, args.frames)
            connect += [host["connect_ms"], join["connect_ms"]]
            joins.append(join["connect_ms"])
            for step in STEPS:
                join_steps[step].append(join["connect_breakdown_ms"][step])
            for side in (host, join):
                for step in STEPS:
                    steps[step].append(side["connect_breakdown_ms"][step])
            payload_up.append(per_second(host, "bytes_sent"))
            payload_down.append(per_second(join, "bytes_sent"))
            packets.append(per_second(host, "packets_sent"))
        split = peer_split(server, args.frames)
    print(json.dumps({
        "runs": args.runs,
        "connects": len(connect),
        "connect_ms_median": statistics.median(connect),
        "connect_ms_max": max(connect),
        # Each step's median over both peers' connects.
        "breakdown_ms_median": {step: statistics.median(v) for step, v in steps.items()},
        # The joiners alone (issue 60's figure: <= 100 ms over 10 joins).
        "connect_ms_join_median": statistics.median(joins),
        "connect_ms_join_all": joins,
        "join_breakdown_ms_median": {step: statistics.median(v) for step, v in join_steps.items()},
        # The joiner's `peer` step of one more match, from webrtc-rs's log:
        # signaling and ICE from the start, DTLS, the data channels opening.
        "joiner_peer_split_ms": split,
        "payload_bytes_per_s": round(statistics.median(payload_up + payload_down), 1),
        "packets_per_s": round(statistics.median(packets), 1),
    }))


def cmd_link(args):
    # The grid's own figures (bench.py), so a cell checked by hand reads the same.
    from bench import link_flags, measure
    flags = link_flags(args.rtt, args.jitter, args.loss, args.delay)
    flags += ["--bot-style", args.bot_style]
    with Server() as server:
        host, join = match(server, args.frames, flags, flags)
    m = measure([host, join])
    print(json.dumps({
        "rtt_ms": args.rtt,
        "jitter_ms": args.jitter,
        "loss_pct": args.loss,
        "delay": args.delay,
        "bot_style": args.bot_style,
        "input_delay": [host["input_delay"], join["input_delay"]],
        "measured_rtt_ms": host["handshake_rtt_ms"],
        "latency_ms": round(m["latency_ms"], 1),
        "rb_mean": round(m["rollback_mean"], 3),
        "rb_p99": m["rollback_p99"],
        "rb_teleport_pct": round(100 * m["rollback_teleport"], 2),
        "rb_max": m["rollback_max"],
        "stalls": m["stalled"],
        "skipped": m["skipped"],
        "delay_changes": m["delay_changes"],
    }))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("connect")
    c.add_argument("--runs", type=int, default=10)
    c.add_argument("--frames", type=int, default=600)
    l = sub.add_parser("link")
    l.add_argument("--rtt", type=float, required=True)
    l.add_argument("--jitter", type=float, default=0)
    l.add_argument("--loss", type=float, default=0)
    l.add_argument("--delay", default="auto", help="auto, table (the Fightcade/nullDC ping table) or frames")
    l.add_argument("--bot-style", default="script", choices=["script", "human"])
    l.add_argument("--frames", type=int, default=1800)
    w = sub.add_parser("spectators")
    w.add_argument("--seconds", type=int, default=30)
    w.add_argument("--counts", default="0,1,8")
    w.add_argument("--bot-style", default="script", choices=["script", "human"])
    k = sub.add_parser("catch-up")
    k.add_argument("--minutes", type=float, default=10)
    k.add_argument("--preset", default="default")
    k.add_argument("--bot-style", default="human", choices=["script", "human"])
    args = parser.parse_args()
    ensure_binary()
    commands = {"connect": cmd_connect, "link": cmd_link, "spectators": cmd_spectators,
                "catch-up": cmd_catch_up}
    commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
