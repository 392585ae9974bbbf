"""The findings document and the reviewer's answer, as strict pydantic models.

These models are the single source of both committed JSON Schemas
(``schemas/*.schema.json``, see ``review.schemas``): change a model, regenerate.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Severity = Literal["critical", "major", "minor"]
Verdict = Literal["READY", "NOT-READY"]
Status = Literal["open", "resolved"]
CheckStatus = Literal["passed", "failed", "skipped", "error"]
Source = Literal["reviewer", "sensor", "runtime"]
Category = Literal[
    "requirements",
    "correctness",
    "error-handling",
    "concurrency",
    "performance",
    "maintainability",
    "architecture",
    "tests",
    "security",
    "compatibility",
    "configuration",
    "observability",
    "accessibility",
    "documentation",
]
CATEGORIES: tuple[str, ...] = Category.__args__  # type: ignore[attr-defined]
BLOCKING: frozenset[str] = frozenset({"critical", "major"})
LOCATION = r"^[1-9][0-9]*(-[1-9][0-9]*)?$"
FINDING_ID = r"^CR-[0-9]{3,}$"
DIGEST = r"^sha256:[0-9a-f]{64}$"


class Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class AnswerFinding(Model):
    """One finding as a reviewer states it (untrusted until ``answer.validate_answer``)."""

    severity: Severity
    category: Category
    path: str = Field(min_length=1)
    location: str | None = Field(default=None, pattern=LOCATION)
    finding: str = Field(min_length=1)
    evidence: str
    recommendation: str


class ReviewerAnswer(Model):
    """What a reviewer prints on stdout (or hands to ``review submit``)."""

    verdict: Verdict
    summary: str
    findings: list[AnswerFinding]


class Finding(Model):
    """A finding in the ledger: an answer finding plus identity, status and origin."""

    id: str = Field(pattern=FINDING_ID)
    severity: Severity
    category: Category
    path: str = Field(
        description="claimed path (or an unclaimed one the runtime saw change); "
        "empty when the finding concerns no one file"
    )
    location: str | None = Field(default=None, pattern=LOCATION)
    finding: str
    evidence: str
    recommendation: str
    status: Status
    source: Source
    check: str | None = Field(default=None, description="the sensor that reported it")
    rule: str | None = None
    fingerprint: str = Field(description="line-independent identity carried across passes")
    first_seen: int = Field(ge=1, description="pass (within the attempt) it was first seen")
    attempt: int = Field(ge=1, description="attempt it was last seen in")

    @property
    def blocking(self) -> bool:
        return self.status == "open" and self.severity in BLOCKING


class Check(Model):
    name: str
    status: CheckStatus
    reason: str | None = None
    command: str | None = None
    tool: str | None = None
    tool_version: str | None = None
    findings: int = Field(ge=0, description="how many findings the check reported")


class ReviewerRecord(Model):
    agent: str
    status: Literal["answered", "unavailable"]
    reason: str | None = None
    summary: str | None = None
    verdict: Verdict | None = Field(default=None, description="the verdict the reviewer stated")


class RepairRecord(Model):
    """The repair dispatched after a NOT-READY pass (absent when none was)."""

    agent: str
    status: Literal["done", "failed"]
    reason: str | None = None


class Pass(Model):
    attempt: int = Field(ge=1)
    number: int = Field(ge=1, alias="pass")
    verdict: Verdict
    source_fingerprint: str = Field(pattern=DIGEST)
    reviewer: ReviewerRecord
    findings: list[Finding]
    checks: list[Check]
    repair: RepairRecord | None = None


class SensorVersion(Model):
    name: str
    status: str
    tool: str | None = None
    tool_version: str | None = None


class Receipt(Model):
    """Binds the terminal pass to the exact bytes reviewed. No timestamps: it is digested."""

    stage: Literal["code-review"] = "code-review"
    unit: str | None
    attempt: int = Field(ge=1)
    number: int = Field(ge=1, alias="pass")
    verdict: Verdict
    manifest: str
    manifest_digest: str = Field(pattern=DIGEST)
    files: dict[str, str]
    unit_source_fingerprint: str = Field(pattern=DIGEST)
    sensors: list[SensorVersion]
    findings_digest: str = Field(pattern=DIGEST)
    baseline_digest: str = Field(pattern=DIGEST)


class GateDecision(Model):
    attempt: int = Field(ge=1)
    decision: Literal["approve", "request-changes"]
    note: str | None = None
    receipt_fingerprint: str | None = None


class Waiver(Model):
    """A finding accepted on purpose, bound to its fingerprint: a changed finding is not covered."""

    finding: str = Field(pattern=FINDING_ID, description="the finding's ID when it was waived")
    fingerprint: str = Field(description="the waived finding's line-independent identity")
    reason: str = Field(min_length=1)
    by: str = Field(min_length=1)
    on: date = Field(description="the day it was waived")
    expires: date | None = Field(default=None, description="last day it holds (inclusive)")


class FindingsDocument(Model):
    """``code-review-findings.json``: the whole review history of one unit."""

    version: Literal[1] = 1
    stage: Literal["code-review"] = "code-review"
    unit: str | None
    attempt: int = Field(ge=1)
    verdict: Verdict
    passes: list[Pass]
    checks: list[Check]
    gate: list[GateDecision] = []
    waivers: list[Waiver] = []
    receipt: Receipt | None = None

    def attempt_passes(self, attempt: int | None = None) -> list[Pass]:
        wanted = self.attempt if attempt is None else attempt
        return [p for p in self.passes if p.attempt == wanted]

    @property
    def latest(self) -> Pass | None:
        return self.passes[-1] if self.passes else None

    def open_findings(self) -> list[Finding]:
        last = self.latest
        return [f for f in last.findings if f.status == "open"] if last else []
