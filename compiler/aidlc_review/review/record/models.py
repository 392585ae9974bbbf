"""The findings document and the reviewer's answer, as strict pydantic models.

These models are the single source of both committed JSON Schemas
(``schemas/*.schema.json``, see ``review.record.schemas``): change a model, regenerate.
"""

from __future__ import annotations

import shlex
from datetime import date
from pathlib import PurePath
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from aidlc_review.severity import Severity, blocks_verdict

Verdict = Literal["READY", "NOT-READY"]
# "pre-existing": open, but on lines the unit did not change since its base (it does not
# block; ``review.findings.change_filter`` derives it from the diff at every gate)
Status = Literal["open", "resolved", "pre-existing", "unverified"]
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
LOCATION = r"^[1-9][0-9]*(-[1-9][0-9]*)?$"
FINDING_ID = r"^CR-[0-9]{3,}$"
DIGEST = r"^sha256:[0-9a-f]{64}$"
UTC_TIME = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"


class Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class AnswerFinding(Model):
    """One finding as a reviewer states it (untrusted until ``answer.validate_answer``)."""

    id: str | None = Field(
        default=None,
        pattern=FINDING_ID,
        description="restates an earlier finding of this unit (from the brief) by its ID",
    )
    severity: Severity
    category: Category
    path: str = Field(min_length=1)
    location: str | None = Field(default=None, pattern=LOCATION)
    finding: str = Field(min_length=1)
    evidence: str
    recommendation: str


class Resolution(Model):
    """An earlier reviewer finding the reviewer now judges fixed, and why."""

    id: str = Field(pattern=FINDING_ID)
    reason: str = Field(min_length=1)


class ReviewerAnswer(Model):
    """What a reviewer prints on stdout (or hands to ``review submit``)."""

    verdict: Verdict
    summary: str
    findings: list[AnswerFinding]
    resolved: list[Resolution] = Field(
        default=[], description="earlier reviewer findings (by ID) the reviewer judges fixed"
    )


class Location(Model):
    """One place a finding was reported; ``message`` only when it differs from the finding's."""

    line: int = Field(ge=1)
    end_line: int | None = Field(default=None, ge=1)
    message: str | None = None


class Finding(Model):
    """A finding in the ledger: an answer finding plus identity, status and origin."""

    id: str = Field(pattern=FINDING_ID)
    severity: Severity
    category: Category
    path: str = Field(
        description="claimed path (or an unclaimed one the runtime saw change); "
        "empty when the finding concerns no one file"
    )
    location: str | None = Field(
        default=None, pattern=LOCATION, description="the first of ``locations``"
    )
    locations: list[Location] = Field(
        default=[], description="every line it was reported at, in line order"
    )
    finding: str
    evidence: str
    recommendation: str
    status: Status
    source: Source
    check: str | None = Field(default=None, description="the (first) sensor that reported it")
    checks: list[str] = Field(
        default=[], description="every sensor that reported it (one defect, several sources)"
    )
    rule: str | None = None
    fingerprint: str = Field(description="identity recorded when first seen, carried across passes")
    first_seen: int = Field(ge=1, description="pass (within the attempt) it was first seen")
    attempt: int = Field(ge=1, description="attempt it was last seen in")
    not_re_examined: bool = Field(
        default=False,
        description="an earlier reviewer finding this pass's reviewer did not account for: "
        "kept open, never resolved by silence",
    )
    resolution: str | None = Field(
        default=None, description="why the reviewer resolved it (its own words)"
    )

    @property
    def blocking(self) -> bool:
        """Blocks unless a waiver covers it (``severity.blocks_verdict``, no waivers)."""
        return blocks_verdict(self.status, self.severity, self.fingerprint, ())


class Check(Model):
    name: str
    status: CheckStatus
    reason: str | None = None
    command: str | None = None
    tool: str | None = None
    tool_version: str | None = None
    findings: int = Field(ge=0, description="how many findings the check reported")


def agent_name(text: object) -> object:
    """``command:env K=V /opt/bin/claude -p ...`` -> ``claude``.

    The committed record names an agent by preset or executable name only: a command
    line can hold local paths, tokens or environment, and it is no part of the review.
    """
    if not isinstance(text, str):
        return text
    try:
        words = shlex.split(text.removeprefix("command:"))
    except ValueError:
        words = text.removeprefix("command:").split()
    while words and (words[0] == "env" or "=" in words[0] or words[0].startswith("-")):
        words = words[1:]
    return PurePath(words[0]).name if words else text.split(":", 1)[0]


AgentName = Annotated[str, BeforeValidator(agent_name)]


class AgentUsage(Model):
    """What an agent's turns in one pass cost, as far as its CLI reported it (a count it did
    not report is null; the time is measured by the review)."""

    turns: int = Field(ge=1, description="agent runs in the pass (a retried answer is two)")
    seconds: float = Field(ge=0, description="wall-clock time of those runs")
    input_tokens: int | None = Field(default=None, ge=0, description="not read from a cache")
    output_tokens: int | None = Field(default=None, ge=0)
    cache_read_tokens: int | None = Field(default=None, ge=0)
    cache_write_tokens: int | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0, description="as the CLI reported it")


class _WithUsage(Model):
    """A record whose ``usage`` is left out of the JSON when there is none (the builtin and
    host-driven agents report none): records without it read and write as before."""

    usage: AgentUsage | None = None

    @model_serializer(mode="wrap")
    def _without_absent_usage(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        usage = data.pop("usage", None)
        return data if usage is None else {**data, "usage": usage}


class ReviewerRecord(_WithUsage):
    agent: AgentName
    status: Literal["answered", "unavailable"]
    reason: str | None = None
    summary: str | None = None
    verdict: Verdict | None = Field(default=None, description="the verdict the reviewer stated")


class RepairRecord(_WithUsage):
    """The repair dispatched after a NOT-READY pass (absent when none was)."""

    agent: AgentName
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
    at: str | None = Field(default=None, pattern=UTC_TIME, description="when it concluded (UTC)")
    by: str | None = Field(default=None, description="who ran it (--by, git user.email, OS user)")


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
    at: str | None = Field(default=None, pattern=UTC_TIME, description="when it was decided (UTC)")
    by: str | None = Field(default=None, description="who decided (--by, git user.email, OS user)")


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
