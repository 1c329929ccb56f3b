#!/usr/bin/env python3
"""The page's download budget (issue 60): what a player's browser fetches
before the first frame -- the wasm and its scripts -- gzipped at level 9,
must stay within 1.0 MB (1,000,000 B). Brotli (quality 11) is reported
beside it when the `brotli` command is installed (Debian: brotli). The
game's assets the page fetches after its first frame (sounds, the
starfield) are listed apart: they are not in the budget, nor is the
inspector (/inspect: its page, script and own wasm), which the game's page
never loads.

    python3 scripts/check-web-size.py [WEB_DIR] [--budget BYTES]

WEB_DIR is scripts/build-web.sh's output (default target/web). Exit 1 over
budget, 2 when the build is not there; one line per figure on stdout.
"""

import argparse
import gzip
import pathlib
import shutil
import subprocess
import sys

# Fetched before the first frame: the module and the scripts that load it.
FIRST_FRAME = ["twinstar_bg.wasm", "twinstar.js", "mq_js_bundle.js"]
# The inspector's files (docs/inspect.md): reported, not budgeted.
INSPECTOR = ["inspect.html", "inspect.js", "twinstar_inspect.js", "twinstar_inspect_bg.wasm"]
BUDGET = 1_000_000


def brotli_size(data: bytes):
    tool = shutil.which("brotli")
    if tool is None:
        return None
    out = subprocess.run([tool, "-c", "-q", "11"], input=data, capture_output=True, check=True)
    return len(out.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("web", nargs="?", default="target/web")
    parser.add_argument("--budget", type=int, default=BUDGET)
    args = parser.parse_args()
    web = pathlib.Path(args.web)
    missing = [name for name in FIRST_FRAME if not (web / name).is_file()]
    if missing:
        print(f"check-web-size: {web} has no {', '.join(missing)} (bash scripts/build-web.sh builds it)", file=sys.stderr)
        return 2
    total_gz = 0
    total_br = 0
    for name in FIRST_FRAME:
        data = (web / name).read_bytes()
        gz = len(gzip.compress(data, compresslevel=9, mtime=0))
        br = brotli_size(data)
        total_gz += gz
        total_br = None if br is None or total_br is None else total_br + br
        print(f"web-size: {name} {len(data)} B, gzip -9 {gz} B" + ("" if br is None else f", brotli {br} B"))
    assets = sorted(p for p in web.iterdir() if p.name.startswith(("sounds-", "sprites-")) and not p.name.endswith(".gz"))
    fetched = sum(len(gzip.compress(p.read_bytes(), 9, mtime=0)) for p in assets)
    print(f"web-size: after the first frame: {len(assets)} assets, {fetched} B gzipped")
    inspector = [web / name for name in INSPECTOR if (web / name).is_file()]
    if inspector:
        inspector_gz = sum(len(gzip.compress(p.read_bytes(), 9, mtime=0)) for p in inspector)
        print(f"web-size: the inspector (/inspect, not in the budget): {len(inspector)} files, {inspector_gz} B gzipped")
    brotli_text = "brotli not measured (no brotli command)" if total_br is None else f"brotli {total_br} B"
    verdict = "within" if total_gz <= args.budget else "OVER"
    print(f"web-size: before the first frame (wasm + JS): gzip -9 {total_gz} B, {brotli_text}; "
          f"{verdict} the budget of {args.budget} B")
    if total_gz > args.budget:
        print(f"check-web-size: the page's first download is {total_gz} B gzipped, over its budget of "
              f"{args.budget} B by {total_gz - args.budget} B (docs/browser.md, 'Download size': what was cut and what is next)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
