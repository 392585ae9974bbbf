"""Open findings as GitHub workflow-command annotations (``--output-format github``).

One line per place of an open finding (``review.report.placement``), which GitHub shows on the
pull request's diff and the run page without code scanning, so on any repository:
``::error file=src/a.py,line=4,endLine=4,title=CR-001 major linter/F401::text``. A
blocking finding is an ``error``, a minor one a ``warning``, a waived one a ``notice``
(it stays open but does not block). The escaping is GitHub's (actions/toolkit's
``command.ts``): ``%``, CR and LF in the message; also ``:`` and ``,`` in a property, so a
path or a title cannot end the property list early. Findings carry only a secret's hash
and location, never its value, and the text is redacted once more here: an annotation is
printed to a public log.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from aidlc_review.review.record.models import Finding
from aidlc_review.review.report.placement import Place, places_of
from aidlc_review.review.report.sarif_rules import rule_id
from aidlc_review.sensors.redact import redact

_DATA = {"%": "%25", "\r": "%0D", "\n": "%0A"}
_PROPERTY = {**_DATA, ":": "%3A", ",": "%2C"}


def escape_data(text: str) -> str:
    return "".join(_DATA.get(ch, ch) for ch in text)


def escape_property(text: str) -> str:
    return "".join(_PROPERTY.get(ch, ch) for ch in text)


def annotation_level(finding: Finding, waived: Collection[str]) -> str:
    if finding.id in waived:
        return "notice"
    return "error" if finding.blocking else "warning"


def render_annotations(
    findings: Sequence[Finding], anchor: str | None, waived: Collection[str] = ()
) -> str:
    """Every open finding's annotations, in the findings' order (one with no place at all,
    from a document without a manifest, is still printed: on the run page)."""
    lines = []
    for finding in findings:
        if finding.status != "open":
            continue
        places: list[Place | None] = [*places_of(finding, anchor)] or [None]
        lines += [_annotation(finding, place, waived) for place in places]
    return "".join(f"{line}\n" for line in lines)


def _annotation(finding: Finding, place: Place | None, waived: Collection[str]) -> str:
    level = annotation_level(finding, waived)
    mark = " waived" if finding.id in waived else ""
    title = f"{finding.id} {finding.severity}{mark} {rule_id(finding)}"
    props: list[tuple[str, str]] = []
    if place is not None:
        props += [("file", place.path), ("line", str(place.line))]
        props += [("endLine", str(place.end_line))]
    props.append(("title", title))
    shown = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    text = (place and place.message) or finding.finding
    if not finding.path:
        text = f"(the unit) {text}"
    message = redact(f"{text}\n\n{finding.recommendation}")
    return f"::{level} {shown}::{escape_data(message)}"


def render_reasons(unit: str, reasons: Sequence[str]) -> str:
    """Why a unit is not approvable (a stale receipt, a recomputed verdict), as errors on
    the run page: with no finding open they would otherwise show nothing."""
    title = escape_property(f"{unit} is not approvable")
    return "".join(f"::error title={title}::{escape_data(redact(r))}\n" for r in reasons)
