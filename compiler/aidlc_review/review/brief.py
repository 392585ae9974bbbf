"""Briefs for the agents, rendered with jinja2 from the harness's persona and knowledge."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.fsio import write_atomic
from aidlc_review.review.engine import Gathered
from aidlc_review.review.models import BLOCKING, CATEGORIES, FindingsDocument
from aidlc_review.review.render import render
from aidlc_review.review.report import tool_label, unit_label
from aidlc_review.review.unit import UnitContext


def reviewer_brief(ctx: UnitContext, doc: FindingsDocument, gathered: Gathered) -> str:
    persona, persona_path = ctx.persona()
    prior = doc.passes[-1].findings if doc.passes else []
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
        prior=prior,
        categories=CATEGORIES,
    )


def repair_brief(ctx: UnitContext, doc: FindingsDocument) -> str:
    last = doc.passes[-1]
    open_ = [f for f in last.findings if f.status == "open"]
    return render(
        "repair-brief.md.j2",
        unit_label=unit_label(ctx.paths.unit),
        attempt=last.attempt,
        number=last.number,
        budget=ctx.budget,
        manifest=ctx.paths.display(ctx.paths.manifest),
        blocking=[f for f in open_ if f.severity in BLOCKING],
        minor=[f for f in open_ if f.severity not in BLOCKING],
        claimed=sorted(doc.receipt.files) if doc.receipt else [],
    )


def write_brief(path: Path, text: str) -> Path:
    write_atomic(path, text)
    return path
