#!/usr/bin/env bash
# Checks that the README's play command installs what building the game
# needs on a fresh Debian machine (scripts/lib/debian-packages.sh is the
# one list; issue 38: play.sh once missed libudev-dev and nothing noticed).
#
#   scripts/check-system-deps.sh                 the two quick checks
#   scripts/check-system-deps.sh --fresh-root    and the real thing
#
# Quick checks (seconds, no root):
# 1. Every crate of the native build that links a system library (a
#    `links` key, from `cargo metadata`) is listed in
#    SYSTEM_LIBRARY_CRATES with its Debian package, and that package is in
#    DEBIAN_BUILD (or the crate builds its own code: BUNDLED_LINKS_CRATES);
#    and the .deb's Depends names every package of DEBIAN_RUN (the libraries
#    the game opens at run time, which dpkg-shlibdeps cannot see).
# 2. scripts/play.sh, run with a stand-in dpkg that says nothing is
#    installed and stand-ins for apt-get and cargo, asks apt-get for every
#    package of DEBIAN_BUILD and DEBIAN_RUN.
#
# --fresh-root (root; about 3 minutes): a minimal Debian root made with
# debootstrap from Debian's packages (its tarball kept in target/fresh-root
# between runs; a new root unpacked from it each run), this work tree
# copied in, and
# `bash scripts/play.sh --version` run inside it as a new user would: its
# own setup installs the packages, then it builds the game and runs it.
# Rust comes from this machine's toolchain (bind-mounted read-only), the
# crates from this machine's cargo cache (an overlay, offline: run it after
# a build has fetched them); everything else only
# from what play.sh installed. The build uses the release profile without
# optimisation (CARGO_PROFILE_RELEASE_* in the environment): what it proves
# is that every build script finds its library and the game links.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."
repo=$PWD
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh

fail() {
    echo "check-system-deps: FAILED: $*" >&2
    exit 1
}

fresh_root=0
case "${1:-}" in
    "") ;;
    --fresh-root) fresh_root=1 ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "check-system-deps: unknown argument '$1' (try --help)" >&2
        exit 2
        ;;
esac

# --- 1. crates that link system libraries ------------------------------------
host=$(rustc -vV | sed -n 's/^host: //p')
linking=$(cargo metadata --format-version 1 --locked --filter-platform "$host" |
    python3 -c '
import json, sys
m = json.load(sys.stdin)
used = {n["id"] for n in m["resolve"]["nodes"]}
for p in m["packages"]:
    if p["id"] in used and p.get("links"):
        print(p["name"])
') || fail "cargo metadata did not run"
for crate in $linking; do
    pkg=""
    for entry in "${SYSTEM_LIBRARY_CRATES[@]}"; do
        [ "${entry%%=*}" = "$crate" ] && pkg="${entry#*=}"
    done
    if [ -z "$pkg" ]; then
        for bundled in "${BUNDLED_LINKS_CRATES[@]}"; do
            [ "$bundled" = "$crate" ] && pkg=bundled
        done
        [ -n "$pkg" ] || fail "the crate $crate links a system library but scripts/lib/debian-packages.sh does not say which Debian package provides it: add it to SYSTEM_LIBRARY_CRATES (and the package to DEBIAN_BUILD), or to BUNDLED_LINKS_CRATES if it compiles its own"
        continue
    fi
    [[ " ${DEBIAN_BUILD[*]} " == *" $pkg "* ]] ||
        fail "the crate $crate needs $pkg, which is not in DEBIAN_BUILD (scripts/lib/debian-packages.sh)"
done
echo "check-system-deps: crates linking system libraries, each with its package: $(echo "$linking" | tr '\n' ' ')" >&2

# The .deb's Depends (Cargo.toml, package.metadata.deb) must name what the
# game opens at run time, which dpkg-shlibdeps cannot see.
depends=$(cargo metadata --format-version 1 --locked --no-deps |
    python3 -c 'import json, sys; print(next(p for p in json.load(sys.stdin)["packages"] if p["name"] == "twinstar")["metadata"]["deb"]["depends"])') ||
    fail "cannot read package.metadata.deb.depends from Cargo.toml"
for pkg in "${DEBIAN_RUN[@]}"; do
    [[ ", $depends," == *", $pkg,"* ]] ||
        fail "the .deb does not depend on $pkg (DEBIAN_RUN): add it to package.metadata.deb.depends in Cargo.toml"
done
echo "check-system-deps: the .deb depends on $depends" >&2

# --- 2. play.sh asks for the lists ---------------------------------------------
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\nexit 1\n' > "$fake/dpkg"
printf '#!/bin/sh\necho "$@" >> "%s/apt.log"\n' "$fake" > "$fake/apt-get"
printf '#!/bin/sh\nexit 0\n' > "$fake/cargo"
printf '#!/bin/sh\n"$@"\n' > "$fake/sudo"
chmod +x "$fake"/*
PATH="$fake:$PATH" bash scripts/play.sh --version > /dev/null 2>&1 || fail "scripts/play.sh with stand-ins for dpkg, apt-get and cargo failed"
for pkg in "${DEBIAN_BUILD[@]}" "${DEBIAN_RUN[@]}"; do
    grep -qw -- "$pkg" "$fake/apt.log" 2> /dev/null ||
        fail "scripts/play.sh on a fresh machine does not install $pkg"
done
echo "check-system-deps: play.sh installs all of ${DEBIAN_BUILD[*]} ${DEBIAN_RUN[*]}" >&2

[ "$fresh_root" = 1 ] || exit 0

# --- 3. play.sh in a fresh Debian root -----------------------------------------
# shellcheck source=lib/fresh-root.sh
source scripts/lib/fresh-root.sh
rm -rf "$fake"
started=$(date +%s)
fresh_root_start check-system-deps
fresh_root_rust
mkdir -p "$FRESH_ROOT/src"
# The work tree as it is (committed or not, less what git ignores).
git -C "$repo" ls-files -z --cached --others --exclude-standard |
    (cd "$repo" && xargs -0 tar -cf - --no-recursion --ignore-failed-read) | tar -C "$FRESH_ROOT/src" -xf -
toolchain=$(rustup show active-toolchain | cut -d' ' -f1)
log="$FRESH_CACHE/play.log"
echo "check-system-deps: bash scripts/play.sh --version in the fresh root (log: $log)" >&2
FRESH_ENV=(RUSTUP_TOOLCHAIN="$toolchain" CARGO_NET_OFFLINE=true CARGO_TARGET_DIR=/build
    CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=false
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256)
# The test command's compiler cache, when it has one (a warm run's fresh
# root compiles only the game's own crates).
fresh_root_sccache
if ! fresh_root_run 'cd /src && bash scripts/play.sh --version' > "$log" 2>&1; then
    grep -E "error|failed|could not" "$log" | head -20 >&2
    fail "the README's play command did not build and run the game in a fresh Debian root (log: $log)"
fi
version=$(tail -n 1 "$log")
echo "check-system-deps: a fresh Debian root built and ran the game through play.sh ($version) in $(($(date +%s) - started)) s" >&2
