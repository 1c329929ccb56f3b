#!/usr/bin/env python3
"""The human-input delay grid with repeated runs: every cell and policy
played with several seeds, judged on the medians.

    python3 scripts/delay_grid.py [--seeds 5] [--frames 1800] [--jobs 4]
        [--cells 80/0/0,160/20/5,80/0/20/4] [--policies auto,0,1,2,3,4,table]
        [--out target/delay-grid.json] [--markdown FILE]

Each run is bench.py's (`play`, `measure`): two headless bots with
human-like input over the link simulator (RTT/2 each way, jitter, loss;
a fourth number is the mean length of a run of lost packets,
`--sim-loss-burst`), both peers with the same `--input-delay`. Seeds 1..N change the bots'
inputs (and the link's dice). Per cell and policy it reports the median
and spread (min-max) of the felt latency (ms) and of the p99 rollback, and
the delay changes per minute; a cell's verdict is bench.py's human-input
criterion (`judge`) applied to the medians. Prints one JSON line per cell
as it goes, then a summary line; writes all runs to --out.

The full grid (24 cells x 7 policies x 5 seeds of 30 s) takes about 1 h 45
min with 4 jobs on two cores; --cells and --frames make shorter samples.
"""

import argparse
import concurrent.futures
import json
import os
import statistics
import sys
import threading

# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
os.environ["TWINSTAR_LAN_DISCOVERY"] = "off"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (play, measure, judge, the grid's constants)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCK = threading.Lock()


def cells_arg(text):
    if not text:
        return bench.grid_cells(False)
    cells = [tuple(int(v) for v in cell.split("/")) for cell in text.split(",")]
    for cell in cells:
        if len(cell) not in (3, 4):
            raise SystemExit(f"delay_grid: a cell is RTT/JITTER/LOSS[/BURST], got {cell}")
    return cells


def cell_flags(cell, policy):
    """The twinstar flags for a cell: RTT/JITTER/LOSS and, when given, the
    mean length of a run of lost packets."""
    flags = bench.link_flags(*cell[:3], policy)
    if len(cell) == 4:
        flags += ["--sim-loss-burst", str(cell[3])]
    return flags


def cell_name(cell):
    return "/".join(str(v) for v in cell)


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def median_run(runs):
    """One figures dict of a policy's runs, its medians, for `judge` and
    `front`."""
    return {key: statistics.median(r.get(key, 0) for r in runs)
            for key in ("latency_ms", "rollback_p99", "rollback_mean", "stalled")}


def front(medians):
    """The Pareto test on the medians (bench.dominates: lower felt latency
    and fewer rollback frames a frame, each beyond its noise tolerance).
    The continuous rollback measure, not the integer p99 that `judge`
    reads: on the p99's 1 % line the same delay reads 2 in one run and 3
    in the next. A weaker test than `judge`'s (a lower delay is rarely
    dominated by a higher one), reported beside it."""
    auto = medians.get("auto")
    if auto is None:
        return {"on_front": False, "dominated_by": ["failed run"]}
    by = [p for p, m in medians.items() if p != "auto" and m and bench.dominates(m, auto)]
    return {"on_front": not by, "dominated_by": by}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--frames", type=int, default=bench.HUMAN_FRAMES)
    parser.add_argument("--jobs", type=int, default=bench.HUMAN_JOBS)
    parser.add_argument("--cells", default="", help="RTT/JITTER/LOSS,... (default: all 24)")
    parser.add_argument("--policies", default=",".join(bench.HUMAN_POLICIES))
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "twinstar"))
    parser.add_argument("--out", default=os.path.join(ROOT, "target", "delay-grid.json"))
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args()
    if not os.path.exists(args.bin):
        raise SystemExit(f"delay_grid: no binary at {args.bin} (cargo build --release)")
    cells, policies = cells_arg(args.cells), args.policies.split(",")
    if "auto" not in policies:
        raise SystemExit("delay_grid: --policies must include auto")
    jobs = [(cell, policy, seed) for cell in cells for policy in policies
            for seed in range(1, args.seeds + 1)]
    results = {}

    def one(job):
        cell, policy, seed = job
        flags = cell_flags(cell, policy) + ["--bot-style", bench.HUMAN_BOT_STYLE]
        for attempt in range(2):
            try:
                host, join, _ = bench.play(args, server, args.frames, flags, seed=seed)
                m = bench.measure([host, join])
                minutes = max(host["elapsed_s"], 1e-3) / 60
                m["delay_changes_per_min"] = m["delay_changes"] / 2 / minutes
                # What each peer's loss meter counted (net::loss).
                m["loss_measured_pct"] = [s.get("loss_pct") for s in (host, join)]
                return job, m
            except Exception as e:  # noqa: BLE001  (a failed run is retried once, then reported)
                with LOCK:
                    print(f"delay_grid: {job} attempt {attempt + 1}: {e}", file=sys.stderr)
        return job, None

    server = bench.Server(args.bin)
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for job, m in pool.map(one, jobs):
                results[job] = m
    finally:
        server.close()
    rows = []
    for cell in cells:
        per = {}
        for policy in policies:
            runs = [results[(cell, policy, s)] for s in range(1, args.seeds + 1)]
            runs = [r for r in runs if r is not None]
            per[policy] = {
                "runs": len(runs),
                "latency_ms": spread([r["latency_ms"] for r in runs]) if runs else None,
                "rollback_p99": spread([r["rollback_p99"] for r in runs]) if runs else None,
                "rollback_mean": spread([r["rollback_mean"] for r in runs]) if runs else None,
                "delay_changes_per_min": spread([r["delay_changes_per_min"] for r in runs])
                if runs else None,
                "median": median_run(runs) if runs else None,
            }
        medians = {p: per[p]["median"] for p in policies}
        verdict = bench.judge(medians)
        row = {"cell": cell, "policies": per, **verdict, **front(medians)}
        rows.append(row)
        print(json.dumps({"cell": cell, "auto_best": verdict["auto_best"],
                          "versus": verdict["versus"]}), flush=True)
    with open(args.out, "w") as f:
        json.dump({"seeds": args.seeds, "frames": args.frames, "rows": rows,
                   "runs": {f"{c}|{p}|{s}": m for (c, p, s), m in results.items()}}, f)
    if args.markdown:
        write_markdown(args, rows, policies)
    print(json.dumps({
        "cells": len(rows),
        "auto_best_cells": sum(1 for r in rows if r["auto_best"]),
        "auto_on_front_cells": sum(1 for r in rows if r["on_front"]),
        "beats_table_cells": sum(1 for r in rows if r["versus"].get("table") == "win"),
        "ties_table_cells": sum(1 for r in rows if r["versus"].get("table") == "tie"),
        "delay_changes_per_min_max": max(
            (r["policies"]["auto"]["delay_changes_per_min"]["max"] for r in rows
             if r["policies"]["auto"]["delay_changes_per_min"]), default=None),
        "out": args.out,
    }))


