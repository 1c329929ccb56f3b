#!/usr/bin/env bash
# The server's container image (docs/deploy.md, "Containers"):
# twinstar-server as a static binary (musl: nothing to link at run time),
# with the web client beside it, in an image made from deploy/Containerfile
# by podman. The image runs as uid 10001, never root.
#
#   scripts/server-image.sh [--base IMAGE] [--profile P] [--tag NAME]
#                           [--web DIR] [--save FILE]
#
# --base     the image's base, the Containerfile's BASE argument. Default:
#            the Containerfile's (a pinned Debian slim tag from Docker Hub);
#            `scratch` needs no registry (CI here: none is reachable).
# --profile  cargo profile of the binary (default dist: release, stripped).
# --tag      the image's name (default localhost/twinstar-server:VERSION).
# --web      the web client to serve (default target/web: bash
#            scripts/build-web.sh builds it); `none` for an image without.
# --save     also write the image to FILE as an OCI archive (`podman load`
#            and `docker load` read it), and its image digest to FILE.digest.
#
# With SOURCE_DATE_EPOCH set (scripts/release.sh sets it), the image's
# creation time and its files' times are that instant.
#
# x86_64 only: an aarch64 musl binary needs an aarch64 musl C compiler for
# ring, which Debian does not ship (docs/deploy.md says what was not tried).
# As root it installs what it lacks (podman, runc, musl-tools, the
# x86_64-unknown-linux-musl target); otherwise it says what is missing.
# Prints the image's name, id and size on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh
# shellcheck source=lib/podman.sh
source scripts/lib/podman.sh

say() { echo "server-image: $*" >&2; }
die() {
    echo "server-image: error: $*" >&2
    exit 1
}

base="" profile=dist tag="" web=target/web save=""
while [ $# -gt 0 ]; do
    case "$1" in
        --base) base=${2:?--base needs an image}; shift 2 ;;
        --profile) profile=${2:?--profile needs a name}; shift 2 ;;
        --tag) tag=${2:?--tag needs a name}; shift 2 ;;
        --web) web=${2:?--web needs a directory or none}; shift 2 ;;
        --save) save=${2:?--save needs a file}; shift 2 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "server-image: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

triple=x86_64-unknown-linux-musl
version=$(sed -n 's/^version = "\(.*\)"/\1/p' crates/signaling/Cargo.toml | head -n 1)
tag=${tag:-localhost/twinstar-server:$version}
if [ "$web" != none ] && [ ! -s "$web/index.html" ]; then
    die "no web client in $web (bash scripts/build-web.sh builds it; --web none for an image without)"
fi

# What the build needs: a musl C compiler (ring's C and assembly), the
# target's standard library, podman.
if [ "$(id -u)" = 0 ]; then
    debian_install server-image "${DEBIAN_IMAGE[@]}"
    [ -d "$(rustc --print sysroot)/lib/rustlib/$triple" ] || rustup target add "$triple" > /dev/null
fi
command -v musl-gcc > /dev/null || die "musl-gcc is missing (apt-get install musl-tools)"
command -v podman > /dev/null || die "podman is missing (apt-get install podman runc)"
[ -d "$(rustc --print sysroot)/lib/rustlib/$triple" ] || die "the $triple target is missing (rustup target add $triple)"

target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
say "building twinstar-server for $triple (profile $profile)"
CC_x86_64_unknown_linux_musl=musl-gcc \
    cargo build --locked --profile "$profile" --target "$triple" -p twinstar-server --bin twinstar-server >&2
case "$profile" in dev) dir=debug ;; *) dir=$profile ;; esac
binary="$target_dir/$triple/$dir/twinstar-server"
# Static: the scratch image has no loader and no libc.
if readelf -l "$binary" | grep -q INTERP; then
    die "$binary asks for a dynamic loader: not static"
fi

# The build context: the binary and the web client, nothing else (the
# Containerfile copies both).
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$binary" "$context/twinstar-server"
mkdir "$context/web"
[ "$web" = none ] || cp -r "$web"/. "$context/web/"

args=(--format docker -f deploy/Containerfile -t "$tag")
[ -z "$base" ] || args+=(--build-arg "BASE=$base")
[ -z "${SOURCE_DATE_EPOCH:-}" ] || args+=(--timestamp "$SOURCE_DATE_EPOCH")
say "podman build ${args[*]}"
# Docker's format keeps the HEALTHCHECK (OCI's has none: podman drops it).
podman_cmd build "${args[@]}" "$context" >&2

if [ -n "$save" ]; then
    rm -f "$save"
    podman_cmd save --format oci-archive -o "$save" "$tag" >&2
    digest=$(podman_cmd image inspect -f '{{.Digest}}' "$tag")
    echo "$digest" > "$save.digest"
    say "wrote $save ($(du -h "$save" | cut -f1); image digest $digest)"
fi
id=$(podman_cmd image inspect -f '{{.Id}}' "$tag")
size=$(podman_cmd image inspect -f '{{.Size}}' "$tag")
echo "server-image: $tag ${id:0:12} $((size / 1024)) KiB"
