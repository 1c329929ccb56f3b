#!/usr/bin/env bash
# Builds the web client (twinstar in the browser) into TARGET/web, where
# TARGET is cargo's target directory (target/, or $CARGO_TARGET_DIR):
#
#   index.html  twinstar.js  twinstar_bg.wasm  mq_js_bundle.js  (+ NAME.gz each)
#
# `twinstar serve` (and the server `twinstar host` starts) find it there and
# serve it: open http://HOST:3536/, or a room's link http://HOST:3536/#CODE.
#
#   bash scripts/build-web.sh
#
# What it needs and installs when missing (a fresh clone works):
# - the Rust target wasm32-unknown-unknown (rustup target add);
# - wasm-bindgen-cli of the version of the wasm-bindgen crate in Cargo.lock
#   (glue and crate must match), by cargo install into TOOLS;
# - binaryen's wasm-opt from npm (binaryen@132; Debian's binaryen 108 breaks
#   the module) into TOOLS/npm;
#   TOOLS is $TWINSTAR_TOOLS_DIR, else ~/.cache/twinstar/tools: outside the
#   clone, so a fresh clone (every CI run) installs neither again (their
#   versions are checked, so a clone that needs others installs those);
# - node and npm (patching the glue, installing binaryen) and gzip: from
#   apt-get when run as root on Debian, else it says what to install.
# $WASM_BINDGEN and $WASM_OPT may name binaries to use instead (the version
# is still checked).
#
# Steps: cargo build --profile web --target wasm32-unknown-unknown; wasm-bindgen
# --target web; scripts/lib/patch-glue.mjs (the glue, for macroquad's loader);
# wasm-opt -Oz; macroquad's js/mq_js_bundle.js from the cargo registry;
# web/index.html; gzip -9. The result replaces TARGET/web only when every
# step succeeded.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD

TRIPLE=wasm32-unknown-unknown
PROFILE=web
BINARYEN_VERSION=132
FILES=(index.html twinstar.js twinstar_bg.wasm mq_js_bundle.js)

say() { echo "build-web: $*" >&2; }
die() {
    echo "build-web: error: $*" >&2
    exit 1
}

# apt_install COMMAND PACKAGE...: installs the packages when COMMAND is
# missing, if this is root on a system with apt-get; else explains.
apt_install() {
    local command=$1
    shift
    command -v "$command" > /dev/null && return 0
    if [[ $EUID -eq 0 ]] && command -v apt-get > /dev/null; then
        say "installing $* (apt-get) for $command"
        apt-get install -y --no-install-recommends "$@" > /dev/null \
            || die "apt-get install $* failed; install $command and run again"
        command -v "$command" > /dev/null || die "$command is still missing after apt-get install $*"
    else
        die "$command is missing: install it (Debian: apt-get install $*) and run again"
    fi
}

# kib BYTES: e.g. 1.5 KiB.
kib() { awk -v n="$1" 'BEGIN { printf "%.1f KiB", n / 1024 }'; }

# version_of BINARY: its `--version` line, or nothing.
version_of() { "$1" --version 2> /dev/null | head -n 1 || true; }

# --- tools -----------------------------------------------------------------

command -v cargo > /dev/null || die "cargo is missing: install Rust (https://rustup.rs) and run again"
apt_install gzip gzip
apt_install node nodejs
apt_install npm npm

sysroot=$(rustc --print sysroot) || die "rustc --print sysroot failed"
if [[ ! -d $sysroot/lib/rustlib/$TRIPLE ]]; then
    command -v rustup > /dev/null \
        || die "the Rust target $TRIPLE is missing and there is no rustup to add it"
    say "adding the Rust target $TRIPLE"
    rustup target add "$TRIPLE" || die "rustup target add $TRIPLE failed"
fi

metadata=$(cargo metadata --format-version 1 --locked) \
    || die "cargo metadata failed (is Cargo.lock up to date? the build uses --locked)"
# One field of the metadata: node -e EXPRESSION over `m`.
meta() { node -e "const m = JSON.parse(require('fs').readFileSync(0, 'utf8')); console.log($1)" <<< "$metadata"; }
target_dir=$(meta 'm.target_directory') || die "cannot read the target directory from cargo metadata"
tools=${TWINSTAR_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/twinstar/tools}
out=$target_dir/web

# The glue's generator must be the crate's version exactly.
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
[[ -n $bindgen_version ]] || die "no wasm-bindgen package in Cargo.lock: does the crate build for $TRIPLE?"
wasm_bindgen=
for candidate in "${WASM_BINDGEN:-}" "$tools/bin/wasm-bindgen" "$(command -v wasm-bindgen || true)"; do
    if [[ -n $candidate && -x $candidate && $(version_of "$candidate") == "wasm-bindgen $bindgen_version" ]]; then
        wasm_bindgen=$candidate
        break
    fi
