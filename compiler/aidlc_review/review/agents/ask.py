"""Asking a command reviewer, with one second chance for a malformed answer.

A formatting slip must not cost one of the attempt's few passes: an answer that arrives
but cannot be read (not JSON, off-schema, inconsistent, a line past the end of its file,
an ID that is not an earlier reviewer finding) is sent back once, in a retry brief that
quotes the validation error, inside the same pass. Every check is ``engine.check_answer``,
run once per try, so what ``conclude`` records is what was retried. A second malformed answer,
or a run that fails outright (timeout, exit status, edited source), is "reviewer
unavailable" as before, with the CLI's own reason. A CLI that says it cannot work here (not
logged in, no key, endpoint unreachable) stops the review before the pass is recorded
(``AgentCannotWork``). The answer is taken from bare JSON, one fenced block or an agent
CLI's envelope (``review.agents.envelope``); what the turns cost is kept with it (``usage``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aidlc_review.review.agents.adapters import (
    AgentRun,
    AgentSpec,
    agent_env,
    refuse_if_cannot_work,
    run_command_agent,
)
from aidlc_review.review.agents.answer import AnswerCheck
from aidlc_review.review.agents.brief import write_brief
from aidlc_review.review.agents.envelope import unwrap
from aidlc_review.review.inputs.unit import UnitContext
from aidlc_review.review.record.models import AgentUsage, FindingsDocument
from aidlc_review.review.run import engine
from aidlc_review.review.source.freeze import freeze_unit
from aidlc_review.sensors.redact import scrub

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Asking:
    """One pass's question to the reviewer: who is asked, with which brief, about what."""

    ctx: UnitContext
    doc: FindingsDocument
    reviewer: AgentSpec
    gathered: engine.Gathered
    brief: Path
    number: int
    timeout: float
    say: Progress


def ask_command_reviewer(asking: Asking) -> AnswerCheck:
    """The reviewer's checked answer for this pass (asked at most twice)."""
    check, malformed = _ask_once(asking, asking.brief)
    if not malformed or check.reason is None:
        return check
    reason = scrub(check.reason)[0]
    asking.say(
        f"reviewer {asking.reviewer}: answer rejected: {reason}; asking once more (same pass)"
    )
    original = asking.brief.read_text("utf-8")
    retry = write_brief(retry_brief_path(asking.brief), retry_brief(original, reason))
    second, _ = _ask_once(asking, retry)
    return replace(second, usage=added_usage(check.usage, second.usage))


def added_usage(first: AgentUsage | None, second: AgentUsage | None) -> AgentUsage | None:
    """Two turns' usage as one: counts summed where either reported one."""
    if first is None or second is None:
        return first or second
    summed: dict[str, Any] = {}
    for key in AgentUsage.model_fields:
        values = [v for v in (getattr(first, key), getattr(second, key)) if v is not None]
        summed[key] = sum(values) if values else None
    return AgentUsage(**{**summed, "seconds": round(summed["seconds"], 3)})


def retry_brief_path(brief: Path) -> Path:
    return brief.with_name(f"{brief.stem}-retry{brief.suffix}")


def retry_brief(original: str, reason: str) -> str:
    return (
        original.rstrip("\n")
        + "\n\n## Your previous answer was rejected\n\n"
        + "It could not be read as an answer:\n\n"
        + "\n".join(f"> {line}" for line in reason.splitlines() or [""])
        + "\n\nAnswer again, following the format above exactly. This is the last chance in "
        "this pass: a second unreadable answer is recorded as *reviewer unavailable*.\n"
    )


def _ask_once(asking: Asking, brief: Path) -> tuple[AnswerCheck, bool]:
    """The answer (with what the turn cost), and whether a rejection was about its form
    (worth one retry)."""
    run = _run_reviewer(asking, brief)
    check, malformed = _judge(asking, run)
    return replace(check, usage=run.usage), malformed


def _run_reviewer(asking: Asking, brief: Path) -> AgentRun:
    reviewer, paths = asking.reviewer, asking.ctx.paths
    asking.say(f"reviewer {reviewer}: reviewing (timeout {asking.timeout:g}s)")
    env = agent_env(
        "reviewer",
        unit=paths.unit,
        workspace=paths.workspace,
        record=paths.record,
        brief=brief,
        number=asking.number,
    )
    return run_command_agent(
        reviewer,
        cwd=paths.workspace,
        brief=brief.read_text(encoding="utf-8"),
        env=env,
        timeout=asking.timeout,
        relay=asking.say,
    )


def _judge(asking: Asking, run: AgentRun) -> tuple[AnswerCheck, bool]:
    if run.timed_out or run.error:
        return AnswerCheck(None, run.failure), False
    frozen, workspace = asking.gathered.frozen, asking.ctx.paths.workspace
    if freeze_unit(asking.gathered.manifest, workspace).fingerprint != frozen.fingerprint:
        return AnswerCheck(
            None, "the reviewer changed the claimed source (reviewers never edit)"
        ), False
    refuse_if_cannot_work("reviewer", asking.reviewer, run)
    if run.exit_code != 0 or run.gave_up:
        return AnswerCheck(None, run.failure), False
    found = unwrap(run.stdout)
    if found.error is not None:
        return AnswerCheck(None, found.error), found.misformed
    check = engine.check_answer(asking.ctx, asking.doc, asking.gathered, found.text)
    return check, check.answer is None
