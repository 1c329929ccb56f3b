#!/usr/bin/env python3
"""A cargo registry on disk holding the crates `cargo package` wrote.

    python3 scripts/lib/local_registry.py OUT CRATE_FILE...

writes OUT/index (a git index, as crates.io's was before the sparse
protocol: config.json and one file of JSON lines per crate) and OUT/crates
(the .crate files), and prints the index's URL. A project names it in its
`.cargo/config.toml`

    [registries.twinstar-local]
    index = "file:///…/OUT/index"

and depends on `twinstar-netcode = { version = "0.1", registry =
"twinstar-local" }`: the one word a stranger's manifest would drop once
the crates are on crates.io. The dependencies between our crates resolve
in this registry (an index entry without `registry` means "this one"),
every other one from crates.io, exactly as a published crate's would.

The entries come from each package's normalised Cargo.toml (what crates.io
would read); dev-dependencies are left out, as cargo ignores a
dependency's.
"""

import hashlib
import json
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

CRATES_IO = "https://github.com/rust-lang/crates.io-index"


def manifest(crate_file: Path) -> dict:
    with tarfile.open(crate_file) as tar:
        top = tar.getnames()[0].split("/")[0]
        data = tar.extractfile(f"{top}/Cargo.toml").read()
    return tomllib.loads(data.decode())


def entries(table: dict, target: str | None, ours: set[str]) -> list[dict]:
    out = []
    for kind, key in (("normal", "dependencies"), ("build", "build-dependencies")):
        for name, spec in table.get(key, {}).items():
            if isinstance(spec, str):
                spec = {"version": spec}
            package = spec.get("package", name)
            out.append({
                # the name the dependent uses (a rename's new name) ...
                "name": name,
                "req": spec.get("version", "*"),
                "features": spec.get("features", []),
                "optional": spec.get("optional", False),
                "default_features": spec.get("default-features", True),
                "target": target,
                "kind": kind,
                # null: this registry; ours are here, the rest on crates.io.
                "registry": None if package in ours else CRATES_IO,
                # ... and the package it is, when renamed
                "package": package if package != name else None,
            })
    return out


def index_path(name: str) -> str:
    if len(name) <= 2:
        return f"{len(name)}/{name}"
    if len(name) == 3:
        return f"3/{name[0]}/{name}"
    return f"{name[0:2]}/{name[2:4]}/{name}"


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out = Path(sys.argv[1]).resolve()
    crate_files = [Path(p).resolve() for p in sys.argv[2:]]
    index, crates = out / "index", out / "crates"
    index.mkdir(parents=True, exist_ok=True)
    crates.mkdir(parents=True, exist_ok=True)
    manifests = {f: manifest(f) for f in crate_files}
    ours = {m["package"]["name"] for m in manifests.values()}
    (index / "config.json").write_text(json.dumps(
        {"dl": f"file://{crates}/{{crate}}-{{version}}.crate"}) + "\n")
    for crate_file, m in manifests.items():
        package = m["package"]
        deps = entries(m, None, ours)
        for target, table in m.get("target", {}).items():
            deps += entries(table, target, ours)
        line = {
            "name": package["name"],
            "vers": package["version"],
            "deps": deps,
            "cksum": hashlib.sha256(crate_file.read_bytes()).hexdigest(),
            "features": m.get("features", {}),
            "yanked": False,
            "rust_version": package.get("rust-version"),
        }
        path = index / index_path(package["name"].lower())
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(line) + "\n")
        (crates / crate_file.name).write_bytes(crate_file.read_bytes())
    git = ["git", "-C", str(index), "-c", "user.name=twinstar",
           "-c", "user.email=twinstar@localhost", "-c", "commit.gpgsign=false"]
    if not (index / ".git").exists():
        subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "--allow-empty", "-m", "packages"], check=True)
    print(f"file://{index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