done
if [[ -z $wasm_bindgen ]]; then
    [[ -z ${WASM_BINDGEN:-} ]] \
        || die "WASM_BINDGEN=$WASM_BINDGEN is not wasm-bindgen $bindgen_version ($(version_of "$WASM_BINDGEN"))"
    say "installing wasm-bindgen-cli $bindgen_version into $tools (cargo install; takes a few minutes)"
    # Not --locked: with it, cargo install fails for 0.2.130. Without its
    # default feature (TLS for the test runner's downloads, which this
    # never runs) and optimised only a little: the tool's own speed is a
    # second either way on our module, its build is part of every fresh CI
    # run (9.4 CPU-minutes at release settings with TLS, 5.4 this way).
    CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_LTO=false \
        CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
        cargo install wasm-bindgen-cli --version "=$bindgen_version" --no-default-features --root "$tools" \
        || die "cargo install wasm-bindgen-cli $bindgen_version failed"
    wasm_bindgen=$tools/bin/wasm-bindgen
    [[ $(version_of "$wasm_bindgen") == "wasm-bindgen $bindgen_version" ]] \
        || die "$wasm_bindgen does not report version $bindgen_version"
fi

wasm_opt=${WASM_OPT:-$tools/npm/node_modules/.bin/wasm-opt}
if [[ $(version_of "$wasm_opt") != *"version $BINARYEN_VERSION"* ]]; then
    [[ -z ${WASM_OPT:-} ]] || die "WASM_OPT=$WASM_OPT is not binaryen $BINARYEN_VERSION ($(version_of "$WASM_OPT"))"
    say "installing wasm-opt (npm binaryen@$BINARYEN_VERSION) into $tools/npm"
    mkdir -p "$tools/npm"
    npm install --prefix "$tools/npm" --no-audit --no-fund --loglevel=error "binaryen@$BINARYEN_VERSION" > /dev/null \
        || die "npm install binaryen@$BINARYEN_VERSION failed"
    [[ $(version_of "$wasm_opt") == *"version $BINARYEN_VERSION"* ]] \
        || die "$wasm_opt does not report binaryen version $BINARYEN_VERSION"
fi

macroquad_dir=$(meta 'm.packages.filter(p => p.name === "macroquad").map(p => require("path").dirname(p.manifest_path)).join("\n")') \
    || die "cannot find macroquad in cargo metadata"
[[ $(wc -l <<< "$macroquad_dir") -eq 1 && -n $macroquad_dir ]] \
    || die "expected one macroquad package in cargo metadata, found: ${macroquad_dir:-none}"
bundle=$macroquad_dir/js/mq_js_bundle.js
[[ -f $bundle ]] || die "macroquad's loader is not at $bundle"

# --- build -----------------------------------------------------------------

# Cargo.toml defines the profile; if it does not (yet), the same settings.
if ! grep -q '^\[profile\.web\]' Cargo.toml; then
    say "no [profile.web] in Cargo.toml: using release with opt-level s, fat LTO, 1 codegen unit"
    export CARGO_PROFILE_WEB_INHERITS=release CARGO_PROFILE_WEB_OPT_LEVEL=s \
        CARGO_PROFILE_WEB_LTO=fat CARGO_PROFILE_WEB_CODEGEN_UNITS=1
fi
say "cargo build --profile $PROFILE --target $TRIPLE --locked"
cargo build --profile "$PROFILE" --target "$TRIPLE" --locked -p twinstar --bin twinstar \
    || die "cargo build for $TRIPLE failed (see above)"
module=$target_dir/$TRIPLE/$PROFILE/twinstar.wasm
[[ -f $module ]] || die "the build did not produce $module"

stage=$out.partial
rm -rf "$stage"
mkdir -p "$stage"

say "wasm-bindgen $bindgen_version --target web"
"$wasm_bindgen" --target web --no-typescript --out-name twinstar --out-dir "$stage" "$module" \
    || die "wasm-bindgen failed"
node "$repo/scripts/lib/patch-glue.mjs" "$stage/twinstar.js" >&2 \
    || die "could not adapt the glue to macroquad's loader (scripts/lib/patch-glue.mjs)"

say "wasm-opt -Oz (binaryen $BINARYEN_VERSION)"
"$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-reference-types --enable-mutable-globals \
    "$stage/twinstar_bg.wasm" -o "$stage/twinstar_bg.opt.wasm" \
    || die "wasm-opt failed"
mv "$stage/twinstar_bg.opt.wasm" "$stage/twinstar_bg.wasm"

cp "$bundle" "$stage/mq_js_bundle.js" || die "cannot copy $bundle"
cp web/index.html "$stage/index.html" || die "cannot copy web/index.html"

sizes=()
for file in "${FILES[@]}"; do
    [[ -f $stage/$file ]] || die "$file is missing from the build"
    gzip -9 -k -n -f "$stage/$file" || die "gzip $file failed"
    sizes+=("$file $(kib "$(stat -c %s "$stage/$file")") ($(kib "$(stat -c %s "$stage/$file.gz")") gzipped)")
done

rm -rf "$out"
mv "$stage" "$out"
summary=$(printf '%s, ' "${sizes[@]}")
say "built $out: ${summary%, }"
say "serve it: twinstar serve (e.g. cargo run --release -- serve), then open http://HOST:3536/"
