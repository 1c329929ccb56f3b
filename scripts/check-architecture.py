#!/usr/bin/env python3
"""Checks the figures ARCHITECTURE.md states against the code, so the map
cannot drift from the territory unnoticed (the test command runs it):

- "N cfg sites in M files": lines that choose a target (`#[cfg(...)]`,
  `#[cfg_attr(...)]` or `cfg!(...)` naming `target_arch`, `target_family`
  or `target_os`) in the workspace's sources (src/ and crates/*/src), the
  vendored matchbox copy aside;
- "N names": the netcode's public names, as the first line of
  crates/netcode/public-api.txt counts them (scripts/public-api.py writes
  it; its --check keeps the file true to the code);
- its module convention: a folder's module is its `mod.rs` (never `foo.rs`
  beside `foo/`), and an inline test module longer than 150 lines is a
  file of its own (`foo_tests.rs` by `#[path]`, or `tests.rs` in a folder).

    python3 scripts/check-architecture.py

Exit 0 when every figure is true, 1 with one line per wrong figure.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET_CFG = re.compile(
    r"(#\[cfg(_attr)?\(|cfg!\().*\b(target_arch|target_family|target_os)\b")


def sources():
    for top in [ROOT / "src", *sorted((ROOT / "crates").glob("*/src"))]:
        if top.parent.name == "matchbox-socket":
            continue
        yield from sorted(top.rglob("*.rs"))


def cfg_sites():
    counts = {}
    for path in sources():
        n = sum(1 for line in path.read_text().splitlines() if TARGET_CFG.search(line))
        if n:
            counts[path.relative_to(ROOT)] = n
    return sum(counts.values()), len(counts)


TEST_MODULE_LINES = 150


def convention():
    """Where the sources break the module convention, in words."""
    for path in sources():
        folder = path.with_suffix("")
        if path.name != "mod.rs" and folder.is_dir():
            yield f"{path.relative_to(ROOT)} beside {folder.relative_to(ROOT)}/: use mod.rs"
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines[:-1]):
            if line == "#[cfg(test)]" and lines[i + 1] == "mod tests {":
                end = next((j for j in range(i + 1, len(lines)) if lines[j] == "}"), len(lines))
                if end - i > TEST_MODULE_LINES:
                    yield (f"{path.relative_to(ROOT)}:{i + 1}: an inline test module of "
                           f"{end - i} lines (over {TEST_MODULE_LINES}): move it to a file")


def public_names():
    first = (ROOT / "crates/netcode/public-api.txt").read_text().splitlines()[0]
    return int(re.search(r"(\d+) public names", first).group(1))


def main():
    text = re.sub(r"\s+", " ", (ROOT / "ARCHITECTURE.md").read_text())
    wrong = []
    sites, files = cfg_sites()
    stated = re.search(r"(\d+) cfg sites in (\d+) files", text)
    if not stated:
        wrong.append("ARCHITECTURE.md states no 'N cfg sites in M files'")
    elif (int(stated[1]), int(stated[2])) != (sites, files):
        wrong.append(f"ARCHITECTURE.md says {stated[1]} cfg sites in {stated[2]} files; "
                     f"the code has {sites} in {files}")
    names = public_names()
    for said in re.findall(r"(\d+) names\b", text):
        if int(said) != names:
            wrong.append(f"ARCHITECTURE.md says {said} names; the netcode has {names} "
                         "public names (crates/netcode/public-api.txt)")
    wrong.extend(convention())
    for line in wrong:
        print(f"check-architecture: {line}", file=sys.stderr)
    if not wrong:
        print(f"check-architecture: {sites} cfg sites in {files} files, "
              f"{names} public names: as ARCHITECTURE.md says; the module convention holds")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
