"""Suppressions the change adds do not suppress: the change never decides how it is judged.

A tool's descriptor lists how the source switches its judgment off (``ToolSpec.suppressions``:
``# noqa``, ``# type: ignore``, ``# pragma: allowlist secret``, ``# pragma: no cover``, a skip
marker). The tools run with those honoured only as they stood at the unit's base: a
suppression is *at the base* when the base file has a line of the same text carrying it (a
file-wide one: anywhere in the base file). One the change added, or moved onto other code,
is *added*: what it hides is reported as a finding naming it, at the hidden finding's own
severity, for a person to waive at the gate (secrets: never). DESIGN.md §9.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aidlc_review.harness.definitions.sensor import SuppressionSpec
from aidlc_review.sensors.base_text import base_commit, base_texts
from aidlc_review.sensors.results import CheckFinding, make_finding

if TYPE_CHECKING:
    from aidlc_review.sensors.context import SensorContext

_RULE_SPLIT = re.compile(r"[\s,]+")


@dataclass(frozen=True)
class Mark:
    """One suppression in the claimed text."""

    line: int  # 1-based
    text: str  # the suppression as written, e.g. a noqa comment naming F401
    rules: frozenset[str] | None  # the rules it names; None: every rule
    spec: SuppressionSpec
    added: bool  # not at the base: it suppresses nothing

    def covers(self, line: int | None, rule: str | None) -> bool:
        bare = rule.split(":", 1)[-1] if rule else None  # eslint:no-eval is no-eval
        if self.rules is not None and (rule is None or not {rule, bare} & self.rules):
            return False
        if self.spec.scope == "file":
            return True
        target = self.line + 1 if self.spec.scope == "next-line" else self.line
        return line == target

    def said(self) -> str:
        return f"`{self.text}` (line {self.line}, added by this change)"


def find_marks(text: str, base: str | None, specs: Iterable[SuppressionSpec]) -> list[Mark]:
    """Every suppression in ``text``, each told whether it stood at the base (``base``: the
    file's base text; None when it had none, and then every suppression is added)."""
    specs = list(specs)
    if not specs:
        return []
    base_lines = (base or "").splitlines()
    marks: list[Mark] = []
    for spec in specs:
        pattern = re.compile(spec.pattern)
        at_base = Counter(line.strip() for line in base_lines if pattern.search(line))
        for number, line in enumerate(text.splitlines(), start=1):
            found = pattern.search(line)
            if found is None:
                continue
            key = line.strip()
            # a file-wide one too: the same line anywhere in the base file (one widened
            # to cover every rule is a new line, so added)
            added = at_base[key] <= 0
            at_base[key] -= 1
            marks.append(Mark(number, found.group(0).strip(), _rules(found), spec, added))
    return sorted(marks, key=lambda m: m.line)


def _rules(found: re.Match[str]) -> frozenset[str] | None:
    named = found.groupdict().get("rules")
    if not named:
        return None
    return frozenset(rule for rule in _RULE_SPLIT.split(named) if rule)


def covering(marks: list[Mark], line: int | None, rule: str | None) -> Mark | None:
    """The suppression that would hide a finding at ``line`` of ``rule``: one at the base
    first (it is honoured), else one the change added."""
    found = [m for m in marks if m.covers(line, rule)]
    kept = [m for m in found if not m.added]
    chosen = kept or found
    return chosen[0] if chosen else None


def judge(findings: list[CheckFinding], marks: list[Mark]) -> list[CheckFinding]:
    """The tool's findings on one file, run with every suppression ignored: those a base
    suppression covers are dropped (as the tool would), those only an added one covers are
    reported as hidden by it, at their own severity."""
    judged = []
    for finding in findings:
        mark = covering(marks, finding.line, finding.rule)
        if mark is None:
            judged.append(finding)
        elif mark.added:
            judged.append(hidden(finding, mark))
    return judged


def hidden(finding: CheckFinding, mark: Mark) -> CheckFinding:
    message = f"{finding.message}; hidden by {mark.said()}, which does not count"
    return replace(finding, message=message)


def unmeasured(check: str, category: str, path: str, mark: Mark, severity: str) -> CheckFinding:
    """A finding for an added suppression whose effect the review cannot measure (a skipped
    test, a line kept out of coverage): it is shown at what it would hide."""
    message = (
        f"{mark.said()} {mark.spec.hides}: a suppression the change adds is a finding until a "
        "person waives it at the gate"
    )
    return make_finding(check, severity, category, path, mark.line, message, "suppression")


class Suppressions:
    """The suppressions of one check's claimed files, each told whether it stood at the base.

    A file's base text is read only when the file holds something that looks like one of
    the descriptor's suppressions: most files hold none, and then nothing is asked of git."""

    def __init__(
        self, workspace: Path, settings: Mapping[str, Any], specs: Iterable[SuppressionSpec]
    ) -> None:
        self.workspace = workspace
        self.settings = settings
        self.specs = list(specs)
        self._patterns = [re.compile(spec.pattern) for spec in self.specs]
        self._marks: dict[str, list[Mark]] = {}
        self._commit: tuple[str | None] | None = None

    def marks(self, path: str) -> list[Mark]:
        if path not in self._marks:
            self._marks[path] = self._find(path)
        return self._marks[path]

    def key(self, path: str) -> str:
        """What the file's findings depend on beyond its bytes: its marks and their standing
        (part of a cached result's key)."""
        return ";".join(f"{m.line}:{m.text}:{int(m.added)}" for m in self.marks(path))

    def _find(self, path: str) -> list[Mark]:
        try:
            text = (self.workspace / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        if not any(pattern.search(text) for pattern in self._patterns):
            return []
        if self._commit is None:
            self._commit = (base_commit(self.workspace, self.settings),)
        base = base_texts(self.workspace, self._commit[0], [path])[path]
        return find_marks(text, base, self.specs)

    def judge(self, found: dict[str, list[CheckFinding]]) -> dict[str, list[CheckFinding]]:
        """``judge`` for every file of a batch's findings."""
        return {path: judge(items, self.marks(path)) for path, items in found.items()}


def added_findings(
    ctx: SensorContext,
    marks: Suppressions,
    paths: list[str],
    only: list[SuppressionSpec] | None = None,
) -> list[CheckFinding]:
    """``unmeasured`` findings for every added suppression in ``paths`` (of the specs
    ``only``, when given), each at its spec's severity key in the runner's table."""
    return [
        unmeasured(
            ctx.name,
            ctx.manifest.category,
            path,
            mark,
            ctx.severity(mark.spec.severity or "default", "major"),
        )
        for path in paths
        for mark in marks.marks(path)
        if mark.added and (only is None or mark.spec in only)
    ]
