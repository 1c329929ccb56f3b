#!/usr/bin/env python3
"""No import cycles between the modules of a crate (issue 35): a module
that uses another may not be used back by it, directly or through others,
so each module can be read, tested and moved below its users. Reads the
`crate::` and `super::` paths of every non-test line of src/ and of each
crate under crates/, builds the module graph and prints every strongly
connected component of more than one module with the edges that close it.

    python3 scripts/check-module-cycles.py        # exit 0: no cycles, 1: cycles

A module's own children and its ancestors do not count (a parent declares
its children; a child naming its parent's items is the usual shape); test
modules (`#[cfg(test)]` and after) are left out.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def modules(src):
    """Module path -> source, for one crate's src/ folder."""
    found = {}
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            parts = os.path.relpath(path, src)[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            if parts[:1] == ["bin"]:
                continue
            with open(path, encoding="utf-8") as f:
                found["::".join(parts) or "crate"] = f.read()
    return found


def strip(source):
    # Everything from the first test-only item on, and comment lines.
    source = re.split(r"#\[cfg\((?:all\()?test", source)[0]
    return "\n".join(l for l in source.split("\n") if not l.strip().startswith("//"))


def edges_of(mods):
    names = set(mods)

    def resolve(current, path):
        segs = path.split("::")
        if segs[0] == "crate":
            base, segs = [], segs[1:]
        else:
            base, segs = current.split("::")[:-1], segs[1:]
            while segs and segs[0] == "super":
                base, segs = base[:-1], segs[1:]
        full = base + segs
        for i in range(len(full), 0, -1):
            if "::".join(full[:i]) in names:
                return "::".join(full[:i])
        return None

    edges = {m: set() for m in names}
    for m, source in mods.items():
        for path in re.findall(r"\b((?:crate|super)(?:::[a-z_][a-z_0-9]*)+)", strip(source)):
            t = resolve(m, path)
            if t and t != m and not m.startswith(t + "::") and not t.startswith(m + "::"):
                edges[m].add(t)
    return edges


def cycles(edges):
    sys.setrecursionlimit(10000)
    index, low, on, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    crates = {"twinstar": os.path.join(ROOT, "src")}
    crates_dir = os.path.join(ROOT, "crates")
    for name in sorted(os.listdir(crates_dir)) if os.path.isdir(crates_dir) else []:
        if os.path.isdir(os.path.join(crates_dir, name, "src")):
            crates[name] = os.path.join(crates_dir, name, "src")
    found = 0
    for crate, src in crates.items():
        edges = edges_of(modules(src))
        for component in cycles(edges):
            found += 1
            print(f"check-module-cycles: {crate}: a cycle between {', '.join(component)}:",
                  file=sys.stderr)
            for m in component:
                back = sorted(t for t in edges[m] if t in component)
                print(f"    {m} uses {', '.join(back)}", file=sys.stderr)
    if found:
        print(f"check-module-cycles: {found} import cycle(s); move what both sides use "
              "into a module below them", file=sys.stderr)
        return 1
    print(f"check-module-cycles: no import cycles in {len(crates)} crates", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
