#!/usr/bin/env bash
# The server's container image, built and run (issue 47; root: podman).
#
#   scripts/check-server-image.sh [--arch amd64|arm64] [--build-only | --no-build]
#
# Builds the image FROM scratch (scripts/server-image.sh: the static
# binary, the web client if target/web has one) and saves it as an OCI
# archive in $CARGO_TARGET_DIR/server-image/; --build-only stops there,
# --no-build starts from what a build left (CI builds in the background
# first). Then, with the image (amd64, the default):
# - its configuration: user 10001, never root; a HEALTHCHECK;
# - a container of it serves: /readyz answers 200, `podman healthcheck run`
#   says healthy, its process runs as uid 10001 on the host;
# - a headless match between two twinstar bots plays through it (equal
#   checksums), and its metrics listener counts the match;
# - SIGTERM (podman stop) drains it and it exits 0;
# - the OCI archive loads back (`podman load`) and the loaded image serves.
# The match uses $TWINSTAR_BIN (default target/debug/twinstar).
#
# --arch arm64: the arm64 image (aarch64 musl, cross-compiled). This x86_64
# machine cannot run its container (no binfmt handler for aarch64, and
# registering one would change the host's kernel for everyone), so it
# checks its configuration (arm64, user 10001, the HEALTHCHECK), then
# copies /opt/twinstar out of it and runs the binary under
# qemu-aarch64-static with TLS (ring's aarch64 code, both ends): /livez
# over HTTPS, the web client served from beside it, the HEALTHCHECK's own
# command (`twinstar-server health`), a two-bot match through it, and
# SIGTERM: exit 0.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."
# shellcheck source=lib/podman.sh
source scripts/lib/podman.sh
# shellcheck source=lib/free-port.sh
source scripts/lib/free-port.sh
# shellcheck source=lib/bot-match.sh
source scripts/lib/bot-match.sh

fail() {
    echo "check-server-image: FAILED: $*" >&2
    exit 1
}
usage() {
    echo "check-server-image: usage: scripts/check-server-image.sh [--arch amd64|arm64] [--build-only | --no-build]" >&2
    exit 2
}
build=1 run=1 arch=amd64
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0; shift ;;
        --build-only) run=0; shift ;;
        --arch)
            arch=${2:-}
            [ "$arch" = amd64 ] || [ "$arch" = arm64 ] || usage
            shift 2
            ;;
        *) usage ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "check-server-image: podman here needs root" >&2; exit 1; }

target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
# amd64 keeps the names it had (scripts/check-compose.sh runs that image).
suffix=""
[ "$arch" = amd64 ] || suffix=-$arch
image=localhost/twinstar-server:check$suffix
archive="$target_dir/server-image/twinstar-server-check$suffix.oci.tar"
if [ $build = 1 ]; then
    mkdir -p "$(dirname "$archive")"
    web=target/web
    [ -s "$web/index.html" ] || web=none
    bash scripts/server-image.sh --arch "$arch" --base scratch --profile cross-check --tag "$image" \
        --web "$web" --save "$archive"
fi
[ -s "$archive" ] || fail "no image archive at $archive (run without --no-build)"
[ $run = 1 ] || exit 0
bin=${TWINSTAR_BIN:-$target_dir/debug/twinstar}
[ -x "$bin" ] || fail "no twinstar binary at $bin (cargo build, or set TWINSTAR_BIN)"

