#!/usr/bin/env bash
# The project's one test command (README): formatting, lints, every test.
# Installs what the tests need on a fresh Debian machine when run as root.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=()
command -v cc >/dev/null || need_pkgs+=(gcc)
if [ ${#need_pkgs[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq "${need_pkgs[@]}"
fi

cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
# Benchmark smoke run: every headline figure once, a 2-cell delay grid; it
# writes bench/quick/ (gitignored), never the committed BENCHMARKS.md.
bash scripts/bench.sh --quick
