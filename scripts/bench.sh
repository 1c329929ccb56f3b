#!/usr/bin/env bash
# Benchmarks: simulation costs, replay verification, connect time, payload,
# memory, the input-delay policy grids (scripted and human-like input) and
# spectators (upload, late catch-up).
# Writes BENCHMARKS.md and the PNG
# plots in bench/, and prints one JSON line of headline figures last.
#
#   bash scripts/bench.sh           # the full report (~75 min on 2 cores)
#   bash scripts/bench.sh --quick   # CI smoke run (a few minutes), writes
#                                   # bench/quick/ (gitignored) instead
#   --profile NAME                  # the Cargo profile measured (default
#                                   # release; CI's smoke run passes dev, the
#                                   # build its tests made: its speed
#                                   # figures are then not release figures)
#
# Environment: TWINSTAR_BIN, a twinstar already built with that profile
# (CI's test build), else bench.sh builds one.
#
# On a fresh Debian machine run as root: it installs what it needs (a C
# compiler, ALSA headers, python3-venv) and puts matplotlib in a venv under
# target/. Without root it uses what is there; without matplotlib it still
# measures everything and only skips the plots.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."

quick=0 profile=release
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --profile)
            [ $# -gt 1 ] || { echo "bench.sh: --profile needs a Cargo profile's name" >&2; exit 2; }
            profile=$2
            shift
            ;;
        -h | --help) sed -n 2,21p "$0"; exit 0 ;;
        *) echo "bench.sh: unknown argument $1 (expected --quick or --profile NAME)" >&2; exit 2 ;;
    esac
    shift
done
# Cargo puts the dev profile's build in debug/, any other in its name.
profile_dir=$profile
[ "$profile" = dev ] && profile_dir=debug

# System packages (Debian, as root only).
need_pkgs=()
command -v cc >/dev/null || need_pkgs+=(gcc)
command -v python3 >/dev/null || need_pkgs+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || need_pkgs+=(python3-venv)
# What building the game needs (scripts/lib/debian-packages.sh).
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh
if command -v dpkg >/dev/null; then
    mapfile -t -O "${#need_pkgs[@]}" need_pkgs < <(debian_missing "${DEBIAN_BUILD[@]}")
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
    else
        echo "bench.sh: missing ${need_pkgs[*]} (run as root to install them); trying anyway" >&2
    fi
fi

# matplotlib for the plots, in a venv of our own.
venv=target/bench-venv
py=python3
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    py="$venv/bin/python"
elif python3 -m venv "$venv" >/dev/null 2>&1 &&
    "$venv/bin/python" -m pip install -q --disable-pip-version-check 'matplotlib>=3.6,<4' >&2; then
    py="$venv/bin/python"
elif python3 -c 'import matplotlib' 2>/dev/null; then
    py=python3
else
    echo "bench.sh: could not install matplotlib; the report will have no plots" >&2
fi

# One binary for the whole run, copied so a rebuild elsewhere cannot swap it.
bin=${TWINSTAR_BIN:-}
if [ -z "$bin" ]; then
    cargo build --profile "$profile" --locked >&2
    bin="${CARGO_TARGET_DIR:-target}/$profile_dir/twinstar"
fi
[ -x "$bin" ] || { echo "bench.sh: no twinstar at $bin" >&2; exit 1; }
if [ $quick = 1 ]; then
    out=bench/quick work=target/bench-work-quick report=bench/quick/BENCHMARKS.md
else
    out=bench work=target/bench-work report=BENCHMARKS.md
fi
mkdir -p "$out" "$work"
cp "$bin" "$work/twinstar"

args=(--bin "$work/twinstar" --profile "$profile" --out "$out" --work "$work" --report "$report")
[ $quick = 1 ] && args+=(--quick)
exec "$py" scripts/bench.py "${args[@]}"
