"""The plugin's contributions to core stages, read from ``stages/contributions/<phase>/``.

Each file has upstream's contribution shape: frontmatter naming the ``target``
stage, structural ``adds`` (only ``consumes`` is used) and ``fragments``
(anchor + order), and a body of ``## fragment: <anchor>`` sections in the same
order as the fragments list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aidlc_review.errors import InvalidInput
from aidlc_review.harness.frontmatter import read_document


@dataclass(frozen=True)
class Fragment:
    anchor: str
    order: int
    prose: str


@dataclass(frozen=True)
class Contribution:
    target: str
    consumes: list[dict[str, Any]]
    fragments: list[Fragment]

    def consumes_lines(self) -> list[str]:
        lines: list[str] = []
        for entry in self.consumes:
            lines.append(f"  - artifact: {entry['artifact']}")
            lines.append(f"    required: {'true' if entry['required'] else 'false'}")
        return lines


_SECTION = re.compile(r"^## fragment: (\S+)\n", re.M)


def load_contributions(plugin_root: Path) -> dict[str, Contribution]:
    folder = plugin_root / "stages" / "contributions"
    found: dict[str, Contribution] = {}
    for path in sorted(folder.glob("*/*.md")):
        display = path.relative_to(plugin_root).as_posix()
        doc = read_document(path, display)
        data = doc.data
        prose = _SECTION.split(doc.body)[1:]
        sections = list(zip(prose[0::2], prose[1::2], strict=True))
        declared = data.get("fragments", [])
        if [s[0] for s in sections] != [f["anchor"] for f in declared]:
            raise InvalidInput(f"{display}: fragments and '## fragment:' sections do not match")
        fragments = [
            Fragment(f["anchor"], int(f["order"]), text.strip("\n"))
            for f, (_, text) in zip(declared, sections, strict=True)
        ]
        adds = data.get("adds") or {}
        found[data["target"]] = Contribution(data["target"], adds.get("consumes", []), fragments)
    return found
