"""The merged gate as a job summary (``$GITHUB_STEP_SUMMARY``) and as one SARIF log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aidlc_review.fsio import dump_json, write_atomic
from aidlc_review.review.record.models import FindingsDocument
from aidlc_review.review.report.sarif import sarif_log


def render_markdown(gate: dict[str, Any]) -> str:
    """GitHub-flavoured Markdown: the gate's verdict, one row per unit, the open findings."""
    lines = [
        f"## Code review: {gate['verdict']}",
        "",
        "| unit | verdict | attempt | passes | open findings |",
        "| --- | --- | --- | --- | --- |",
    ]
    for unit in gate["units"]:
        lines.append(
            f"| {unit['unit']} | {unit['verdict']} | {unit['attempt']} | "
            f"{unit['passes_used']} | {len(unit['open_findings'])} |"
        )
    for unit in gate["units"]:
        reasons, unproven = unit.get("reasons", []), unit.get("unproven", [])
        if unit["open_findings"] or reasons or unproven:
            lines += ["", f"### {unit['unit']}", ""]
            lines += [f"- not approvable: {_cell(r)}" for r in reasons]
            lines += [_finding_line(f, unit["waived"]) for f in unit["open_findings"]]
            lines += [f"- not checked here: {_cell(u)}" for u in unproven]
    return "\n".join(lines) + "\n"


def _finding_line(finding: dict[str, Any], waived: list[str]) -> str:
    where = finding["path"] or "(unit)"
    if finding.get("location"):
        where += f":{finding['location']}"
    text = _cell(finding["finding"])
    mark = " (waived)" if finding["id"] in waived else ""
    return f"- **{finding['id']}** {finding['severity']}{mark} `{where}`: {text}"


def _cell(text: str) -> str:
    """One line of Markdown: a finding's text must not open a heading or a table row."""
    return " ".join(text.split()).replace("|", "\\|")


def merged_sarif(docs: dict[str, tuple[Path, FindingsDocument]]) -> dict[str, Any]:
    """One SARIF log with one run per unit (each run's automationDetails names its unit)."""
    runs = [sarif_log(doc)["runs"][0] for _, doc in docs.values()]
    base = sarif_log(next(iter(docs.values()))[1])
    return {"$schema": base["$schema"], "version": base["version"], "runs": runs}


def append_summary(path: Path, text: str) -> None:
    """``$GITHUB_STEP_SUMMARY`` is appended to: other steps may have written to it."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def write_merged_sarif(path: Path, docs: dict[str, tuple[Path, FindingsDocument]]) -> None:
    write_atomic(path, dump_json(merged_sarif(docs)))
