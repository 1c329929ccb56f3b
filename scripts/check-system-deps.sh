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
#    DEBIAN_BUILD (or the crate builds its own code: BUNDLED_LINKS_CRATES).
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
[ "$(id -u)" = 0 ] || fail "--fresh-root needs root (debootstrap, chroot, mounts)"
command -v debootstrap > /dev/null || debian_install check-system-deps debootstrap
command -v debootstrap > /dev/null || fail "debootstrap is missing (apt-get install debootstrap)"
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$repo/$target_dir" ;; esac
cache="$target_dir/fresh-root"
base="$cache/base.tar"
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2> /dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$cache"
started=$(date +%s)
if [ ! -s "$base" ]; then
    echo "check-system-deps: debootstrap $suite (minbase) from $mirror" >&2
    made=$(mktemp -d)
    debootstrap --variant=minbase "$suite" "$made" "$mirror" > "$cache/debootstrap.log" 2>&1 ||
        { tail -20 "$cache/debootstrap.log" >&2; rm -rf "$made"; fail "debootstrap failed"; }
    tar -C "$made" -cf "$base.new" . && mv "$base.new" "$base"
    rm -rf "$made"
fi
# A new root from the pristine one each run (what play.sh installed last
# time must not help it this time), outside the target directory so that
# nothing that cleans it walks into a mount. This machine's cargo home is
# seen through an overlay: the root may write to it (locks), never change it.
work=$(mktemp -d)
root="$work/root"
umount_all() {
    for m in "$root/root/.cargo" "$root/root/.rustup" "$root/proc"; do
        mountpoint -q "$m" 2> /dev/null && umount -l "$m"
    done
    return 0
}
trap 'umount_all; rm -rf "$fake"; mountpoint -q "$root/proc" || rm -rf "$work"' EXIT
mkdir -p "$root" "$work/cargo-upper" "$work/cargo-work"
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp -r /etc/apt/sources.list.d/. "$root/etc/apt/sources.list.d/" 2> /dev/null || true
mkdir -p "$root/src" "$root/root/.rustup" "$root/root/.cargo"
# The work tree as it is (committed or not, less what git ignores).
git -C "$repo" ls-files -z --cached --others --exclude-standard |
    (cd "$repo" && xargs -0 tar -cf - --no-recursion --ignore-failed-read) | tar -C "$root/src" -xf -
mount -t proc proc "$root/proc"
mount --bind -o ro "${RUSTUP_HOME:-$HOME/.rustup}" "$root/root/.rustup"
mount -t overlay overlay -o "lowerdir=${CARGO_HOME:-$HOME/.cargo},upperdir=$work/cargo-upper,workdir=$work/cargo-work" \
    "$root/root/.cargo"
toolchain=$(rustup show active-toolchain | cut -d' ' -f1)
log="$cache/play.log"
echo "check-system-deps: bash scripts/play.sh --version in the fresh root (log: $log)" >&2
if ! chroot "$root" /usr/bin/env -i HOME=/root PATH=/root/.cargo/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    RUSTUP_TOOLCHAIN="$toolchain" CARGO_NET_OFFLINE=true CARGO_TARGET_DIR=/build \
    DEBIAN_FRONTEND=noninteractive \
    CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=false \
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 \
    bash -c 'cd /src && bash scripts/play.sh --version' > "$log" 2>&1; then
    grep -E "error|failed|could not" "$log" | head -20 >&2
    fail "the README's play command did not build and run the game in a fresh Debian root (log: $log)"
fi
version=$(tail -n 1 "$log")
echo "check-system-deps: a fresh Debian root built and ran the game through play.sh ($version) in $(($(date +%s) - started)) s" >&2