started=$(date +%s)
work=$(mktemp -d)
name="twinstar-check-$$"
# The archive is loaded into a storage of its own (below), so the image
# built (Docker's format, with its HEALTHCHECK) stays as it is for a run
# of this check again: an OCI archive carries no HEALTHCHECK.
store=()
cleanup() {
    podman_cmd rm -f -t 0 "$name" > /dev/null 2>&1 || true
    podman_cmd --root "$work/storage" --runroot "$work/runroot" rm -f -t 0 "$name" > /dev/null 2>&1 || true
    podman_cmd --root "$work/storage" --runroot "$work/runroot" rmi -a -f > /dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# The configuration.
image_arch=$(podman_cmd image inspect -f '{{.Architecture}}' "$image")
[ "$image_arch" = "$arch" ] || fail "the image says architecture '$image_arch', not $arch"
user=$(podman_cmd image inspect -f '{{.Config.User}}' "$image")
[ "$user" = 10001:10001 ] || fail "the image runs as '$user', not 10001:10001"
health=$(podman_cmd image inspect -f '{{json .Config.Healthcheck}}' "$image")
[[ "$health" == *'"health"'* ]] || fail "the image has no HEALTHCHECK running 'twinstar-server health' ($health)"

if [ "$arch" = arm64 ]; then
    # shellcheck source=lib/check-image-qemu.sh
    source scripts/lib/check-image-qemu.sh
    check_under_qemu
    exit 0
fi

port=$(free_port)
metrics_port=$(free_port)

# serve NAME IMAGE: a container of IMAGE (in the storage $store names) as
# shipped (its own CMD: 3536 for players, 9536 for metrics, inside its
# network namespace, published on loopback), ready within 10 s.
serve() {
    podman_cmd "${store[@]}" run --ulimit nofile=4096:4096 --ulimit nproc=1024:1024 -d --name "$1" -p "127.0.0.1:$port:3536" -p "127.0.0.1:$metrics_port:9536" "$2" \
        > /dev/null 2> >(grep -v 'systemd connection' >&2)
    for _ in $(seq 100); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ] && return 0
        sleep 0.1
    done
    podman_cmd "${store[@]}" logs "$1" 2>&1 | tail -5 >&2
    fail "the container of $2 did not answer /readyz with 200 within 10 s"
}

serve "$name" "$image"
podman_cmd healthcheck run "$name" > /dev/null 2>&1 || fail "podman healthcheck run: not healthy"
pid=$(podman_cmd inspect -f '{{.State.Pid}}' "$name")
uid=$(stat -c %u "/proc/$pid")
[ "$uid" = 10001 ] || fail "the server's process runs as uid $uid, not 10001"

# A match through it: two bots, 300 frames.
a=$(bot_match "ws://127.0.0.1:$port" "$work" CTR-4GE)
matches=$(curl -s "http://127.0.0.1:$metrics_port/metrics" | sed -n 's/^twinstar_matches_started_total \([0-9]*\).*/\1/p')
[ "${matches:-0}" -ge 1 ] || fail "the container's metrics count no match (twinstar_matches_started_total: '${matches:-}')"

# SIGTERM drains: nothing to wait for, so it exits at once, with 0.
podman_cmd stop -t 15 "$name" > /dev/null 2>&1
code=$(podman_cmd inspect -f '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || fail "after SIGTERM the server exited with $code"
podman_cmd rm "$name" > /dev/null 2>&1

# The archive, loaded into an empty storage: the image comes back and serves.
store=(--root "$work/storage" --runroot "$work/runroot")
loaded=$(podman_cmd "${store[@]}" load -i "$archive" 2>&1 | sed -n 's/^Loaded image[^:]*: *//p' | tail -n 1)
[ -n "$loaded" ] || fail "podman load -i $archive loaded nothing"
loaded_digest=$(podman_cmd "${store[@]}" image inspect -f '{{.Digest}}' "$loaded")
[ "$loaded_digest" = "$(cat "$archive.digest")" ] ||
    fail "the loaded image's digest is $loaded_digest, $archive.digest says $(cat "$archive.digest")"
serve "$name" "$loaded"
[ "$(curl -s "http://127.0.0.1:$port/livez")" = ok ] || fail "the loaded image's /livez did not answer ok"

size=$(podman_cmd "${store[@]}" image inspect -f '{{.Size}}' "$loaded")
echo "check-server-image: $image (FROM scratch, $((size / 1024)) KiB; archive $(du -k "$archive" | cut -f1) KiB) served as uid 10001, healthy; a 300-frame match through it agreed ($a); SIGTERM exit 0; the OCI archive loaded back and served ($(($(date +%s) - started)) s)" >&2
