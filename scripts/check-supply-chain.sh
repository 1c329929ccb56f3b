#!/usr/bin/env bash
# The supply chain (issue 45): `cargo deny check` (deny.toml: advisories,
# licences, banned crates, sources), for the workspace and for the fuzz
# crate, against the RustSec snapshot in
# ../shared/advisory-db.bundle, offline: nothing here can fetch the live
# database. Installs cargo-deny when it is missing (a pinned version: the
# directory it reads its database from is named by it).
#
#   bash scripts/check-supply-chain.sh [--install-only | --is-installed]
#
# TWINSTAR_ADVISORY_BUNDLE names another bundle; with neither it, nor the
# shared one, nor an earlier clone, it fails and says so.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=lib/cargo-tool.sh
source scripts/lib/cargo-tool.sh
CARGO_DENY_VERSION=0.20.2
cargo_tool check-supply-chain deny cargo-deny "$CARGO_DENY_VERSION" "${1:-}"

target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
export TWINSTAR_ADVISORY_DBS="$target_dir/advisory-dbs"
bundle="${TWINSTAR_ADVISORY_BUNDLE:-$PWD/../shared/advisory-db.bundle}"

# cargo-deny reads its database from a directory named after the database's
# URL (advisory-db-HASH under db-path); asked offline with none there, it
# names it. The snapshot is cloned there, anew when the bundle changed.
db=$(find "$TWINSTAR_ADVISORY_DBS" -maxdepth 1 -name 'advisory-db-*' -type d 2> /dev/null | head -n 1 || true)
if [ -z "$db" ]; then
    mkdir -p "$TWINSTAR_ADVISORY_DBS"
    db=$(cargo deny --offline check advisories 2>&1 | grep -o "$TWINSTAR_ADVISORY_DBS/advisory-db-[0-9a-f]*" | head -n 1 || true)
    [ -n "$db" ] || { echo "check-supply-chain: cargo-deny $CARGO_DENY_VERSION did not say where it reads the advisory database" >&2; exit 1; }
fi
if [ -f "$bundle" ]; then
    if [ ! -f "$db/.bundle-stamp" ] || ! cmp -s <(sha256sum < "$bundle") "$db/.bundle-stamp"; then
        rm -rf "$db"
        git clone --quiet "$bundle" "$db" 2> /dev/null
        sha256sum < "$bundle" > "$db/.bundle-stamp"
    fi
elif [ ! -d "$db/.git" ]; then
    echo "check-supply-chain: no advisory database: $bundle is missing (TWINSTAR_ADVISORY_BUNDLE names another)" >&2
    exit 1
fi
snapshot=$(git -C "$db" log -1 --format='%cs %s' | cut -c1-120)
echo "check-supply-chain: cargo deny check against $snapshot" >&2
cargo deny --offline check --show-stats
# The fuzz workspace has a lock file of its own (fuzz/Cargo.lock): the same
# rules (it once kept time 0.3.45 after the workspace had left it).
echo "check-supply-chain: the same for fuzz/Cargo.lock" >&2
cargo deny --offline --manifest-path fuzz/Cargo.toml --config deny.toml check --show-stats
