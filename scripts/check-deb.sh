#!/usr/bin/env bash
# The .deb on a clean machine: a fresh Debian root (debootstrap minbase,
# scripts/lib/fresh-root.sh) installs it with apt-get, which must pull in
# everything it needs; then, from /usr/bin, twinstar runs a headless
# synctest and prints its JSON summary, twinstar-server serves /livez
# with the web client the package put in /usr/share/twinstar/web, and the
# menu entry and icon are where a desktop looks.
#
#   scripts/check-deb.sh FILE.deb
#
# The synctest (seed 1, 10,000 frames) must print the golden checksum that
# tests/it/determinism.rs pins. Needs root. Exit 0 when all holds, 1
# otherwise, 2 for bad arguments.
set -euo pipefail
# Multicast never leaves the machine from a script (DESIGN.md, decision 9):
# no LAN announcements or browsing by the games it runs.
export TWINSTAR_LAN_DISCOVERY=off
cd "$(dirname "$0")/.."
# shellcheck source=lib/debian-packages.sh
source scripts/lib/debian-packages.sh
# shellcheck source=lib/fresh-root.sh
source scripts/lib/fresh-root.sh
# shellcheck source=lib/golden.sh
source scripts/lib/golden.sh

fail() {
    echo "check-deb: FAILED: $*" >&2
    exit 1
}
deb=${1:-}
[ -f "$deb" ] && [ $# = 1 ] || { echo "check-deb: usage: scripts/check-deb.sh FILE.deb" >&2; exit 2; }
golden=$(golden_checksum) || fail "cannot read the golden checksum"

started=$(date +%s)
fresh_root_start check-deb
cp "$deb" "$FRESH_ROOT/tmp/twinstar.deb"
FRESH_ENV=()
log="$FRESH_CACHE/deb.log"
fresh_root_run 'apt-get update -qq && apt-get install -y -qq /tmp/twinstar.deb' > "$log" 2>&1 ||
    { tail -20 "$log" >&2; fail "apt-get install ./$(basename "$deb") failed in a fresh root (log: $log)"; }
summary=$(fresh_root_run 'cd /tmp && /usr/bin/twinstar synctest --headless --frames 10000 --seed 1 --no-record --json' 2>> "$log" | tail -n 1)
checksum=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["checksum"])' "$summary") ||
    fail "twinstar synctest from /usr/bin printed no summary: $summary"
[ "$checksum" = "$golden" ] || fail "the packaged twinstar gives $checksum, the golden checksum is $golden"
# The server, with the packaged web client, answering its health probe.
fresh_root_run '/usr/bin/twinstar-server --bind 127.0.0.1:3541 > /tmp/serve.out 2> /tmp/serve.err & sleep 2;
    /usr/bin/twinstar-server health --port 3541; rc=$?; kill %1; grep -q "web client at" /tmp/serve.err || rc=3; exit $rc' >> "$log" 2>&1 ||
    { tail -5 "$log" >&2; fail "the packaged twinstar-server did not serve /livez with its web client"; }
for file in /usr/share/applications/twinstar.desktop /usr/share/icons/hicolor/scalable/apps/twinstar.svg; do
    [ -s "$FRESH_ROOT$file" ] || fail "the package has no $file"
done
echo "check-deb: $(basename "$deb") installed in a fresh Debian root with its dependencies; twinstar synctest from /usr/bin gave $checksum; twinstar-server served /livez and the web client ($(($(date +%s) - started)) s)" >&2
