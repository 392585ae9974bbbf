"""``code-review.md``: a pure context from the findings document, rendered by jinja2."""

from __future__ import annotations

from datetime import date
from typing import Any

from aidlc_review.review.record.models import AgentUsage, Finding, FindingsDocument, Pass
from aidlc_review.review.record.waivers import waived_finding_ids
from aidlc_review.severity import BLOCKING

SHOWN_LOCATIONS = 10  # the report's cap per finding; the JSON holds every location


def unit_label(unit: str | None) -> str:
    return f"unit {unit}" if unit else "stage-level review"


def report_context(doc: FindingsDocument, today: date | None = None) -> dict[str, Any]:
    last = doc.latest if doc.latest and doc.latest.attempt == doc.attempt else None
    findings = last.findings if last else []
    waived = waived_finding_ids(doc, today or date.today()) if last else {}
    open_ = [f for f in findings if f.status == "open" and f.id not in waived]
    open_.sort(key=lambda f: (f.severity not in BLOCKING, f.severity != "critical", f.id))
    return {
        "doc": doc,
        "unit_label": unit_label(doc.unit),
        "last": last,
        "passes_in_attempt": len(doc.attempt_passes()),
        "open": open_,
        "resolved": [f for f in findings if f.status == "resolved"],
        "pre_existing": [f for f in findings if f.status == "pre-existing"],
        "unverified": [f for f in findings if f.status == "unverified"],
        "waived": [(f, waived[f.id]) for f in findings if f.id in waived],
        "history": [_history_row(p) for p in doc.passes],
        "gate_line": _gate_line(doc),
        "tools": {c.name: tool_label(c.tool, c.tool_version) for c in doc.checks},
        "outside": outside_unit(doc),
        "places": {f.id: _places(f) for f in findings},
    }


def outside_unit(doc: FindingsDocument) -> list[tuple[str, str]]:
    """``(check, note)`` for each check that ran and said what its project-wide tool
    reported on files the unit does not claim ("2 tsc finding(s) outside the unit's files"):
    a count with the tool named, shown beside the checks, never a finding of the unit."""
    ran = ("passed", "failed")
    return [(c.name, c.reason) for c in doc.checks if c.status in ran and c.reason]


def tool_label(tool: str | None, version: str | None) -> str:
    """``ruff 0.6.2``: the version string alone when it already names the tool."""
    if not tool:
        return ""
    if version and tool.lower() in version.lower():
        return version
    return f"{tool} {version}" if version else tool


REPORT_TEMPLATE = "code-review.md.j2"


def render_report(doc: FindingsDocument) -> str:
    from aidlc_review.review.report.render import render  # jinja2: only when one is written

    return render(REPORT_TEMPLATE, **report_context(doc))


def load_renderer() -> None:
    """Import jinja2 and compile the report's template now, so that writing the report
    later only renders it: a pass calls this on a thread while its sensors' tools run
    (``run.engine.gather``). Nothing is rendered or written here; a failure is left to
    the real render, which says what is wrong. The imports are made under
    ``sensors.deadline.no_fork``: no sensor's forked child inherits a half-done import."""
    from aidlc_review.sensors.deadline import no_fork

    try:
        with no_fork():
            from aidlc_review.review.report.render import environment

            environment().get_template(REPORT_TEMPLATE)
    except Exception:  # noqa: BLE001 - the render that matters raises it again, in its place
        return


def _places(finding: Finding) -> dict[str, Any]:
    """The lines a report prints for a finding, capped; empty for a single plain line."""
    locations = finding.locations
    if len(locations) < 2 and not any(p.message for p in locations):
        return {"rows": [], "more": 0}
    rows = [
        f"line {p.line}"
        + (f"-{p.end_line}" if p.end_line and p.end_line != p.line else "")
        + (f": {p.message}" if p.message else "")
        for p in locations[:SHOWN_LOCATIONS]
    ]
    return {"rows": rows, "more": max(0, len(locations) - SHOWN_LOCATIONS)}


def _history_row(item: Pass) -> dict[str, Any]:
    open_ = [f for f in item.findings if f.status == "open"]
    reviewer = (
        item.reviewer.agent
        if item.reviewer.status == "answered"
        else (f"{item.reviewer.agent} unavailable")
    )
    reviewer += usage_text(item.reviewer.usage)
    repair = f"{item.repair.agent}: {item.repair.status}" if item.repair else ""
    repair += usage_text(item.repair.usage) if item.repair else ""
    return {
        "attempt": item.attempt,
        "number": item.number,
        "verdict": item.verdict,
        "blocking": sum(f.severity in BLOCKING for f in open_),
        "minor": sum(f.severity not in BLOCKING for f in open_),
        "resolved": sum(f.status == "resolved" for f in item.findings),
        "reviewer": reviewer,
        "repair": repair,
        "at": item.at or "",
        "by": item.by or "",
    }


def usage_text(usage: AgentUsage | None) -> str:
    """`` (2 turns, 12.3 s, 1,234 in / 456 out / 5,000 cached tokens, $0.0123)``: what the
    agent's CLI reported for the pass; empty when it reported nothing."""
    if usage is None:
        return ""
    parts = [f"{usage.turns} turn{'s' if usage.turns != 1 else ''}", f"{usage.seconds:.1f} s"]
    counted = [
        f"{count:,} {label}"
        for count, label in (
            (usage.input_tokens, "in"),
            (usage.output_tokens, "out"),
            (usage.cache_read_tokens, "cached"),
        )
        if count is not None
    ]
    if counted:
        parts.append(" / ".join(counted) + " tokens")
    if usage.cost_usd is not None:
        parts.append(f"${usage.cost_usd:.4f}")
    return f" ({', '.join(parts)})"


def _gate_line(doc: FindingsDocument) -> str:
    decided = [g for g in doc.gate if g.attempt == doc.attempt]
    if decided:
        return f"Gate: {decided[-1].decision} recorded for attempt {doc.attempt}."
    if doc.receipt is None:
        return ""
    return (
        "The code-review gate decides on this review: `aidlc-review review gate --approve` "
        "or `--request-changes`; `aidlc-review review status` shows its decision."
    )
