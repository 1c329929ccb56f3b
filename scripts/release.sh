#!/usr/bin/env bash
# Builds every download of twinstar from this checkout into dist/:
#
#   twinstar-VERSION-x86_64-linux.tar.gz    the game, twinstar-server, the
#   twinstar-VERSION-aarch64-linux.tar.gz   web client, README and licences,
#   twinstar-VERSION-x86_64-windows.zip     one top folder each (Windows:
#                                           the game and the web client)
#   twinstar_VERSION_amd64.deb              the same, packaged: /usr/bin,
#   twinstar_VERSION_arm64.deb              a menu entry and an icon
#   twinstar-web-VERSION.tar.gz             the web client alone
#   twinstar-server-VERSION-amd64.oci.tar   the server's container images
#   twinstar-server-VERSION-arm64.oci.tar   (FROM scratch: the static
#                                           server, the web client), each
#                                           named localhost/twinstar-server:
#                                           VERSION, and each one's image
#                                           digest in its .digest
#   SHA256SUMS                              over every file above
#
#   scripts/release.sh [--out DIR] [--only LIST] [--check-reproducible]
#
# --only: a comma-separated subset of linux-x86_64, linux-aarch64, windows,
# web, deb, image (default: all; image, both images, needs root for
# podman). --check-reproducible: build everything a second
# time in a fresh target directory and compare every file's bytes; exit 1
# and name the files that differ.
#
# Reproducible: the archives' timestamps are the last commit's time
# (SOURCE_DATE_EPOCH), entries sorted, owners 0, gzip without names or
# times; the compiler sees paths remapped (--remap-path-prefix), so the
# bytes do not depend on where the checkout or the cargo home is.
#
# Cross-compiled from Debian x86_64: mingw-w64 links the Windows build;
# gcc-aarch64-linux-gnu and the arm64 -dev packages (multiarch) the aarch64
# one; musl-dev:arm64 the arm64 image's static server. Run as root, it
# installs what it lacks (apt-get, rustup target add, cargo install
# cargo-deb); otherwise it says what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh

say() { echo "release: $*" >&2; }
die() {
    echo "release: error: $*" >&2
    exit 1
}

out=dist
only=linux-x86_64,linux-aarch64,windows,web,deb,image
check=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        --only) only=${2:?--only needs a list}; shift 2 ;;
        --check-reproducible) check=1; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "release: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
for part in ${only//,/ }; do
    case "$part" in linux-x86_64 | linux-aarch64 | windows | web | deb | image) ;;
        *) echo "release: unknown part '$part' in --only (linux-x86_64, linux-aarch64, windows, web, deb, image)" >&2; exit 2 ;;
    esac
done
wants() { [[ ",$only," == *",$1,"* ]]; }

# --- tools -------------------------------------------------------------------
command -v cargo > /dev/null || die "cargo is missing: install Rust (https://rustup.rs)"
# shellcheck source=lib/cross.sh
source scripts/lib/cross.sh
targets=()
wants linux-x86_64 && targets+=(x86_64-unknown-linux-gnu)
wants linux-aarch64 && targets+=(aarch64-unknown-linux-gnu)
wants windows && targets+=(x86_64-pc-windows-gnu)
if wants deb; then
    [[ " ${targets[*]} " == *" x86_64-unknown-linux-gnu "* ]] || targets+=(x86_64-unknown-linux-gnu)
    [[ " ${targets[*]} " == *" aarch64-unknown-linux-gnu "* ]] || targets+=(aarch64-unknown-linux-gnu)
fi
cross_setup release "${targets[@]}"
debian_install release zip
if wants deb && ! command -v cargo-deb > /dev/null; then
    say "installing cargo-deb (cargo install)"
    cargo install --locked cargo-deb || die "cargo install cargo-deb failed"
fi

version=$(cargo metadata --no-deps --format-version 1 --locked |
    python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "twinstar"))')
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2> /dev/null || echo 0)

