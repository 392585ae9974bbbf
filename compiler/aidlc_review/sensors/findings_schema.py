"""findings-schema: the code-review findings document is valid and its verdicts agree.

Validates ``settings["findings_path"]`` against the committed JSON Schema, then
checks that every pass's verdict (and the document's) is NOT-READY exactly when
that pass left an open critical or major finding.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from aidlc_review.sensors.context import SensorContext
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged, skipped
from aidlc_review.severity import NOT_READY, READY, blocks_verdict
from aidlc_review.waiver_rule import holds, parse_day


def run(ctx: SensorContext) -> CheckResult:
    from aidlc_review.schemas import FINDINGS_SCHEMA, load_schema

    target = ctx.settings.get("findings_path")
    if not target or not Path(target).is_file():
        return skipped(ctx.name, "no code-review-findings.json written yet", ctx.manifest.category)
    path = Path(target)
    shown = _shown(path, ctx.workspace)
    command = f"validate {shown} against {FINDINGS_SCHEMA}"
    try:
        document = json.loads(path.read_bytes())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return judged(ctx.name, [_bad(ctx, shown, None, f"not readable JSON: {exc}")], command)
    from jsonschema import Draft202012Validator  # 0.1 s of imports: only when validating

    validator = Draft202012Validator(load_schema(FINDINGS_SCHEMA))
    errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    findings = [_bad(ctx, shown, None, f"{_where(e.absolute_path)}: {e.message}") for e in errors]
    if not findings:
        findings = [_bad(ctx, shown, None, message) for message in verdict_mismatches(document)]
    return judged(ctx.name, findings, command, tool="jsonschema", tool_version=_version())


def verdict_mismatches(document: dict[str, Any]) -> list[str]:
    """Every place a verdict disagrees with the open blocking findings it sits beside."""
    problems = []
    waived = _waived(document)
    for index, item in enumerate(document.get("passes", [])):
        problem = _mismatch(item["verdict"], item["findings"], waived)
        if problem:
            problems.append(f"$.passes[{index}].verdict: {problem}")
    passes = document.get("passes", [])
    current = [p for p in passes if p["attempt"] == document["attempt"]]
    if current:
        problem = _mismatch(document["verdict"], current[-1]["findings"], waived)
        if problem:
            problems.append(f"$.verdict: {problem}")
    return problems


def _waived(document: dict[str, Any]) -> set[str]:
    """Fingerprints a waiver in force today covers (an expired one may have held then)."""
    today = date.today()
    return {
        w["fingerprint"]
        for w in document.get("waivers", [])
        if holds(parse_day(w["expires"], "expires") if w.get("expires") else None, today)
    }


def _mismatch(verdict: str, findings: list[dict[str, Any]], waived: set[str]) -> str | None:
    open_blocking = [f for f in findings if blocks_verdict(f["status"], f["severity"], "", ())]
    blocking = sum(
        1
        for f in open_blocking
        if blocks_verdict(f["status"], f["severity"], f["fingerprint"], waived)
    )
    if verdict == READY and blocking:
        return f"READY although {blocking} critical/major finding(s) are open"
    if verdict == NOT_READY and not open_blocking:
        return "NOT-READY although no critical/major finding is open"
    return None


def _bad(ctx: SensorContext, path: str, line: int | None, message: str) -> CheckFinding:
    return ctx.finding(path, line, message, f"{ctx.name}/invalid", "invalid", "major")


def _where(parts: Any) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts)


def _shown(path: Path, workspace: Path) -> str:
    try:
        return path.resolve().relative_to(workspace.resolve()).as_posix()
    except ValueError:
        return path.name


def _version() -> str:
    from importlib.metadata import version

    return version("jsonschema")
