#!/usr/bin/env python3
"""Checks that each of our crates declares a Rust version it can build with.

    python3 scripts/check-rust-version.py

Cargo refuses to build a dependency whose `rust-version` is above the
compiler's, so a crate that declares less than the highest `rust-version`
in its own dependency tree (normal and build dependencies, every platform)
promises a compiler that cannot build it. For each workspace member this
walks `cargo metadata --locked`'s resolved graph from it, takes the highest
`rust_version` found, and fails when the member's own is lower or missing
(DESIGN.md, "rust-version": each crate its own tree's maximum, not the
workspace's). Exit 0 when all agree, 1 with one line per crate when not,
2 when cargo metadata fails.
"""

import json
import subprocess
import sys


def version_key(version: str) -> tuple[int, int, int]:
    """1.88 and 1.88.0 are the same version."""
    parts = [int(part) for part in version.split(".")] + [0, 0]
    return (parts[0], parts[1], parts[2])


def main() -> int:
    try:
        out = subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except subprocess.CalledProcessError as err:
        print(f"check-rust-version: cargo metadata failed: {err.stderr.strip()}", file=sys.stderr)
        return 2
    meta = json.loads(out)
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}

    def tree(root: str) -> set[str]:
        """Every package a dependent of root compiles (no dev-dependencies)."""
        seen, todo = set(), [root]
        while todo:
            for dep in nodes[todo.pop()]["deps"]:
                if not any(k["kind"] in (None, "build") for k in dep["dep_kinds"]):
                    continue
                if dep["pkg"] not in seen:
                    seen.add(dep["pkg"])
                    todo.append(dep["pkg"])
        return seen

    problems = []
    for member in meta["workspace_members"]:
        pkg = packages[member]
        declared = pkg.get("rust_version")
        deps = [packages[d] for d in tree(member) if packages[d].get("rust_version")]
        if not deps:
            continue
        top = max(deps, key=lambda p: version_key(p["rust_version"]))
        needed = top["rust_version"]
        if declared is None:
            problems.append(f"{pkg['name']} declares no rust-version; its tree needs {needed} ({top['name']} {top['version']})")
        elif version_key(declared) < version_key(needed):
            problems.append(
                f"{pkg['name']} declares rust-version {declared}, but {top['name']} {top['version']} in its tree needs {needed}"
            )
        else:
            print(f"check-rust-version: {pkg['name']} {declared} (its tree's highest: {needed}, {top['name']})", file=sys.stderr)
    for line in problems:
        print(f"check-rust-version: {line}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
