# Cross-building twinstar from Debian x86_64 for Windows (mingw-w64) and
# aarch64 Linux (gcc-aarch64-linux-gnu, arm64 multiarch libraries), for
# scripts/release.sh and scripts/cross-check.sh, and the static server for
# x86_64 and aarch64 musl (musl-tools, musl-dev:arm64), for
# scripts/server-image.sh. Sourced after debian-packages.sh, not run.

# cross_setup WHO TRIPLE...: installs what building for these Rust targets
# needs (Debian packages as root, the arm64 architecture for the aarch64
# libraries, the Rust targets). With CROSS_RUN=1 also what runs them here
# (Wine, qemu's user mode). Exits with a message when something is missing
# and cannot be installed.
cross_setup() {
    local who=$1 triple sysroot
    shift
    local need=()
    for triple in "$@"; do
        case "$triple" in
            x86_64-pc-windows-gnu) need+=("${DEBIAN_CROSS_WINDOWS[@]}") ;;
            aarch64-unknown-linux-gnu)
                cross_arm64_packages "$who"
                need+=("${DEBIAN_CROSS_AARCH64[@]}")
                ;;
            aarch64-unknown-linux-musl)
                cross_arm64_packages "$who"
                need+=("${DEBIAN_CROSS_AARCH64_MUSL[@]}")
                ;;
            x86_64-unknown-linux-musl) need+=(musl-tools) ;;
        esac
    done
    [ "${CROSS_RUN:-0}" = 1 ] && need+=("${DEBIAN_CROSS_RUN[@]}")
    debian_install "$who" "${DEBIAN_BUILD[@]}" "${need[@]}"
    sysroot=$(rustc --print sysroot)
    for triple in "$@"; do
        [ -d "$sysroot/lib/rustlib/$triple" ] && continue
        rustup target add "$triple" > /dev/null || {
            echo "$who: the Rust target $triple is missing (rustup target add $triple)" >&2
            exit 1
        }
    done
}

# cross_arm64_packages WHO: dpkg takes arm64 packages (multiarch), so
# apt-get can install the aarch64 libraries and musl's arm64 headers.
cross_arm64_packages() {
    command -v dpkg > /dev/null || return 0
    dpkg --print-foreign-architectures | grep -qx arm64 && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "$1: the aarch64 build needs arm64 packages: run dpkg --add-architecture arm64 as root" >&2
        exit 1
    fi
    dpkg --add-architecture arm64
    apt-get update -qq
}

# cross_build TRIPLE CARGO_ARGS...: `cargo build --target TRIPLE ...` with
# the target's linker, C compiler and (aarch64) pkg-config's arm64 files.
# The musl targets (the static server) compile C with musl's headers
# (musl-gcc, aarch64-linux-musl-gcc) and link with Rust's own musl
# (self-contained: its crt objects and libc.a), so any gcc links them.
cross_build() {
    local triple=$1
    shift
    CC_x86_64_unknown_linux_musl=musl-gcc \
        CC_aarch64_unknown_linux_musl=aarch64-linux-musl-gcc \
        CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=aarch64-linux-gnu-gcc \
        CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
        CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc \
        CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
        CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc \
        PKG_CONFIG_ALLOW_CROSS=1 \
        PKG_CONFIG_LIBDIR_aarch64_unknown_linux_gnu=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
        cargo build --locked --target "$triple" "$@"
}
