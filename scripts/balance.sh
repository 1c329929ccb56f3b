#!/usr/bin/env bash
# Balance as a benchmark (DESIGN.md, decision 5; issue 57): the human-like
# bot pair plays each seed of the default preset to its first game over
# (cap 60 minutes of game time), and docs/balance.md gets the distribution
# and the targets. The test command runs a 5-seed short form
# (tests/it/balance.rs); this is the full run (about 30 s for 100 seeds).
#
#   bash scripts/balance.sh [--seeds FROM-TO] [--cap MINUTES] [--out FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=1-100 cap=60 out=docs/balance.md
while [ $# -gt 0 ]; do
    case $1 in
        --seeds) seeds=$2; shift 2 ;;
        --cap) cap=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "balance.sh: unknown argument '$1' (--seeds FROM-TO, --cap MINUTES, --out FILE)" >&2; exit 2 ;;
    esac
done
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
cargo run --quiet --locked --example balance -- "$seeds" "$cap" > "$lines"
python3 scripts/lib/balance_report.py "$lines" "$seeds" > "$out"
echo "balance.sh: wrote $out" >&2
tail -n 1 "$lines"