def write_markdown(args, rows, policies):
    """Per cell: each policy's median latency and p99 rollback with their
    spread, auto's delay changes per minute, and the verdict."""
    lines = [f"Repeated human-input grid: {args.seeds} seeds per cell and policy, "
             f"{args.frames} frames a run (`python3 scripts/delay_grid.py --seeds {args.seeds} "
             f"--frames {args.frames}`). Cells: latency ms median (min-max) / p99 rollback "
             f"median (min-max).", "",
             "| RTT/jitter/loss[/burst] | " + " | ".join(policies) + " | auto changes/min | auto best |",
             "|---|" + "---|" * (len(policies) + 2)]
    for row in rows:
        cells = []
        for p in policies:
            f = row["policies"][p]
            if not f["latency_ms"]:
                cells.append("failed")
                continue
            la, rb = f["latency_ms"], f["rollback_p99"]
            cells.append(f"{la['median']:.1f} ({la['min']:.1f}-{la['max']:.1f}) / "
                         f"{rb['median']:g} ({rb['min']:g}-{rb['max']:g})")
        ch = row["policies"]["auto"]["delay_changes_per_min"]
        changes = f"{ch['median']:.2f} (max {ch['max']:.2f})" if ch else "-"
        lines.append(f"| {cell_name(row['cell'])} | " + " | ".join(cells)
                     + f" | {changes} | {'yes' if row['auto_best'] else '**no**'} |")
    best = sum(1 for r in rows if r["auto_best"])
    table = sum(1 for r in rows if r["versus"].get("table") == "win")
    changes = [r["policies"]["auto"]["delay_changes_per_min"] for r in rows
               if r["policies"]["auto"]["delay_changes_per_min"]]
    lines += ["", f"**Auto is best in {best} of {len(rows)} cells by the medians** and beats "
              f"the ping table in {table}; its delay changes per minute: median "
              f"{statistics.median(c['median'] for c in changes):.2f}, at most "
              f"{max(c['max'] for c in changes):.2f} in any run. On the Pareto front of "
              f"felt latency and rollback frames a frame (medians, `front`) in "
              f"{sum(1 for r in rows if r['on_front'])} of {len(rows)}."]
    lost = [r for r in rows if not r["auto_best"]]
    for r in lost:
        burst = f" in runs of {r['cell'][3]}" if len(r["cell"]) == 4 else ""
        lines.append(f"- Not best: RTT {r['cell'][0]}, jitter {r['cell'][1]}, loss "
                     f"{r['cell'][2]} %{burst} (passing instead: {r['beaten_by']}).")
    with open(args.markdown, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
