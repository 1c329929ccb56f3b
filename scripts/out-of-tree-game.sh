#!/usr/bin/env bash
# scripts/out-of-tree-game.sh [--build-only] [--connects N]
#
# The netcode as a stranger gets it (issue 46): Pong's game logic copied
# into a new cargo project outside the workspace, which depends on
# twinstar-netcode only as a package, from the .crate files that
# scripts/check-packages.sh wrote (`cargo package --workspace`), served by a
# cargo registry on disk (scripts/lib/local_registry.py; the usual way to
# try a publish offline). No path dependency, no [patch]: whatever the
# netcode needs (the ICE pacing of twinstar-matchbox-socket included) has
# to come through its package.
#
# Then it plays through `twinstar serve` ($TWINSTAR_BIN, else
# target/debug/twinstar): a match with a spectator who comes late and a
# 3 s cut of both players' packets, which must end with the same checksum
# on all three and a reconnect on each player; then N (5) short matches
# whose joiner's connect time (from its start to the first frame, the host
# waiting in the room) must have a median under 200 ms. (The host's
# figure also holds the wait for the joiner; scripts/net_bench.py counts
# both.)
#
# --build-only: make the project and build it (the background job of
# scripts/test.sh), no play.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."
root=$PWD

build_only=0
connects=5
while [ $# -gt 0 ]; do
    case $1 in
        --build-only) build_only=1 ;;
        --connects) connects=${2:?--connects N}; shift ;;
        *) echo "out-of-tree-game: unknown argument $1 (--build-only, --connects N)" >&2; exit 2 ;;
    esac
    shift
done

