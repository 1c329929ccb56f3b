"""docs/balance.md from examples/balance.rs's JSON lines (one per seed,
then the report): the distribution and each target of issue 57."""
import json
import sys

KINDS = ["wanderer", "shooter", "charger", "sniper", "splitter", "splitling",
         "spinner", "warden", "hydra"]
PICKUPS = ["spread", "rapid", "pierce", "shield", "bomb", "life"]


def main(path, seeds):
    lines = [json.loads(l) for l in open(path) if l.strip()]
    runs, r = lines[:-1], lines[-1]
    def ok(cond):
        return "met" if cond else "**missed**"
    phases = r["boss_phases_seen"]
    rows = [
        ("median match length", "6-15 min", f"{r['median_minutes']:.1f} min",
         ok(6 <= r["median_minutes"] <= 15)),
        ("seeds that clear wave 3", ">= 90 %", f"{r['cleared_wave_3']:.0f} %",
         ok(r["cleared_wave_3"] >= 90)),
        ("seeds that defeat the first boss", "40-80 %", f"{r['beat_first_boss']:.0f} %",
         ok(40 <= r["beat_first_boss"] <= 80)),
        ("seeds that reach wave 11", "5-40 %", f"{r['reached_wave_11']:.0f} %",
         ok(5 <= r["reached_wave_11"] <= 40)),
        ("seeds with a revive", ">= 30 %", f"{r['with_a_revive']:.0f} %",
         ok(r["with_a_revive"] >= 30)),
        ("earliest end", "wave 2 or later", f"wave {r['min_wave']}", ok(r["min_wave"] >= 2)),
        ("every pickup kind taken", "all 6", ", ".join(
            f"{n} {c}" for n, c in zip(PICKUPS, r["pickups_taken"])),
         ok(all(c > 0 for c in r["pickups_taken"]))),
        ("bombs used", "> 0", str(r["bombs"]), ok(r["bombs"] > 0)),
        ("every enemy kind seen", "all 9", ", ".join(
            f"{n} {c}" for n, c in zip(KINDS, r["kinds_seen"])),
         ok(all(c > 0 for c in r["kinds_seen"]))),
        ("every boss phase seen", "3 + 3", f"warden {sum(phases[0])}, hydra {sum(phases[1])}",
         ok(all(phases[0]) and all(phases[1]))),
    ]
    waves = {}
    for run in runs:
        waves[run["wave"]] = waves.get(run["wave"], 0) + 1
    out = [
        "# Balance",
        "",
        "Written by `bash scripts/balance.sh` (do not edit by hand): the human-like",
        f"bot pair on seeds {seeds} of the `default` preset, each played to its first",
        "game over (cap 60 minutes of game time), as `twinstar local --headless",
        "--bot-style human --until-game-over --seed S` plays it. The test command",
        "runs a 5-seed short form (`tests/it/balance.rs`). Tune the director",
        "(`crates/sim/src/director.rs`, `SimConfig::DEFAULT`), not the bots.",
        "",
        "| target | wanted | measured | |",
        "|---|---|---|---|",
    ]
    out += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    out += [
        "",
        f"Match length: p10 {r['p10_minutes']:.1f} min, median {r['median_minutes']:.1f}, "
        f"p90 {r['p90_minutes']:.1f}. Waves reached: median {r['median_wave']}, "
        f"{r['min_wave']}-{r['max_wave']}.",
        "",
        "| highest wave | seeds |",
        "|---|---|",
    ]
    out += [f"| {w} | {n} |" for w, n in sorted(waves.items())]
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
