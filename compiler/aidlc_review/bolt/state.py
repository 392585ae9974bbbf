"""The run's recorded state: written atomically after every step, read back by ``--resume``.

Where it lives: ``<git common dir>/aidlc-bolt/<id8>/state.json`` of the target repository,
with ``<git common dir>/aidlc-bolt/current`` naming the latest run. Inside ``.git`` the
state is never part of any worktree's diff and never committed. The unit worktrees live
next to it (``<id8>/worktrees/<unit>``) and the developer briefs in ``<id8>/briefs/``.

It also records what ``bolt/guard.py`` compares before every merge and at the gate: the
target's commit as Bolt left it, and the repository's hooks and hook config as they were
when the run started.
"""

from __future__ import annotations

import json
import threading
from enum import StrEnum
from pathlib import Path
from typing import Any, NoReturn

from pydantic import BaseModel, ConfigDict, Field

from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import canonical_json, dump_json, write_atomic
from aidlc_review.typed_load import parse_json

STATE_VERSION = 3  # 3: the target and hook guard (target_head, hooks, stopped)
STATE_DIR = "aidlc-bolt"
STAGE_LEVEL = "(stage)"
SEAL_KEY = "seal"
SEAL_LABEL = "aidlc-bolt run state"


class UnitStatus(StrEnum):
    """Unit lifecycle. On resume an interrupted generation starts again in a fresh worktree,
    an interrupted review is picked up by the runtime in the same worktree, an interrupted
    merge is rolled back and redone; every other status is a finished step resume does not
    repeat."""

    PENDING = "pending"
    GENERATING = "generating"
    REVIEWING = "reviewing"
    GENERATED = "generated"
    REVIEWED = "reviewed"
    FINALIZED = "finalized"
    MERGING = "merging"
    MERGED = "merged"
    REOPENED = "reopened"
    HELD = "held"
    REFUSED = "refused"
    FAILED = "failed"
    BLOCKED = "blocked"
    CONFLICT = "conflict"


class RunPhase(StrEnum):
    RUNNING = "running"
    GATE = "gate"
    # Something outside Bolt moved the target or changed the hooks: nothing is merged or
    # approved until a person puts it right and resumes (``stopped`` says what and how).
    STOPPED = "stopped"
    DONE = "done"
    ABANDONED = "abandoned"


class GateChoice(StrEnum):
    APPROVE = "approve"
    REQUEST_CHANGES = "request-changes"


class GateDecision(BaseModel):
    """One decision at the aggregate gate: what, on which unit (None: all), when and by whom."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    decision: GateChoice
    unit: str | None
    not_merged: list[str] = Field(default_factory=list)
    at: str
    by: str


IN_FLIGHT = (UnitStatus.GENERATING, UnitStatus.REVIEWING)
MERGEABLE = (UnitStatus.FINALIZED, UnitStatus.MERGING)
AT_GATE = (
    UnitStatus.HELD,
    UnitStatus.REFUSED,
    UnitStatus.FAILED,
    UnitStatus.BLOCKED,
    UnitStatus.CONFLICT,
)
STATUSES = tuple(UnitStatus)


class UnitState(BaseModel):
    """One unit's recorded progress. Changed only through ``StateStore.update``, which
    validates the whole changed record before anything of it is applied."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str
    depends_on: list[str]
    batch: int
    status: UnitStatus = UnitStatus.PENDING
    attempt: int = 1
    branch: str | None = None
    worktree: str | None = None
    base: str | None = None
    commit: str | None = None
    merge_commit: str | None = None
    landed: str | None = None  # the unit commit whose changes the target has (last merge)
    target_before: str | None = None  # the target's commit when this unit's merge began
    verdict: str | None = None
    passes_used: int = 0
    open_findings: list[dict[str, Any]] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    approved: bool = False
    # Regenerate on the target's head rather than the batch base: set when the unit's own
    # earlier merge (or the change it conflicted with) is on the target already.
    rebase: bool = False