target_dir=$(realpath -m "${CARGO_TARGET_DIR:-target}")
packages=${TWINSTAR_PACKAGES_DIR:-$target_dir/package}
shopt -s nullglob
crate_files=("$packages"/twinstar-*.crate)
[ ${#crate_files[@]} -gt 0 ] ||
    { echo "out-of-tree-game: no packages in $packages (bash scripts/check-packages.sh writes them)" >&2; exit 1; }

# Outside the workspace (cargo looks for a [workspace] in the parents),
# rebuilt from scratch each time; its target dir is kept for the next run.
project=${TMPDIR:-/tmp}/twinstar-out-of-tree-game
# A registry per content: cargo keeps what it unpacked from a registry by
# name and version (~/.cargo/registry/src/), so a changed 0.1.0 under the
# same registry's address would build from the old one's sources.
registry=${TMPDIR:-/tmp}/twinstar-out-of-tree-registry/$(cat "${crate_files[@]}" | sha256sum | cut -c1-16)
rm -rf "$project" "$registry"
mkdir -p "$project/src" "$project/.cargo"
index=$(python3 scripts/lib/local_registry.py "$registry" "${crate_files[@]}")

# The game: Pong's three files, unchanged.
cp crates/pong/src/lib.rs crates/pong/src/main.rs crates/pong/src/window.rs "$project/src/"
netcode_version=$(sed -n 's/^version = "\(.*\)"/\1/p' crates/netcode/Cargo.toml | head -1)
# Pong's dependencies but the netcode, as Pong's manifest declares them.
others=$(sed -n '/^\[dependencies\]/,/^$/p' crates/pong/Cargo.toml | grep -v '^\[dependencies\]\|^twinstar-netcode\|^#\|^$')
cat > "$project/Cargo.toml" << EOF
[package]
name = "pong"
version = "0.1.0"
edition = "2024"
publish = false

[[bin]]
name = "pong"
path = "src/main.rs"

[dependencies]
twinstar-netcode = { version = "$netcode_version", registry = "twinstar-local" }
$others
EOF
cat > "$project/.cargo/config.toml" << EOF
[registries.twinstar-local]
index = "$index"
EOF
# The workspace's lock, so crates.io's crates are the versions every other
# test ran with (cargo drops what this project does not use).
cp Cargo.lock "$project/Cargo.lock"

echo "out-of-tree-game: $project: $(cat "$project"/src/*.rs | wc -l) lines of game ($(wc -l < "$project/Cargo.toml") of manifest), twinstar-netcode $netcode_version from $index" >&2
export CARGO_TARGET_DIR="$target_dir/out-of-tree-game"
(cd "$project" && cargo build --bin pong)
# Every one of ours from the registry: a path would not be what a stranger
# builds. (In the project: cargo finds the registry in its .cargo/.)
ours=$(cd "$project" && cargo tree -e normal --prefix none | sort -u | grep -E '^twinstar')
if echo "$ours" | grep -v 'registry `twinstar-local`'; then
    echo "out-of-tree-game: the crates above did not come from the packages" >&2
    exit 1
fi
echo "out-of-tree-game: from the packages: $(echo "$ours" | cut -d' ' -f1,2 | paste -sd' ')" >&2
[ "$build_only" = 1 ] && exit 0

pong=$CARGO_TARGET_DIR/debug/pong
twinstar=${TWINSTAR_BIN:-$root/target/debug/twinstar}
[ -x "$twinstar" ] || { echo "out-of-tree-game: no $twinstar (cargo build, or set TWINSTAR_BIN)" >&2; exit 1; }
work=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$twinstar" serve --bind "127.0.0.1:$port" > "$work/serve.log" 2>&1 &
serve=$!
trap 'kill $serve 2> /dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2> /dev/null && break
    sleep 0.1
done
server=ws://127.0.0.1:$port

# A match with a cut and a late spectator.
player() { # ROLE NAME
    "$pong" "$1" --room PNG3CT --server "$server" --frames 1200 --headless --seed 4 \
        --sim-outage 6:3 --json --record "$work/$2.tsr" > "$work/$2.json" 2> "$work/$2.log"
}
player host host &
host=$!
sleep 0.3
player join join &
join=$!
sleep 4
"$pong" watch --headless --room PNG3CT --server "$server" --json --record "$work/watch.tsr" \
    > "$work/watch.json" 2> "$work/watch.log" || { cat "$work/watch.log" >&2; exit 1; }
wait $host || { cat "$work/host.log" >&2; exit 1; }
wait $join || { cat "$work/join.log" >&2; exit 1; }
python3 - "$work" << 'EOF'
import json, sys
work = sys.argv[1]
s = {n: json.loads(open(f"{work}/{n}.json").read().strip().splitlines()[-1]) for n in ("host", "join", "watch")}
problems = []
for name, summary in s.items():
    if summary["frames"] != 1200 or summary["checksum"] != s["host"]["checksum"]:
        problems.append(f"{name} ended at frame {summary['frames']} with {summary['checksum']} (host: {s['host']['checksum']})")
for name in ("host", "join"):
    if (s[name].get("reconnects") or 0) < 1:
        problems.append(f"{name} counted no reconnect after the 3 s cut")
if s["host"].get("spectators") != 1:
    problems.append(f"the host counted {s['host'].get('spectators')} spectators, not 1")
if problems:
    sys.exit("out-of-tree-game: " + "; ".join(problems))
print(f"out-of-tree-game: host, joiner and spectator agree at frame 1200 ({s['host']['checksum']}); "
      f"reconnects {s['host']['reconnects']} and {s['join']['reconnects']}", file=sys.stderr)
EOF
for replay in host join watch; do
    "$pong" replay "$work/$replay.tsr" --json > "$work/verify-$replay.json" ||
        { echo "out-of-tree-game: $replay.tsr did not verify" >&2; exit 1; }
done

# Connect times: short matches, one room each.
alphabet=23456789ABCDEFGHJKMNPQRSTUVWXYZ # a room code's symbols
for i in $(seq "$connects"); do
    room=PNGC${alphabet:$((i % 31)):1}${alphabet:$((i / 31 % 31)):1}
    "$pong" host --room "$room" --server "$server" --frames 60 --headless --json > "$work/c$i-host.json" 2> "$work/c$i-host.log" &
    host=$!
    sleep 0.2
    "$pong" join --room "$room" --server "$server" --frames 60 --headless --json > "$work/c$i-join.json" 2> "$work/c$i-join.log" ||
        { cat "$work/c$i-join.log" >&2; exit 1; }
    wait $host || { cat "$work/c$i-host.log" >&2; exit 1; }
done
python3 - "$work" "$connects" << 'EOF'
import json, statistics, sys
work, runs = sys.argv[1], int(sys.argv[2])
def summary(i, side):
    return json.loads(open(f"{work}/c{i}-{side}.json").read().strip().splitlines()[-1])
# The joiner's connect: what a player waits after joining a host who is
# there. The host's includes waiting for the joiner to arrive (it starts
# 0.2 s earlier), printed beside it.
joins = [summary(i, "join") for i in range(1, runs + 1)]
hosts = [summary(i, "host")["connect_ms"] for i in range(1, runs + 1)]
times = [s["connect_ms"] for s in joins]
median = statistics.median(times)
steps = {step: statistics.median(s["connect_breakdown_ms"][step] for s in joins)
         for step in joins[0]["connect_breakdown_ms"]}
print(f"out-of-tree-game: the joiner's connect_ms over {runs} matches: median {median:g}, "
      f"max {max(times)} ({sorted(times)}); each step's median: {steps}; "
      f"the host's (from before the joiner started): {sorted(hosts)}", file=sys.stderr)
if median >= 200:
    sys.exit(f"out-of-tree-game: the median connect took {median:g} ms, not under 200")
EOF
