# A throwaway Debian root, as on a new player's machine: made once with
# debootstrap (minbase) from Debian's packages and kept as a tarball in
# TARGET/fresh-root, unpacked anew for every check so that nothing one
# check installed helps the next. Used by scripts/check-system-deps.sh
# --fresh-root (the README's play command) and scripts/check-deb.sh (the
# .deb). Sourced after debian-packages.sh, not run; needs root.
#
#   fresh_root_start WHO      sets FRESH_ROOT (the root) and FRESH_CACHE
#   fresh_root_rust           shows this machine's Rust inside it
#   fresh_root_sccache        the test command's compiler cache inside it
#                             (when it has one: scripts/lib/sccache.sh)
#   fresh_root_run CMD...     runs CMD in it (bash -c), clean environment
#   fresh_root_end            unmounts and removes it (also on EXIT)
#
# The root lives outside the target directory (mktemp), so nothing that
# cleans target/ walks into its mounts.

# shellcheck source=sccache.sh
source "$(dirname "${BASH_SOURCE[0]}")/sccache.sh"

fresh_root_start() {
    local who=$1 repo target_dir suite mirror made
    repo=$(git rev-parse --show-toplevel)
    [ "$(id -u)" = 0 ] || { echo "$who: a fresh root needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
    command -v debootstrap > /dev/null || debian_install "$who" debootstrap
    command -v debootstrap > /dev/null || { echo "$who: debootstrap is missing" >&2; exit 1; }
    target_dir="${CARGO_TARGET_DIR:-target}"
    case "$target_dir" in /*) ;; *) target_dir="$repo/$target_dir" ;; esac
    FRESH_CACHE="$target_dir/fresh-root"
    local base="$FRESH_CACHE/base.tar"
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2> /dev/null | head -n 1)
    mirror=${mirror:-http://deb.debian.org/debian}
    mkdir -p "$FRESH_CACHE"
    if [ ! -s "$base" ]; then
        echo "$who: debootstrap $suite (minbase) from $mirror" >&2
        made=$(mktemp -d)
        if ! debootstrap --variant=minbase "$suite" "$made" "$mirror" > "$FRESH_CACHE/debootstrap.log" 2>&1; then
            tail -20 "$FRESH_CACHE/debootstrap.log" >&2
            rm -rf "$made"
            echo "$who: debootstrap failed" >&2
            exit 1
        fi
        tar -C "$made" -cf "$base.new" . && mv "$base.new" "$base"
        rm -rf "$made"
    fi
    FRESH_WORK=$(mktemp -d)
    FRESH_ROOT="$FRESH_WORK/root"
    trap fresh_root_end EXIT
    mkdir -p "$FRESH_ROOT"
    tar -C "$FRESH_ROOT" -xf "$base"
    cp /etc/resolv.conf "$FRESH_ROOT/etc/resolv.conf"
    cp -r /etc/apt/sources.list.d/. "$FRESH_ROOT/etc/apt/sources.list.d/" 2> /dev/null || true
    mount -t proc proc "$FRESH_ROOT/proc"
}

# This machine's Rust toolchain (read-only) and cargo home (an overlay: the
# root may take locks there, never change it) at /root inside.
fresh_root_rust() {
    mkdir -p "$FRESH_ROOT/root/.rustup" "$FRESH_ROOT/root/.cargo" "$FRESH_WORK/cargo-upper" "$FRESH_WORK/cargo-work"
    mount --bind -o ro "${RUSTUP_HOME:-$HOME/.rustup}" "$FRESH_ROOT/root/.rustup"
    mount -t overlay overlay \
        -o "lowerdir=${CARGO_HOME:-$HOME/.cargo},upperdir=$FRESH_WORK/cargo-upper,workdir=$FRESH_WORK/cargo-work" \
        "$FRESH_ROOT/root/.cargo"
}

# The compiler cache: sccache's binary and a cache directory of the root's
# own beside the test command's (its paths and profile are its own, so the
# two would share nothing; a server each), at /root/.cache/sccache inside,
# with its own server port (the chroot shares the machine's loopback, and a
# server outside would compile in the wrong file system). The server is
# started at the caller's priority by the root's first compile.
fresh_root_sccache() {
    [ -n "${SCCACHE_BIN:-}" ] && [ -n "${SCCACHE_DIR:-}" ] || return 0
    local dir="$SCCACHE_DIR-fresh-root"
    mkdir -p "$dir" "$FRESH_ROOT/root/.cache/sccache"
    touch "$FRESH_ROOT/usr/local/bin/sccache"
    mount --bind -o ro "$SCCACHE_BIN" "$FRESH_ROOT/usr/local/bin/sccache"
    mount --bind "$dir" "$FRESH_ROOT/root/.cache/sccache"
    FRESH_ENV+=(RUSTC_WRAPPER=/usr/local/bin/sccache SCCACHE_DIR=/root/.cache/sccache
        SCCACHE_CACHE_SIZE=10G SCCACHE_SERVER_PORT="$(sccache_port fresh-root)"
        "${SCCACHE_SETTINGS[@]}")
    FRESH_SCCACHE=1
}

# fresh_root_sccache_report WHO: the root's cache server's hit rate, then
# stops it (it would keep the root's mounts busy); fresh_root_end calls it.
fresh_root_sccache_report() {
    [ "${FRESH_SCCACHE:-0}" = 1 ] || return 0
    FRESH_SCCACHE=0
    local json
    if json=$(fresh_root_run 'sccache --show-stats --stats-format json' 2> /dev/null); then
        echo "$1: compiler cache (fresh root): $(sccache_summary <<< "$json")" >&2
    fi
    fresh_root_run 'sccache --stop-server' > /dev/null 2>&1 || true
}

fresh_root_run() {
    chroot "$FRESH_ROOT" /usr/bin/env -i HOME=/root \
        PATH=/root/.cargo/bin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/games \
        DEBIAN_FRONTEND=noninteractive "${FRESH_ENV[@]}" bash -c "$*"
}

fresh_root_end() {
    [ -n "${FRESH_ROOT:-}" ] || return 0
    local m
    fresh_root_sccache_report fresh-root
    for m in "$FRESH_ROOT/root/.cargo" "$FRESH_ROOT/root/.rustup" "$FRESH_ROOT/usr/local/bin/sccache" \
        "$FRESH_ROOT/root/.cache/sccache" "$FRESH_ROOT/proc"; do
        mountpoint -q "$m" 2> /dev/null && umount -l "$m"
    done
    mountpoint -q "$FRESH_ROOT/proc" || rm -rf "$FRESH_WORK"
    FRESH_ROOT=""
}
