"""The run's recorded state: written atomically after every step, read back by ``--resume``.

Where it lives: ``<git common dir>/aidlc-bolt/<id8>/state.json`` of the target repository,
with ``<git common dir>/aidlc-bolt/current`` naming the latest run. Inside ``.git`` the
state is never part of any worktree's diff and never committed. The unit worktrees live
next to it (``<id8>/worktrees/<unit>``) and the developer briefs in ``<id8>/briefs/``.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from aidlc_review.errors import InvalidInput
from aidlc_review.fsio import dump_json, write_atomic

STATE_VERSION = 1
STATE_DIR = "aidlc-bolt"
STAGE_LEVEL = "(stage)"

# Unit lifecycle. On resume an interrupted generation starts again in a fresh worktree, an
# interrupted review is picked up by the runtime in the same worktree, an interrupted merge
# is rolled back and redone; every other status is a finished step resume does not repeat.
IN_FLIGHT = ("generating", "reviewing")
MERGEABLE = ("finalized", "merging")
AT_GATE = ("held", "refused", "failed", "blocked", "conflict")
STATUSES = (
    "pending",
    *IN_FLIGHT,
    "generated",
    "reviewed",
    *MERGEABLE,
    "merged",
    "reopened",
    *AT_GATE,
)


@dataclass
class UnitState:
    name: str
    depends_on: list[str]
    batch: int
    status: str = "pending"
    attempt: int = 1
    branch: str | None = None
    worktree: str | None = None
    base: str | None = None
    commit: str | None = None
    merge_commit: str | None = None
    landed: str | None = None  # the unit commit whose changes the target has (last merge)
    verdict: str | None = None
    passes_used: int = 0
    open_findings: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    approved: bool = False
    # Regenerate on the target's head rather than the batch base: set when the unit's own
    # earlier merge (or the change it conflicted with) is on the target already.
    rebase: bool = False


@dataclass
class RunState:
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
    phase: str = "running"  # running -> gate -> done
    gate: list[dict[str, Any]] = field(default_factory=list)
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
    """The one writer of ``state.json``; safe to call from the unit threads."""

    def __init__(self, path: Path, state: RunState):
        self.path = path
        self.state = state
        self._lock = threading.Lock()

    @property
    def run_dir(self) -> Path:
        return self.path.parent

    def save(self) -> None:
        with self._lock:
            write_atomic(self.path, dump_json(_to_json(self.state)))

    def update(self, name: str, **changes: Any) -> UnitState:
        with self._lock:
            unit = self.state.units[name]
            for key, value in changes.items():
                if not hasattr(unit, key):
                    raise AttributeError(key)
                setattr(unit, key, value)
            write_atomic(self.path, dump_json(_to_json(self.state)))
            return unit

    def set_phase(self, phase: str) -> None:
        self.state.phase = phase
        self.save()


def create_store(root: Path, state: RunState) -> StateStore:
    store = StateStore(root / state.id8 / "state.json", state)
    store.save()
    write_atomic(root / "current", state.id8 + "\n")
    return store


def open_store(root: Path) -> StateStore:
    """The latest run's state; InvalidInput when there is none or it cannot be read."""
    pointer = root / "current"
    if not pointer.is_file():
        raise InvalidInput(f"{root.parent.parent}: no bolt run recorded in this repository")
    path = root / pointer.read_text().strip() / "state.json"
    try:
        data = json.loads(path.read_text())
        return StateStore(path, _from_json(data))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(f"{path}: unreadable bolt state: {exc}") from None


def _to_json(state: RunState) -> dict[str, Any]:
    data = asdict(state)
    data["units"] = {name: asdict(unit) for name, unit in sorted(state.units.items())}
    return data


def _from_json(data: dict[str, Any]) -> RunState:
    if data.get("version") != STATE_VERSION:
        raise ValueError(f"state version {data.get('version')!r}, expected {STATE_VERSION}")
    known = {f.name for f in fields(RunState)}
    units = {name: UnitState(**unit) for name, unit in data["units"].items()}
    return RunState(**{k: v for k, v in data.items() if k in known and k != "units"}, units=units)
