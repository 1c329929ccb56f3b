# A cargo subcommand the test command needs (cargo-deny, cargo-machete),
# installed from crates.io at a pinned version when missing. Sourced, not
# run.
#
#   cargo_tool WHO SUBCOMMAND CRATE VERSION [MODE]
#
# MODE --is-installed: exits 0 when that version is installed, 1 when not;
# --install-only: installs it if missing and exits; none: installs it if
# missing and returns.
cargo_tool() {
    local who=$1 sub=$2 crate=$3 version=$4 mode=${5:-}
    local installed=0
    cargo "$sub" --version 2> /dev/null | grep -qwF "$version" && installed=1
    if [ "$mode" = --is-installed ]; then
        [ "$installed" = 1 ]
        exit
    fi
    if [ "$installed" = 0 ]; then
        echo "$who: installing $crate $version" >&2
        cargo install --locked --quiet "$crate" --version "$version"
    fi
    [ "$mode" != --install-only ] || exit 0
}
