"""Upstream's engine is someone else's code: nothing of it is committed here.

The engine's tools and hooks are TypeScript; this project's own ``.ts`` shims are written by
install from Python strings, so a tracked script file of any JavaScript kind is a copy (but
for the bundled TypeScript example the demo reviews, ``examples/checkout-web``). With
an export at hand (``AIDLC_UPSTREAM``), no tracked file may share a run of upstream's lines:
the gate-deferral proposal is kept as a patch without context lines for this reason.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aidlc_review.harness.layout import PROJECT_ROOT
from tests import engine_export

SCRIPT_SUFFIXES = (".ts", ".tsx", ".js", ".mjs", ".cjs")
RUN = 4  # consecutive substantive lines shared with upstream's code make a copy
SUBSTANTIVE = 25  # characters, after stripping: shorter lines are braces and keywords


def tracked() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=PROJECT_ROOT, capture_output=True, check=True
    ).stdout
    return [PROJECT_ROOT / name for name in listed.decode().split("\0") if name]


def substantive(text: str) -> list[str]:
    stripped = (
        line.strip().removeprefix("-").removeprefix("+").strip() for line in text.split("\n")
    )
    return [line for line in stripped if len(line) >= SUBSTANTIVE]


def runs(lines: list[str]) -> set[tuple[str, ...]]:
    return {tuple(lines[i : i + RUN]) for i in range(len(lines) - RUN + 1)}


# this project's own scripts, written here: the bundled TypeScript workspace the demo
# reviews, and the security lens's eslint configuration (sensors/aidlc-security.md)
OWN_EXAMPLES = PROJECT_ROOT / "examples" / "checkout-web"
OWN_CONFIGS = PROJECT_ROOT / "compiler" / "aidlc_review" / "sensors" / "configs"


def test_no_script_of_upstreams_kind_is_tracked():
    scripts = [
        p
        for p in tracked()
        if p.suffix in SCRIPT_SUFFIXES
        and not p.is_relative_to(OWN_EXAMPLES)
        and not p.is_relative_to(OWN_CONFIGS)
    ]
    assert scripts == []


@pytest.mark.engine
def test_no_tracked_file_shares_a_run_of_lines_with_upstreams_tools_and_hooks():
    claude = engine_export.require() / ".claude"
    theirs: set[tuple[str, ...]] = set()
    for source in [*claude.glob("tools/*.ts"), *claude.glob("hooks/*.ts")]:
        theirs |= runs(substantive(source.read_text(encoding="utf-8", errors="replace")))
    assert len(theirs) > 1000  # the export's code was read

    copies = []
    for path in tracked():
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if runs(substantive(text)) & theirs:
                copies.append(path.relative_to(PROJECT_ROOT).as_posix())
    assert copies == []