class RunState(BaseModel):
    """``state.json``: the run as recorded (sealed; see ``StateStore``)."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=True)

    run_id: str
    workspace: str
    base: str
    target: str
    units_file: str | None
    developer: str
    reviewer: str
    repairer: str
    agent_timeout: float
    harness: str | None
    batches: list[list[str]]
    units: dict[str, UnitState]
    target_head: str  # the target's commit as Bolt left it: at the start, after each merge
    hooks: dict[str, str]  # the common git dir's hooks/ when the run started (see guard)
    hook_config: list[str]  # hook-related git config then, one ``key=value (origin)`` each
    phase: RunPhase = RunPhase.RUNNING
    stopped: list[str] = Field(default_factory=list)  # why the run is stopped, what to do
    gate: list[GateDecision] = Field(default_factory=list)
    version: int = STATE_VERSION

    @property
    def id8(self) -> str:
        return self.run_id[:8]

    def ordered(self) -> list[UnitState]:
        """Units in batch order (the merge order)."""
        return [self.units[name] for batch in self.batches for name in batch]


def bolt_root(common_dir: Path) -> Path:
    return common_dir / STATE_DIR


class StateStore:
    """The one writer of ``state.json``; safe to call from the unit threads.

    The agents run in worktrees of this repository and can reach its ``.git`` directory,
    so the state (which says what is merged and what the gate may approve) carries a seal:
    an HMAC under the machine's review key kept outside the workspace
    (``review.record.seal``). A state file whose seal does not match is refused, never used.
    """

    def __init__(self, path: Path, state: RunState):
        self.path = path
        self.state = state
        self._lock = threading.RLock()  # record_merge holds it around update

    @property
    def run_dir(self) -> Path:
        return self.path.parent

    def save(self) -> None:
        with self._lock:
            self._write()

    def update(self, name: str, **changes: Any) -> UnitState:
        """Apply ``changes`` to one unit: validated as a whole first, then written."""
        with self._lock:
            unit = self.state.units[name]
            unknown = sorted(set(changes) - set(UnitState.model_fields))
            if unknown:
                raise AttributeError(", ".join(unknown))
            record = {**unit.model_dump(mode="json"), **changes}
            checked = UnitState.model_validate_json(json.dumps(record))
            for key in changes:
                setattr(unit, key, getattr(checked, key))
            self._write()
            return unit

    def set_phase(self, phase: RunPhase | str) -> None:
        """Move to ``phase``; leaving ``stopped`` (only after the guard passed) forgets why."""
        with self._lock:
            self.state.phase = RunPhase(phase)
            if self.state.phase != RunPhase.STOPPED:
                self.state.stopped = []
            self._write()

    def record_merge(self, name: str, head: str, **changes: Any) -> UnitState:
        """A merge of ``name`` left the target at ``head``: both written in one go, so a
        state that says merged always names the target commit that merge made."""
        with self._lock:
            self.state.target_head = head
            return self.update(name, **changes)

    def stop(self, reasons: list[str]) -> None:
        with self._lock:
            self.state.phase = RunPhase.STOPPED
            self.state.stopped = list(reasons)
            self._write()

    def _write(self) -> None:
        write_atomic(self.path, sealed_json(self.state))


def sealed_json(state: RunState) -> str:
    """The state file's text: the state and, last, its seal."""
    from aidlc_review.review.record.seal import sign

    data = state.model_dump(mode="json")
    data["units"] = dict(sorted(data["units"].items()))
    return dump_json(
        {**data, SEAL_KEY: sign(Path(state.workspace), SEAL_LABEL, canonical_json(data))}
    )


def create_store(root: Path, state: RunState) -> StateStore:
    store = StateStore(root / state.id8 / "state.json", state)
    store.save()
    write_atomic(root / "current", state.id8 + "\n")
    return store


def open_store(root: Path) -> StateStore:
    """The latest run's state; InvalidInput when there is none, it cannot be read, or its
    seal does not match (an agent, or anything but this tool on this machine, wrote it)."""
    pointer = root / "current"
    if not pointer.is_file():
        raise InvalidInput(f"{root.parent.parent}: no bolt run recorded in this repository")
    path = root / pointer.read_text().strip() / "state.json"
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"{path}: unreadable bolt state: {exc.strerror}") from None
    return StateStore(path, read_state(path, raw))


def read_state(path: Path, raw: bytes) -> RunState:
    hint = f"remove {path.parent} to give the run up"
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"{path}: not a valid bolt state: not JSON: {exc}; {hint}") from None
    if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
        found = data.get("version") if isinstance(data, dict) else None
        raise InvalidInput(
            f"{path}: not a valid bolt state: $.version: must be {STATE_VERSION}, "
            f"got {json.dumps(found)}; {hint}"
        )
    _check_seal(path, data)
    state = parse_json(RunState, canonical_json(data), str(path), what="bolt state", hint=hint)
    if state.id8 != path.parent.name:
        _forged(path)
    return state


def _check_seal(path: Path, data: dict[str, Any]) -> None:
    import hmac

    from aidlc_review.review.record.seal import sign

    recorded = data.pop(SEAL_KEY, None)
    workspace = data.get("workspace")
    if not isinstance(recorded, str) or not isinstance(workspace, str):
        _forged(path)
    if not hmac.compare_digest(recorded, sign(Path(workspace), SEAL_LABEL, canonical_json(data))):
        _forged(path)


def _forged(path: Path) -> NoReturn:
    raise InvalidInput(
        f"{path}: its seal does not match: the bolt run state was not written by aidlc-review "
        "on this machine, or an agent rewrote it; it cannot be trusted, so nothing is merged "
        f"or approved from it. Inspect the run, then remove {path.parent} and start a new run"
    )
