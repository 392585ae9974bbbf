"""What a sensor run produces: a check result holding its findings.

A failing check is a result, never an exception. A check that could not decide
(``error``, or a ``required`` tool that is missing) carries one blocking
finding, so no caller can mistake "could not verify" for "passed".
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from aidlc_review.sensors.redact import redact
from aidlc_review.severity import BLOCKING

STATUSES = ("passed", "failed", "skipped", "error")


def fingerprint_of(check: str, path: str, rule: str | None, message: str) -> str:
    """A line-independent identity: stable when a finding only moves within its file."""
    text = "\x1f".join((check, path, rule or "", message))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class CheckFinding:
    severity: str
    category: str
    path: str
    line: int | None
    message: str
    rule: str | None
    fingerprint: str

    def __post_init__(self) -> None:
        # the one choke point: a message is redacted however the finding was made (or cached)
        object.__setattr__(self, "message", redact(self.message))

    @property
    def blocking(self) -> bool:
        return self.severity in BLOCKING

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "category": self.category,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "rule": self.rule,
            "fingerprint": self.fingerprint,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckFinding:
        return cls(
            data["severity"],
            data["category"],
            data["path"],
            data["line"],
            data["message"],
            data["rule"],
            data["fingerprint"],
        )


def make_finding(
    check: str,
    severity: str,
    category: str,
    path: str,
    line: int | None,
    message: str,
    rule: str | None = None,
    identity: str | None = None,
) -> CheckFinding:
    """``identity`` replaces the message in the fingerprint when the message holds numbers
    that change from run to run (a coverage percentage) while the finding stays the same."""
    message = redact(message)
    return CheckFinding(
        severity,
        category,
        path,
        line,
        message,
        rule,
        fingerprint_of(check, path, rule, message if identity is None else redact(identity)),
    )


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: str
    reason: str | None
    command: str | None
    duration_ms: int
    findings: tuple[CheckFinding, ...] = ()
    tool: str | None = None
    tool_version: str | None = None
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.reason is not None:
            object.__setattr__(self, "reason", redact(self.reason))

    @property
    def blocking(self) -> bool:
        return any(f.blocking for f in self.findings)

    def with_findings(self, extra: list[CheckFinding]) -> CheckResult:
        """This result with ``extra`` findings too: a check that passed now fails."""
        if not extra:
            return self
        ordered = tuple(sorted((*self.findings, *extra), key=_finding_order))
        status = "failed" if self.status == "passed" else self.status
        return replace(self, status=status, findings=ordered)

    def timed(self, duration_ms: int) -> CheckResult:
        return replace(self, duration_ms=duration_ms)

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` check shape: name, status, reason, command, duration_ms, findings."""
        data: dict[str, Any] = {
            "name": self.name,
            "status": self.status,
            "reason": self.reason,
            "command": self.command,
            "duration_ms": self.duration_ms,
            "findings": [f.to_json() for f in self.findings],
            "tool": self.tool,
            "tool_version": self.tool_version,
        }
        if self.details:
            data["details"] = self.details
        return data


def could_not_verify(name: str, category: str, reason: str) -> CheckFinding:
    return make_finding(
        name, "major", category, "", None, f"could not verify: {reason}", rule=f"{name}/unverified"
    )


def passed(name: str, command: str | None = None, **kw: Any) -> CheckResult:
    return CheckResult(name, "passed", None, command, 0, (), **kw)


def judged(
    name: str, findings: list[CheckFinding], command: str | None = None, **kw: Any
) -> CheckResult:
    """``failed`` when any finding is present, else ``passed``; findings sorted for determinism.
    Its reason says what a project-wide tool counted outside the unit (never findings)."""
    ordered = tuple(sorted(findings, key=_finding_order))
    outside = "; ".join(kw.get("details", {}).get("outside_unit", ())) or None
    return CheckResult(name, "failed" if ordered else "passed", outside, command, 0, ordered, **kw)


def skipped(
    name: str,
    reason: str,
    category: str,
    *,
    required: bool = False,
    command: str | None = None,
    **kw: Any,
) -> CheckResult:
    """A check that did not run; a ``required`` one blocks instead of passing quietly."""
    findings = (could_not_verify(name, category, reason),) if required else ()
    return CheckResult(name, "skipped", reason, command, 0, findings, **kw)


def errored(
    name: str, reason: str, category: str, command: str | None = None, **kw: Any
) -> CheckResult:
    return CheckResult(
        name, "error", reason, command, 0, (could_not_verify(name, category, reason),), **kw
    )


def _finding_order(f: CheckFinding) -> tuple[str, int, str, str]:
    return (f.path, f.line or 0, f.rule or "", f.message)
