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
# the proxy tests, gzip for the web client's files, debootstrap for the
# fresh-machine check (scripts/check-system-deps.sh --fresh-root).
DEBIAN_TEST=(xvfb libgl1-mesa-dri libxtst6 python3 chromium gzip openssl curl haproxy nginx debootstrap)

# Every crate of the native build that links a system library (a `links`
# key in its manifest), with the Debian package that provides what its
# build script looks for. scripts/check-system-deps.sh fails when the
# dependency tree gains a linking crate that is in neither list.
SYSTEM_LIBRARY_CRATES=(
    "quad-alsa-sys=libasound2-dev" # sound (macroquad's audio, ALSA)
    "libudev-sys=libudev-dev"      # gamepads (gilrs finds pads through udev)
)
# Crates with a `links` key whose native code they compile themselves
# (nothing from the system but the C compiler).
BUNDLED_LINKS_CRATES=(ring)

# debian_missing PACKAGE...: prints those of the packages not installed.
debian_missing() {
    local pkg
    for pkg in "$@"; do
        dpkg -s "$pkg" > /dev/null 2>&1 || echo "$pkg"
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
