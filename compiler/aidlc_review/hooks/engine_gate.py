"""The engine gate: what the plugin's PreToolUse hook lets a conductor's Bash command do.

Upstream approves a reviewer-bearing stage once every unit has a fresh
``REVIEW_COMPLETED`` row, whoever wrote it, and its own instructions tell the
conductor to write them. Installed in an upstream project, this plugin is the
only writer of code-review's rows (``review.record.upstream_receipt``), and approval of
code-review waits for the plugin's own verification. Before Claude Code runs a
Bash command this decides, from the command's text (``upstream.commands``):

- a command that would record a reviewer receipt for code-review is refused;
- a ``report`` that would commit code-review forward is refused unless every unit
  of the active intent verifies READY and fresh (``verify_review(..., ready=True)``,
  recomputed from the bytes). A code-review already completed is not re-judged: a
  re-report only finishes a transition upstream already accepted.

Each refusal says what to run instead, in the words of the stage body.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.errors import AidlcError
from aidlc_review.review.inputs.paths import (
    ENGINE_PLACEHOLDER_UNIT,
    SOURCE_STAGE,
    STAGE,
    default_record,
)
from aidlc_review.upstream import names
from aidlc_review.upstream.commands import (
    ENGINE_NAME,
    UNKNOWN,
    ReceiptWrite,
    StageCommit,
    engine_intents,
    may_touch_engine,
    scripts_run,
    unreadable,
)
from aidlc_review.upstream.records import unit_folders

STATE_FILE = names.STATE_FILE
_CURRENT = re.compile(r"^- \*\*Current Stage\*\*:[ \t]*(.*)$", re.M)
_CHECKBOX = re.compile(rf"^- \[([ xSR?-])\] {re.escape(STAGE)}\s*—", re.M)
PREFIX = "aidlc-review (the code-review plugin's engine gate) refused this command:"
MAX_SCRIPTS = 3  # scripts running scripts: read this deep
MAX_SCRIPT_BYTES = 1_000_000
PLAIN = names.command_text(
    names.ORCHESTRATE_TOOL,
    *"report --stage code-review --result approved".split(),
    '--user-input "<the human\'s words>"',
)


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str = ""


ALLOW = Decision(True)


def gate_hook_input(raw: str, workspace: Path) -> Decision:
    """The decision for one Claude Code PreToolUse payload (JSON on the hook's stdin).

    Claude Code lets a tool call through when a hook fails with anything but a refusal,
    so a check that cannot be made refuses an engine command instead of failing."""
    try:
        payload = json.loads(raw)
    except ValueError:
        return ALLOW  # not a hook payload
    if not isinstance(payload, dict) or payload.get("tool_name") != "Bash":
        return ALLOW
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return ALLOW
    cwd = payload.get("cwd")
    here = Path(cwd) if isinstance(cwd, str) and Path(cwd).is_dir() else workspace
    try:
        return gate_command(command, workspace, here)
    except Exception as exc:
        if not may_touch_engine(command):
            return ALLOW
        return Decision(False, f"{PREFIX} it could not be checked ({type(exc).__name__}: {exc}).")


def gate_command(
    command: str, workspace: Path, cwd: Path | None = None, depth: int = 0
) -> Decision:
    """Whether a Bash command may go ahead in the project ``workspace``, run from ``cwd``
    (default: the workspace), and if not why. What the reader cannot follow to its end
    where it may reach the engine is refused (fail closed); a script file the command runs
    is read as part of it."""
    why = unreadable(command)
    if why is not None:
        return Decision(False, _unreadable_refusal(why))
    for kind, script in scripts_run(command) if depth < MAX_SCRIPTS else []:
        text = _script_text((cwd or workspace) / script)
        if text is None:
            continue  # no such file to run: the command fails on its own
        if kind == "opaque" and ENGINE_NAME.search(text):
            return Decision(False, _unreadable_refusal(f"`{script}` is a program that names them"))
        if kind == "shell":
            inner = gate_command(text, workspace, cwd, depth + 1)
            if not inner.allowed:
                return inner
    for intent in engine_intents(command):
        if isinstance(intent, ReceiptWrite) and intent.stage in (STAGE, UNKNOWN):
            return Decision(False, _receipt_refusal(intent))
        if isinstance(intent, StageCommit):
            refused = _commit_refusal(intent, workspace, cwd or workspace)
            if refused is not None:
                return Decision(False, refused)
    return ALLOW


def _commit_refusal(commit: StageCommit, workspace: Path, cwd: Path) -> str | None:
    if commit.project_dir == UNKNOWN:
        return (
            f"{PREFIX} `{commit.shown}` commits a stage in a project this check cannot read "
            "(its --project-dir is not a literal path). Name the project directory literally."
        )
    project = (cwd / commit.project_dir) if commit.project_dir else workspace
    try:
        record = default_record(project.resolve())
    except AidlcError:
        return None  # no active intent: upstream's own report refuses it
    state = _state_text(record)
    if state is None:
        return None
    stage = commit.stage if commit.stage is not None else _current_stage(state)
    if stage not in (STAGE, UNKNOWN) or not _awaits_approval(state):
        return None
    failing = _failing_units(project.resolve(), record)
    if not failing:
        return None
    return _approval_refusal(commit, failing)


def _state_text(record: Path) -> str | None:
    try:
        return (record / STATE_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _current_stage(state: str) -> str | None:
    found = _CURRENT.search(state)
    return found.group(1).strip() if found else None


def _awaits_approval(state: str) -> bool:
    """code-review is started and not yet completed: the states a forward report commits
    from (upstream refuses one for a pending or skipped stage, and a completed one was
    approved before)."""
    found = _CHECKBOX.search(state)
    return found is not None and found.group(1) in ("-", "?", "R")


def intent_units(workspace: Path, record: Path) -> list[str]:
    """The units the intent has construction records for: code generation's or a review's."""
    from aidlc_review.hooks.stale import reviewed_units

    folders = unit_folders(record)  # construction/<unit>/ or construction/units/<unit>/
    units = {
        name for name, d in folders.items() if (d / SOURCE_STAGE).is_dir() or (d / STAGE).is_dir()
    }
    stage_level = {SOURCE_STAGE, STAGE, ENGINE_PLACEHOLDER_UNIT}  # no unit's folders
    return sorted((units | reviewed_units(workspace, record)) - stage_level)


def _failing_units(project: Path, record: Path) -> dict[str, list[str]]:
    """``{unit: reasons}`` for every unit whose review does not verify READY and fresh."""
    # imported here: every Bash command a conductor runs passes this hook, few need it
    from aidlc_review.review.record.verify import verify_review

    units: list[str | None] = list(intent_units(project, record)) or [None]
    failing: dict[str, list[str]] = {}
    for unit in units:
        try:
            reasons = verify_review(project, unit, record=record, ready=True)
        except Exception as exc:  # a review that cannot be proven is not a passing one
            reasons = [f"cannot be verified: {exc}"]
        if reasons:
            failing[unit or "(the stage)"] = reasons
    return failing


def _script_text(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_SCRIPT_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None


def _unreadable_refusal(why: str) -> str:
    return (
        f"{PREFIX} {why}, and this check cannot read it to its end to see what it asks of "
        "upstream's engine (a gate that reads text refuses what it cannot read). Run the "
        "engine's command itself, plainly, as the stage instructions write it, e.g. "
        f"`{PLAIN}` (after `aidlc-review review gate --workspace . --unit <unit> --approve` "
        "for every unit), with literal arguments."
    )


def _receipt_refusal(write: ReceiptWrite) -> str:
    which = (
        "code-review"
        if write.stage == STAGE
        else "a stage this check cannot read (its --stage is not a literal slug)"
    )
    return (
        f"{PREFIX} `{write.shown}` would record a reviewer receipt for {which}.\n"
        "Only aidlc-review records code-review's receipts (one per pass, completed only for "
        "a READY pass), so that a receipt always stands for a review it made and can prove. "
        f"Do not record them with {names.LOG_TOOL} review. Instead review the unit: "
        "`aidlc-review review run --workspace . --unit <unit>` (or `review start` / "
        "`review submit` with the dispatched reviewer, as the code-review stage says); at "
        "the gate run `aidlc-review review gate --workspace . --unit <unit> --approve` for "
        "every unit, then report the approval. Other stages' receipts: name the stage with "
        "a literal --stage <slug>."
    )


def _approval_refusal(commit: StageCommit, failing: dict[str, list[str]]) -> str:
    lines = [
        f"{PREFIX} `{commit.shown}` would approve code-review, but the plugin's verification "
        "(`aidlc-review review verify --ready`, recomputed from the bytes) does not hold for:"
    ]
    for unit, reasons in sorted(failing.items()):
        lines.extend(f"  {unit}: {reason}" for reason in reasons)
    lines.append(
        "What to do: for each unit above, `aidlc-review review status --workspace . --unit "
        "<unit>`. Not reviewed, NOT-READY or changed since its review: `aidlc-review review "
        "run --workspace . --unit <unit>` (the developer repairs, the reviewer re-reviews, "
        "within the pass budget). Then, as the code-review stage's gate step says, "
        "`aidlc-review review gate --workspace . --unit <unit> --approve` for every unit "
        "reviewed here, and report the approval again. If the human requests "
        "changes instead: `aidlc-review review gate --workspace . --unit <unit> "
        f"--request-changes`, then `{names.ORCHESTRATE_TOOL} report --stage code-review --result "
        'rejected --user-input "<feedback>"`.'
    )
    return "\n".join(lines)
