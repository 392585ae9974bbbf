"""Briefs for the agents, rendered with jinja2 from the harness's persona and knowledge.

The reviewer brief carries the unit's diff against its base and, from the second pass
on, what changed since the previous pass (``review.source.diff``), both cut to one byte budget
(``brief-diff-bytes`` in the workspace's settings, else ``DEFAULT_DIFF_BYTES``), and
every open finding with its ID and all its locations. The repair brief quotes the
blocking findings with a few lines of the frozen source around each location.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from aidlc_review.fsio import write_atomic
from aidlc_review.review.inputs.unit import UnitContext
from aidlc_review.review.record.models import CATEGORIES, Finding, FindingsDocument
from aidlc_review.review.report.markdown import tool_label, unit_label
from aidlc_review.review.report.render import render
from aidlc_review.review.run.engine import Gathered
from aidlc_review.review.source.diff import (
    DEFAULT_DIFF_BYTES,
    ShownDiff,
    diff_against,
    diff_base,
    diff_snapshots,
    fit,
)
from aidlc_review.review.source.kept_source import KeptText, kept_source
from aidlc_review.severity import BLOCKING

CONTEXT_LINES = 3
MAX_QUOTED_LINES = 40
MAX_QUOTED_LOCATIONS = 20
_TICKS = re.compile(r"^(`{3,})", re.MULTILINE)


def reviewer_brief(
    ctx: UnitContext,
    doc: FindingsDocument,
    gathered: Gathered,
    diff_bytes: int | None = None,
) -> str:
    """``diff_bytes``: the diffs' budget (default: the unit's ``brief-diff-bytes``)."""
    if diff_bytes is None:
        diff_bytes = ctx.project.unit_settings.brief_diff_bytes or DEFAULT_DIFF_BYTES
    persona, persona_path = ctx.persona()
    return render(
        "reviewer-brief.md.j2",
        unit_label=unit_label(ctx.paths.unit),
        attempt=doc.attempt,
        number=len(doc.attempt_passes()) + 1,
        budget=ctx.budget,
        persona=persona,
        persona_path=persona_path,
        knowledge=ctx.knowledge(),
        manifest=ctx.paths.display(ctx.paths.manifest),
        claimed=list(gathered.frozen.files),
        upstream=ctx.upstream(),
        checks=[
            {**r.to_json(), "label": tool_label(r.tool, r.tool_version)} for r in gathered.results
        ],
        prior=[finding_view(f) for f in doc.open_findings()],
        changes=changes(ctx, doc, gathered, diff_bytes),
        categories=CATEGORIES,
    )


def repair_brief(ctx: UnitContext, doc: FindingsDocument) -> str:
    last = doc.passes[-1]
    open_ = [f for f in last.findings if f.status == "open"]
    source = kept_source(last.source_fingerprint) or {}
    return render(
        "repair-brief.md.j2",
        unit_label=unit_label(ctx.paths.unit),
        attempt=last.attempt,
        number=last.number,
        budget=ctx.budget,
        manifest=ctx.paths.display(ctx.paths.manifest),
        blocking=[finding_view(f, source) for f in open_ if f.severity in BLOCKING],
        minor=[finding_view(f) for f in open_ if f.severity not in BLOCKING],
        claimed=sorted(doc.receipt.files) if doc.receipt else [],
    )


def write_brief(path: Path, text: str) -> Path:
    write_atomic(path, text)
    return path


def changes(
    ctx: UnitContext, doc: FindingsDocument, gathered: Gathered, cap: int
) -> dict[str, Any]:
    """The brief's two diffs (since the previous pass; against the base), cut to ``cap``."""
    current = kept_source(gathered.frozen.fingerprint)
    last = doc.latest
    since, since_reason = _since_previous(last.source_fingerprint if last else None, current)
    configured = ctx.configured_base() is not None
    base = diff_base(ctx.paths.workspace, gathered.baseline.base, configured)
    against, base_reason = _against_base(ctx.paths.workspace, base, current)
    shown_since, shown_base = fit([since or [], against or []], cap)
    return {
        "cap": cap,
        "since": None
        if last is None
        else {
            "pass": last.number,
            "attempt": last.attempt,
            "repaired": last.repair is not None,
            "reason": since_reason,
            "diff": _diff_view(shown_since),
        },
        "base": {
            "commit": base[:12] if base else None,
            "reason": base_reason,
            "diff": _diff_view(shown_base),
        },
    }


def _since_previous(
    fingerprint: str | None, current: dict[str, KeptText] | None
) -> tuple[list[Any] | None, str | None]:
    if fingerprint is None:
        return None, None
    before = kept_source(fingerprint)
    if before is None or current is None:
        return None, "the source of that pass was not kept on this machine"
    return diff_snapshots(before, current), None


def _against_base(
    workspace: Path, base: str | None, current: dict[str, KeptText] | None
) -> tuple[list[Any] | None, str | None]:
    if base is None:
        return None, "no git base: the workspace is not a git checkout with a commit"
    if current is None:
        return None, "the frozen source was not kept on this machine"
    try:
        return diff_against(workspace, base, current), None
    except OSError as exc:
        return None, str(exc)


def _diff_view(shown: ShownDiff) -> dict[str, Any]:
    longest = max((len(m) for m in _TICKS.findall(shown.text)), default=2)
    return {
        "text": shown.text,
        "files": shown.files,
        "note": shown.note,
        "fence": "`" * (longest + 1),
    }


def finding_view(finding: Finding, source: dict[str, KeptText] | None = None) -> dict[str, Any]:
    """A finding for a brief: its fields, every location, and (with ``source``) code context."""
    view = finding.model_dump(mode="json")
    text = source.get(finding.path) if source is not None and finding.path else None
    locations = locations_of(finding)
    for index, location in enumerate(locations):
        location["context"] = None
        if text is not None and index < MAX_QUOTED_LOCATIONS:
            location["context"] = quote_lines(text, location["line"], location["end_line"])
    view["locations"] = locations
    view["unquoted"] = max(0, len(locations) - MAX_QUOTED_LOCATIONS) if source is not None else 0
    return view


def locations_of(finding: Finding) -> list[dict[str, Any]]:
    """``[{line, end_line, message, label}]``: every location of the finding (its
    ``locations``; a finding recorded before they existed has its one ``location``)."""
    found = [location.model_dump(mode="json") for location in finding.locations]
    if not found and finding.location:
        first, _, last = finding.location.partition("-")
        found.append({"line": int(first), "end_line": int(last) if last else None})
    for location in found:
        line, end = location.get("line"), location.get("end_line")
        location.setdefault("message", None)
        location["end_line"] = end
        location["label"] = f"{line}-{end}" if end and end != line else str(line)
        if location["message"] == finding.finding:
            location["message"] = None
    return found


def quote_lines(source: KeptText, line: int, end_line: int | None) -> dict[str, Any] | None:
    """Numbered lines around ``line``..``end_line`` of the kept text, and a fence for them."""
    if source.text is None or line < 1:
        return None
    lines = source.text.splitlines()
    first = max(1, line - CONTEXT_LINES)
    last = min(len(lines), max(line, end_line or line) + CONTEXT_LINES)
    last = min(last, first + MAX_QUOTED_LINES - 1)
    if first > last:
        return None
    width = len(str(last))
    body = "\n".join(f"{n:>{width}} | {lines[n - 1]}" for n in range(first, last + 1))
    longest = max((len(m) for m in _TICKS.findall(body)), default=2)
    return {"text": body, "fence": "`" * (longest + 1)}
