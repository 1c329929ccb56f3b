#!/usr/bin/env bash
# The server's container image (docs/deploy.md, "Containers"):
# twinstar-server as a static binary (musl: nothing to link at run time),
# with the web client beside it, in an image made from deploy/Containerfile
# by podman. The image runs as uid 10001, never root.
#
#   scripts/server-image.sh [--arch amd64|arm64] [--base IMAGE] [--profile P]
#                           [--tag NAME] [--web DIR] [--save FILE]
#
# --arch     the image's architecture (default amd64): the server built for
#            x86_64-unknown-linux-musl, or for aarch64-unknown-linux-musl
#            (cross-compiled; the Containerfile runs nothing, so building
#            an arm64 image needs no emulation).
# --base     the image's base, the Containerfile's BASE argument. Default:
#            the Containerfile's (a pinned Debian slim tag from Docker Hub);
#            `scratch` needs no registry (CI here: none is reachable).
# --profile  cargo profile of the binary (default dist: release, stripped).
# --tag      the image's name (default localhost/twinstar-server:VERSION,
#            and VERSION-arm64 for arm64, so a local build of one does not
#            take the other's name; scripts/release.sh names both VERSION).
# --web      the web client to serve (default target/web: bash
#            scripts/build-web.sh builds it); `none` for an image without.
# --save     also write the image to FILE as an OCI archive (`podman load`
#            and `docker load` read it), and its image digest to FILE.digest.
#
# With SOURCE_DATE_EPOCH set (scripts/release.sh sets it), the image's
# creation time and its files' times are that instant.
#
# The C in the server (ring's) compiles against musl's headers: Debian's
# musl-gcc for x86_64, and for aarch64 its musl-dev:arm64, whose
# aarch64-linux-musl-gcc wraps gcc-aarch64-linux-gnu (scripts/lib/cross.sh).
# As root it installs what it lacks (podman, runc, those packages, the
# arm64 architecture for dpkg, the Rust target); otherwise it says what is
# missing.
# Prints the image's name, id and size on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh
# shellcheck source=lib/cross.sh
source scripts/lib/cross.sh
# shellcheck source=lib/podman.sh
source scripts/lib/podman.sh

say() { echo "server-image: $*" >&2; }
die() {
    echo "server-image: error: $*" >&2
    exit 1
}

arch=amd64 base="" profile=dist tag="" web=target/web save=""
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch=${2:?--arch needs amd64 or arm64}; shift 2 ;;
        --base) base=${2:?--base needs an image}; shift 2 ;;
        --profile) profile=${2:?--profile needs a name}; shift 2 ;;
        --tag) tag=${2:?--tag needs a name}; shift 2 ;;
        --web) web=${2:?--web needs a directory or none}; shift 2 ;;
        --save) save=${2:?--save needs a file}; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "server-image: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

# The Rust target, its C compiler, and what readelf calls its machine.
case "$arch" in
    amd64) triple=x86_64-unknown-linux-musl cc=musl-gcc machine="X86-64" suffix="" ;;
    arm64) triple=aarch64-unknown-linux-musl cc=aarch64-linux-musl-gcc machine="AArch64" suffix=-arm64 ;;
    *) echo "server-image: --arch must be amd64 or arm64, not '$arch'" >&2; exit 2 ;;
esac
version=$(sed -n 's/^version = "\(.*\)"/\1/p' crates/signaling/Cargo.toml | head -n 1)
tag=${tag:-localhost/twinstar-server:$version$suffix}
if [ "$web" != none ] && [ ! -s "$web/index.html" ]; then
    die "no web client in $web (bash scripts/build-web.sh builds it; --web none for an image without)"
fi

# What the build needs: a musl C compiler (ring's C and assembly), the
# target's standard library, podman.
if [ "$(id -u)" = 0 ]; then
    debian_install server-image "${DEBIAN_IMAGE[@]}"
    cross_setup server-image "$triple"
fi
case "$arch" in
    amd64) command -v musl-gcc > /dev/null || die "musl-gcc is missing (apt-get install musl-tools)" ;;
    arm64)
        command -v aarch64-linux-musl-gcc > /dev/null ||
            die "aarch64-linux-musl-gcc is missing (dpkg --add-architecture arm64; apt-get update; apt-get install gcc-aarch64-linux-gnu musl-dev:arm64)"
        ;;
esac
command -v podman > /dev/null || die "podman is missing (apt-get install podman runc)"
[ -d "$(rustc --print sysroot)/lib/rustlib/$triple" ] || die "the $triple target is missing (rustup target add $triple)"

target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
say "building twinstar-server for $triple (profile $profile, C by $cc)"
started=$(date +%s)
cross_build "$triple" --profile "$profile" -p twinstar-server --bin twinstar-server >&2
say "built in $(($(date +%s) - started)) s"
case "$profile" in dev) dir=debug ;; *) dir=$profile ;; esac
binary="$target_dir/$triple/$dir/twinstar-server"
# Static: the scratch image has no loader and no libc. And for the
# image's architecture (a wrong CC or linker could give a host binary).
if readelf -l "$binary" | grep -q INTERP; then
    die "$binary asks for a dynamic loader: not static"
fi
readelf -h "$binary" | grep -q "Machine:.*$machine" ||
    die "$binary is not an $machine ELF ($(readelf -h "$binary" | sed -n 's/^ *Machine: *//p'))"

# The build context: the binary and the web client, nothing else (the
# Containerfile copies both).
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$binary" "$context/twinstar-server"
mkdir "$context/web"
[ "$web" = none ] || cp -r "$web"/. "$context/web/"

# --arch: the image's configuration says arm64 (or amd64), and a BASE
# other than scratch is pulled for that architecture.
args=(--format docker --arch "$arch" -f deploy/Containerfile -t "$tag")
[ -z "$base" ] || args+=(--build-arg "BASE=$base")
[ -z "${SOURCE_DATE_EPOCH:-}" ] || args+=(--timestamp "$SOURCE_DATE_EPOCH")
say "podman build ${args[*]}"
# Docker's format keeps the HEALTHCHECK (OCI's has none: podman drops it).
podman_cmd build "${args[@]}" "$context" >&2

if [ -n "$save" ]; then
    rm -f "$save"
    podman_cmd save --format oci-archive -o "$save" "$tag" >&2
    # The archive's own manifest digest (its index.json), which is what
    # `podman load` reports as the loaded image's digest; the built
    # image's (Docker's format, in this storage) differs.
    digest=$(python3 -c 'import json, sys, tarfile; print(json.load(tarfile.open(sys.argv[1]).extractfile("index.json"))["manifests"][0]["digest"])' "$save")
    echo "$digest" > "$save.digest"
    say "wrote $save ($(du -h "$save" | cut -f1); image digest $digest)"
fi
id=$(podman_cmd image inspect -f '{{.Id}}' "$tag")
size=$(podman_cmd image inspect -f '{{.Size}}' "$tag")
echo "server-image: $tag ($arch) ${id:0:12} $((size / 1024)) KiB"
