#!/usr/bin/env python3
"""The public API of a crate of ours, as a committed text file.

    python3 scripts/public-api.py CRATE            print the listing
    python3 scripts/public-api.py CRATE --check    compare with the file
    python3 scripts/public-api.py CRATE --write    rewrite the file

CRATE is a package (twinstar-netcode); its listing is
crates/<dir>/public-api.txt. The listing is read from the HTML `cargo doc
--no-deps` wrote (run first, with RUSTDOCFLAGS="-D warnings"): stable
rustdoc, no nightly JSON. One line per public item, `path kind`, then its
declaration, its inherent methods and the traits it implements, indented,
with links and markup removed. A change to the surface (a name, a field, a
signature, a trait, an auto trait lost) changes the file, so it shows in
review; --check fails until the file is rewritten on purpose.

The first line counts the public names: items and modules, as the issue
that asked for this counted them (methods and fields not counted).
"""

import difflib
import html
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KINDS = {
    "struct": "struct", "enum": "enum", "trait": "trait", "fn": "fn",
    "type": "type", "constant": "const", "macro": "macro", "static": "static",
    "union": "union", "traitalias": "trait alias", "derive": "derive macro",
    "attr": "attribute macro",
}


def text(fragment: str) -> str:
    fragment = re.sub(r'<(div|span) class="where">', " ", fragment)
    fragment = re.sub(r"<[^>]+>", "", fragment)
    return re.sub(r"\s+", " ", html.unescape(fragment)).strip()


def section(page: str, section_id: str) -> str:
    """The HTML of one of rustdoc's impl lists, up to the next heading."""
    m = re.search(rf'<div id="{section_id}"[^>]*>(.*?)(?=<h2 id=|</section></div></main>|$)', page, re.S)
    return m.group(1) if m else ""


def describe(doc: Path, href: str) -> list[str]:
    page = (doc / href).read_text()
    lines = []
    decl = re.search(r'<pre class="rust item-decl"><code>(.*?)</code></pre>', page, re.S)
    if decl:
        lines.append("decl " + text(decl.group(1)))
    inherent = section(page, "implementations-list")
    for header in re.findall(r'<h4 class="code-header">(.*?)</h4>', inherent, re.S):
        lines.append("fn " + text(header))
    for list_id in ("trait-implementations-list", "synthetic-implementations-list"):
        for header in re.findall(r'<h3 class="code-header">(.*?)</h3>', section(page, list_id), re.S):
            lines.append(text(header))
    return lines


def listing(crate: str) -> str:
    lib = crate.replace("-", "_")
    doc = ROOT / os.environ.get("CARGO_TARGET_DIR", "target") / "doc" / lib
    all_items = (doc / "all.html").read_text()
    items = []
    for href in re.findall(r'<li><a href="([^"]+\.html)">', all_items):
        *modules, page = href.split("/")
        kind, name = page.removesuffix(".html").split(".", 1)
        items.append(("::".join([lib, *modules, name]), KINDS.get(kind, kind), href))
    modules = set()
    for path, _, _ in items:
        parts = path.split("::")[1:-1]
        for i in range(1, len(parts) + 1):
            modules.add("::".join([lib, *parts[:i]]))
    out = [f"# {crate}: {len(items) + len(modules)} public names "
           f"({len(items)} items, {len(modules)} modules); "
           "scripts/public-api.py writes this file"]
    out += [f"{m} mod" for m in sorted(modules)]
    for path, kind, href in sorted(items):
        out.append(f"{path} {kind}")
        out += ["    " + line for line in describe(doc, href)]
    return "\n".join(out) + "\n"


def listing_file(crate: str) -> Path:
    meta = subprocess.run(["cargo", "metadata", "--no-deps", "--format-version", "1", "--locked"],
                          capture_output=True, text=True, check=True, cwd=ROOT).stdout
    for package in json.loads(meta)["packages"]:
        if package["name"] == crate:
            return Path(package["manifest_path"]).parent / "public-api.txt"
    sys.exit(f"public-api: no package {crate} in the workspace")


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        print("usage: public-api.py CRATE [--check | --write]", file=sys.stderr)
        return 2
    crate, mode = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
    now = listing(crate)
    if mode == "":
        sys.stdout.write(now)
        return 0
    committed = listing_file(crate)
    if mode == "--write":
        committed.write_text(now)
        print(f"public-api: wrote {committed.relative_to(ROOT)}: {now.splitlines()[0][2:]}", file=sys.stderr)
        return 0
    if mode != "--check":
        print(f"public-api: unknown option {mode}", file=sys.stderr)
        return 2
    before = committed.read_text() if committed.exists() else ""
    if before == now:
        print(f"public-api: {crate}'s surface is as committed ({now.splitlines()[0][2:]})", file=sys.stderr)
        return 0
    sys.stderr.writelines(difflib.unified_diff(
        before.splitlines(True), now.splitlines(True), str(committed.relative_to(ROOT)), "now"))
    print(f"public-api: {crate}'s public API changed (above); if on purpose: "
          f"python3 scripts/public-api.py {crate} --write, and commit the file", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
