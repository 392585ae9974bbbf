"""Whether what install put into a harness is still there.

An upstream upgrade (a fresh ``.claude`` copied over the project) replaces the core stages,
``settings.json`` and the compiled graph: the plugin's blocks, its engine gate and the
stage numbers it pinned go, while the files it added stay. Upstream's engine then runs
code-review without the code-generation step that hands it a manifest, without the gate
that keeps approvals honest, and (after the ``compile`` upstream's error suggests) after
build-and-test. Every command that reads the harness checks this first and says how to
put it right: install again.
"""

from __future__ import annotations

import json
from pathlib import Path

from aidlc_review.errors import InvalidInput
from aidlc_review.install.ledger import LEDGER_FILE, Ledger, read_ledger

REVIEW = "code-review"
REVIEWED = "code-generation"


class BrokenInstall(InvalidInput):
    """The ledger says the plugin is installed, but parts of it are gone."""


def missing_parts(harness: Path, ledger: Ledger) -> list[str]:
    """What install wrote that is no longer there, one line each (empty: intact)."""
    problems = [f"{a.path}: gone" for a in ledger.added if not (harness / a.path).is_file()]
    for ins in ledger.inserted:
        path = harness / ins.path
        text = path.read_bytes().decode("utf-8", "replace") if path.is_file() else ""
        if ins.text not in text:
            problems.append(f"{ins.path}: the plugin's {_what(ins.kind, ins.key)} gone")
    return problems + _graph_problems(harness)


def _what(kind: str, key: str) -> str:
    if kind == "fragment":
        return f"step at {key} is"
    if kind == "json-lines":
        return "engine gate hook is"
    return f"{key} entries are"


def _graph_problems(harness: Path) -> list[str]:
    """The compiled graph must hold code-review right after code-generation."""
    shown = "tools/data/stage-graph.json"
    try:
        nodes = json.loads((harness / shown).read_text(encoding="utf-8"))
        numbers = {n["slug"]: str(n["number"]) for n in nodes}
    except (OSError, ValueError, TypeError, KeyError):
        return [f"{shown}: unreadable"]
    if REVIEW not in numbers:
        return [f"{shown}: has no {REVIEW} stage"]
    after = sorted(
        (n for n in numbers.values() if _key(n) > _key(numbers.get(REVIEWED, "0"))), key=_key
    )
    if not after or after[0] != numbers[REVIEW]:
        return [f"{shown}: {REVIEW} is not numbered right after {REVIEWED} any more"]
    return []


def _key(number: str) -> tuple[int, ...]:
    return tuple(int(part) for part in number.split(".") if part.isdigit())


def refuse_broken(harness: Path) -> None:
    """Raise ``BrokenInstall`` naming what is gone and the command that puts it back."""
    ledger = read_ledger(harness)
    if ledger is None:
        return
    problems = missing_parts(harness, ledger)
    if problems:
        raise BrokenInstall(broken_message(harness, problems))


def broken_message(harness: Path, problems: list[str]) -> str:
    shown = "; ".join(problems[:5]) + (
        f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
    )
    return (
        f"{harness}: the code-review plugin's install is broken (tools/data/{LEDGER_FILE} "
        f"records it, but {shown}), as after an upstream upgrade that replaced the harness. "
        f"Install again: aidlc-review install --harness {harness}"
    )
