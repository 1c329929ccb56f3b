# The Debian packages twinstar needs, in one place: scripts/play.sh (the
# README's play command), scripts/test.sh (the test command) and
# scripts/check-system-deps.sh source this file, so the lists cannot drift
# apart. Sourced, not run.

# Building and linking the game natively: a C toolchain (build scripts and
# the linker), pkg-config (the -sys crates find their libraries through
# it), and the headers and pkg-config files of every system library the
# build links (SYSTEM_LIBRARY_CRATES below).
DEBIAN_BUILD=(gcc pkg-config libasound2-dev libudev-dev)

# Running its window: OpenGL and the X11 libraries miniquad opens at run
# time (dlopen, so no build needs them). Sound (libasound2) and udev
# (libudev1) come with the -dev packages above.
DEBIAN_RUN=(libgl1 libx11-6 libxi6 libxcursor1)

# The tests on top: Xvfb and Mesa's software OpenGL for the window tests,
# libxtst6 to type into them (tests/it/common/keys.py), Chromium for the
# browser tests, openssl and curl for the TLS tests, HAProxy and nginx for
# the proxy tests, Redis for the room directory shared by nodes, gzip for the web client's files (brotli to report their size in it too: scripts/check-web-size.py), debootstrap for the
# fresh-machine check (scripts/check-system-deps.sh --fresh-root), ffmpeg for the replay video test.
DEBIAN_TEST=(xvfb libgl1-mesa-dri libxtst6 python3 chromium gzip brotli openssl curl haproxy nginx redis-server debootstrap ffmpeg)

# Cross-building the downloads (scripts/release.sh): mingw-w64 links the
# Windows build; the aarch64 one needs its C compiler and the arm64 builds
# of the build libraries (multiarch: dpkg --add-architecture arm64).
# The server's container image (scripts/server-image.sh): podman and its
# runtime, a musl C compiler for the static binary.
DEBIAN_IMAGE=(podman runc musl-tools)
# The operator's monitoring, checked as root (scripts/check-prometheus.sh):
# a real Prometheus scraping a running server, and its promtool for the
# alert rules in deploy/prometheus/.
DEBIAN_MONITORING=(prometheus)
# LAN discovery, checked as root in network namespaces (scripts/check-lan.sh):
# python-zeroconf, a multicast DNS client nobody here wrote, reads the
# host's announcement; netpbm turns Xvfb's screen (-fbdir, XWD) into the
# Join screen's PNG.
DEBIAN_LAN=(python3-zeroconf netpbm)

DEBIAN_CROSS_WINDOWS=(mingw-w64)
DEBIAN_CROSS_AARCH64=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross libasound2-dev:arm64 libudev-dev:arm64)
# The static aarch64 server (the arm64 image, scripts/server-image.sh
# --arch arm64): musl's arm64 headers and aarch64-linux-musl-gcc, a wrapper
# that points the cross gcc at them, for ring's C (and a bundled SQLite's:
# with glibc's headers it does not link against musl).
DEBIAN_CROSS_AARCH64_MUSL=(gcc-aarch64-linux-gnu musl-dev:arm64)
# Running them here to check them: Wine for the Windows build, qemu's user
# mode for the aarch64 one (scripts/cross-check.sh).
DEBIAN_CROSS_RUN=(wine64 qemu-user-static)

# Every crate of the native build that links a system library (a `links`
# key in its manifest), with the Debian package that provides what its
# build script looks for. scripts/check-system-deps.sh fails when the
# dependency tree gains a linking crate that is in neither list.
SYSTEM_LIBRARY_CRATES=(
    "quad-alsa-sys=libasound2-dev" # sound (macroquad's audio, ALSA)
    "libudev-sys=libudev-dev"      # gamepads (gilrs finds pads through udev)
)
# Crates with a `links` key that need nothing from the system but the C
# compiler: they compile their own native code (ring, libsqlite3-sys), or
# link nothing at all (wasm-bindgen-shared's key only keeps two versions of
# wasm-bindgen out of one build; the inspector's wasm crate brings it in).
BUNDLED_LINKS_CRATES=(ring libsqlite3-sys wasm-bindgen-shared)

# debian_missing PACKAGE...: prints those of the packages not installed.
# PACKAGE is for this machine's architecture (or architecture-independent)
# unless it names one (libudev-dev:arm64). Once a package is installed for
# two architectures `dpkg -s` calls the bare name ambiguous (exit 2): then
# dpkg-query tells which architectures have it.
debian_missing() {
    local pkg name arch rc
    for pkg in "$@"; do
        rc=0
        dpkg -s "$pkg" > /dev/null 2>&1 || rc=$?
        [ "$rc" = 0 ] && continue
        if [ "$rc" = 2 ]; then
            name=${pkg%%:*}
            arch=$(dpkg --print-architecture)
            [ "$name" = "$pkg" ] || arch=${pkg#*:}
            dpkg-query -W -f='${Architecture} ${db:Status-Status}\n' "$name" 2> /dev/null |
                grep -Eq "^($arch|all) installed$" && continue
        fi
        echo "$pkg"
    done
}

# debian_install WHO PACKAGE...: installs the packages not yet installed
# (as root, or through sudo when USE_SUDO=1), saying which; WHO names the
# script in its messages. Without dpkg (not Debian) it does nothing.
debian_install() {
    local who=$1
    shift
    command -v dpkg > /dev/null || return 0
    local missing
    mapfile -t missing < <(debian_missing "$@")
    [ ${#missing[@]} -gt 0 ] || return 0
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        if [ "${USE_SUDO:-0}" = 1 ] && command -v sudo > /dev/null; then
            sudo=sudo
        else
            echo "$who: not installing ${missing[*]} (not root)" >&2
            return 0
        fi
    fi
    echo "$who: installing ${missing[*]}" >&2
    $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}"
}
