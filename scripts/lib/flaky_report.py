#!/usr/bin/env python3
"""Prints every test that passed only on its retry, from nextest's JUnit report.

    python3 scripts/lib/flaky_report.py target/nextest/default/junit.xml

One line each, `FLAKY: SUITE::NAME (first failure: REASON)`, where REASON is
the first failed attempt's panic message (the line after "panicked at"), or
nextest's own message when there is none. Prints nothing when no test was
retried or the report is missing (nextest not installed). Exit 0 always: a
flaky test fails nothing by itself; docs/testing.md's ledger records it.
"""

import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def reason(failure: ET.Element) -> str:
    """The panic's message, else the failure's message attribute."""
    texts = [failure.text or ""]
    texts += [(child.text or "") for child in failure if child.tag in ("system-err", "system-out")]
    for text in texts:
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if " panicked at " in line and i + 1 < len(lines):
                return lines[i + 1].strip()
    return (failure.get("message") or failure.get("type") or "unknown").strip()


def flaky_lines(report: Path) -> list[str]:
    lines = []
    root = ET.parse(report).getroot()
    for case in root.iter("testcase"):
        attempts = case.findall("flakyFailure")
        if not attempts:
            continue
        name = f"{case.get('classname')}::{case.get('name')}"
        why = " ".join(reason(attempts[0]).split())
        if len(why) > 300:
            why = why[:297] + "..."
        lines.append(f"FLAKY: {name} (first failure: {why})")
    return lines


def main() -> int:
    report = Path(sys.argv[1] if len(sys.argv) > 1 else "target/nextest/default/junit.xml")
    if not report.is_file():
        return 0
    try:
        lines = flaky_lines(report)
    except ET.ParseError as err:
        print(f"flaky_report: cannot read {report}: {err}", file=sys.stderr)
        return 0
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
