#!/usr/bin/env python3
"""Every twinstar metric a dashboard or a rules file names is one the
server exports.

    python3 scripts/check-metric-names.py METRICS_TEXT FILE...

METRICS_TEXT is a server's `GET /metrics` answer, saved (scripts/
check-prometheus.sh scrapes a running server for it). Each FILE is a
Grafana dashboard (.json: every panel's and variable's query) or a
Prometheus rules file (.yml: every line outside comments). A name of the
form twinstar_* that no sample line of METRICS_TEXT carries (a renamed
metric, a typo, a histogram's base name without _bucket/_count/_sum) is
an error, one line each; exit 1 if any, 2 on bad input. A dashboard must
also parse, and its panels have unique ids and at least one query.
"""

import json
import re
import sys
from pathlib import Path

NAME = re.compile(r"\btwinstar_[a-zA-Z0-9_]+")


# The sample names a metric family of each type has (OpenMetrics, as the
# server writes it: a counter family `x` has samples `x_total`).
SUFFIXES = {
    "counter": ["_total", "_created"],
    "gauge": [""],
    "histogram": ["_bucket", "_count", "_sum", "_created"],
    "summary": ["", "_count", "_sum", "_created"],
    "info": ["_info"],
    "stateset": [""],
    "unknown": [""],
}


def exported(text: str) -> set[str]:
    """The sample names in an exposition: those of its sample lines, and
    those its `# TYPE` lines promise (a labelled family with no child yet,
    such as refusals before the first refusal, prints no sample)."""
    names = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            parts = line.split()
            if len(parts) == 4:
                names.update(parts[2] + s for s in SUFFIXES.get(parts[3], [""]))
        elif line and not line.startswith("#"):
            names.add(re.split(r"[{\s]", line, maxsplit=1)[0])
    return names


def queries(node) -> list[str]:
    """Every query string in a dashboard: targets' expr, variables'
    query and definition."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("expr", "query", "definition") and isinstance(value, str):
                found.append(value)
            else:
                found.extend(queries(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(queries(item))
    return found


def dashboard(path: Path, problems: list[str]) -> list[str]:
    try:
        board = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        problems.append(f"{path}: not a JSON dashboard ({e})")
        return []
    panels = board.get("panels") if isinstance(board, dict) else None
    if not isinstance(panels, list) or not panels:
        problems.append(f"{path}: no panels")
        return []
    ids = [p.get("id") for p in panels]
    if len(set(ids)) != len(ids):
        problems.append(f"{path}: panel ids repeat ({ids})")
    for p in panels:
        if not any(t.get("expr") for t in p.get("targets", [])):
            problems.append(f"{path}: panel {p.get('title')!r} has no query")
    return queries(board)


def rules(path: Path, problems: list[str]) -> list[str]:
    try:
        lines = path.read_text().splitlines()
    except OSError as e:
        problems.append(f"{path}: {e}")
        return []
    return [line for line in lines if not line.lstrip().startswith("#")]


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        names = exported(Path(sys.argv[1]).read_text())
    except OSError as e:
        print(f"check-metric-names: {e}", file=sys.stderr)
        return 2
    if not any(n.startswith("twinstar_") for n in names):
        print(f"check-metric-names: {sys.argv[1]} exports no twinstar_ metric", file=sys.stderr)
        return 2
    problems: list[str] = []
    for arg in sys.argv[2:]:
        path = Path(arg)
        texts = dashboard(path, problems) if path.suffix == ".json" else rules(path, problems)
        used = {n for text in texts for n in NAME.findall(text)}
        if not used:
            problems.append(f"{path}: names no twinstar_ metric")
        for name in sorted(used - names):
            problems.append(f"{path}: {name} is not exported by the server")
    for p in problems:
        print(f"check-metric-names: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