# --- building ----------------------------------------------------------------
# build TARGET_DIR: every binary and the web client into TARGET_DIR, the
# compiler's paths remapped (scripts/lib/cross.sh: linkers, pkg-config).
build() {
    local target_dir=$1 triple started
    local cargo_home=${CARGO_HOME:-$HOME/.cargo} rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
    export CARGO_TARGET_DIR=$target_dir
    export RUSTFLAGS="--remap-path-prefix=$repo=/twinstar --remap-path-prefix=$cargo_home=/cargo --remap-path-prefix=$rustup_home=/rustup"
    for triple in "${targets[@]}"; do
        started=$(date +%s)
        cross_build "$triple" --profile dist --bin twinstar --bin twinstar-server >&2
        say "built $triple in $(($(date +%s) - started)) s"
    done
    if wants web || wants deb || wants image || [ ${#targets[@]} -gt 0 ]; then
        started=$(date +%s)
        # (build-web.sh installs its tools once per machine, outside any
        # target directory.)
        bash scripts/build-web.sh >&2
        say "built the web client in $(($(date +%s) - started)) s"
    fi
    unset RUSTFLAGS
}

# --- packing -----------------------------------------------------------------
# tar_gz DIR_PARENT NAME OUT: DIR_PARENT/NAME as OUT, reproducibly.
tar_gz() {
    tar -C "$1" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
        --mode='u+rw,go+r,go-w' --format=gnu -cf - "$2" | gzip -9n > "$3"
}

# zip_dir DIR_PARENT NAME OUT: the same as a zip (times in UTC).
zip_dir() {
    find "$1/$2" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
    (cd "$1" && find "$2" -type f | LC_ALL=C sort | TZ=UTC zip -X -q -9 -D "$3" -@)
}

# copy_web DIR TARGET_DIR: the web client's files into DIR, readable by all.
copy_web() {
    mkdir -p "$1"
    cp "$2"/web/* "$1/"
    chmod 644 "$1"/*
}

# stage STAGING NAME TRIPLE EXE: the archive folder of one platform.
stage() {
    local dir="$1/$2" triple=$3 exe=$4 target_dir=$5
    copy_web "$dir/web" "$target_dir"
    install -m 755 "$target_dir/$triple/dist/twinstar$exe" "$dir/"
    [ "$exe" = .exe ] || install -m 755 "$target_dir/$triple/dist/twinstar-server$exe" "$dir/"
    install -m 644 README.md LICENSE-MIT LICENSE-APACHE "$dir/"
    install -m 644 docs/release-notes.md "$dir/RELEASE-NOTES.md"
}

# pack TARGET_DIR OUT: every artifact from TARGET_DIR's build into OUT.
pack() {
    local target_dir=$1 dist=$2 staging
    rm -rf "$dist"
    mkdir -p "$dist"
    dist=$(cd "$dist" && pwd)
    staging=$(mktemp -d)
    local name
    if wants linux-x86_64; then
        name=twinstar-$version-x86_64-linux
        stage "$staging" "$name" x86_64-unknown-linux-gnu "" "$target_dir"
        tar_gz "$staging" "$name" "$dist/$name.tar.gz"
    fi
    if wants linux-aarch64; then
        name=twinstar-$version-aarch64-linux
        stage "$staging" "$name" aarch64-unknown-linux-gnu "" "$target_dir"
        tar_gz "$staging" "$name" "$dist/$name.tar.gz"
    fi
    if wants windows; then
        name=twinstar-$version-x86_64-windows
        stage "$staging" "$name" x86_64-pc-windows-gnu .exe "$target_dir"
        zip_dir "$staging" "$name" "$dist/$name.zip"
    fi
    if wants web; then
        name=twinstar-web-$version
        copy_web "$staging/$name" "$target_dir"
        tar_gz "$staging" "$name" "$dist/$name.tar.gz"
    fi
    if wants deb; then
        # cargo-deb reads the web client from the manifest's target/web
        # (Cargo.toml's assets; it rewrites only target/release paths to
        # the build's target dir): put this build's there, the same
        # scripts/build-web.sh output a developer's target/web holds. On a
        # fresh clone there is none, and the package could not be made.
        local triple
        rm -rf "$repo/target/web"
        mkdir -p "$repo/target"
        cp -a "$target_dir/web" "$repo/target/web"
        for triple in x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu; do
            CARGO_TARGET_DIR=$target_dir cargo deb --no-build --no-strip --locked --profile dist \
                --target "$triple" --output "$dist" >&2 || die "cargo deb for $triple failed"
        done
    fi
    if wants image; then
        # The static server (musl) built here for each architecture, paths
        # remapped as above. Both images have the same name, so either
        # archive loads as localhost/twinstar-server:VERSION and the same
        # commands (docs/deploy.md, deploy/compose.yaml) run it. The amd64
        # build is last, so the name stays with the image this x86_64
        # machine can run.
        local arch
        for arch in arm64 amd64; do
            RUSTFLAGS="--remap-path-prefix=$repo=/twinstar --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=/cargo --remap-path-prefix=${RUSTUP_HOME:-$HOME/.rustup}=/rustup" \
                CARGO_TARGET_DIR=$target_dir bash scripts/server-image.sh --arch "$arch" --base scratch \
                --profile dist --web "$target_dir/web" --tag "localhost/twinstar-server:$version" \
                --save "$dist/twinstar-server-$version-$arch.oci.tar" >&2 || die "the $arch server image failed"
        done
    fi
    rm -rf "$staging"
    (cd "$dist" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort |
        xargs sha256sum > SHA256SUMS)
}

started=$(date +%s)
build "$repo/target/dist-build"
pack "$repo/target/dist-build" "$out"
say "built in $(($(date +%s) - started)) s:"
(cd "$out" && ls -l --time-style=+ | awk 'NR > 1 { printf "  %10d  %s\n", $5, $NF }') >&2

if [ "$check" = 1 ]; then
    say "building again in a fresh target directory to compare"
    rm -rf "$repo/target/dist-build-2"
    build "$repo/target/dist-build-2"
    pack "$repo/target/dist-build-2" "$out.again"
    if diff "$out/SHA256SUMS" "$out.again/SHA256SUMS" > /dev/null; then
        say "reproducible: the second build gave the same bytes for every file"
        rm -rf "$out.again"
    else
        say "NOT reproducible; these differ:"
        diff "$out/SHA256SUMS" "$out.again/SHA256SUMS" | sed -n 's/^> *[0-9a-f]* *//p' >&2
        exit 1
    fi
fi
