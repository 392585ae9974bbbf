"""The active intent of an upstream AI-DLC project: where its record lives.

Upstream keeps records at ``aidlc/spaces/<space>/intents/<intent>/``. The cursors
``aidlc/active-space`` and ``aidlc/spaces/<space>/intents/active-intent`` name the
active ones; without a cursor the only space (or intent) is meant. The cursors
are per clone and git-ignored, so a Bolt worktree has none of its own: there the
main worktree's cursors are read.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from aidlc_review.errors import InvalidInput
from aidlc_review.upstream import names

STAGE = "code-review"
SOURCE_STAGE = "code-generation"


def active_intent_record(workspace: Path) -> Path | None:
    """The active intent's directory; None when ``workspace`` is not an upstream project."""
    spaces = workspace / names.SPACES
    if not spaces.is_dir():
        return None
    cursors = [workspace, *_main_worktree(workspace)]
    space = _pick(spaces, _cursor(cursors, Path(names.ACTIVE_SPACE)), "space")
    intents = spaces / space / names.INTENTS
    cursor = Path(names.SPACES) / space / names.INTENTS / names.ACTIVE_INTENT
    intent = _pick(intents, _cursor(cursors, cursor), "intent")
    return intents / intent


def _cursor(roots: list[Path], relative: Path) -> str | None:
    for root in roots:
        path = root / relative
        if path.is_file():
            name = path.read_text(encoding="utf-8").strip()
            if name:
                return name
    return None


def _pick(folder: Path, named: str | None, kind: str) -> str:
    if named is not None:
        if "/" in named or named in (".", "..") or not (folder / named).is_dir():
            raise InvalidInput(f"{folder}: the active {kind} {named!r} has no directory here")
        return named
    present = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    if len(present) != 1:
        found = ", ".join(present) or "none"
        raise InvalidInput(
            f"{folder}: no active {kind} is set and there is not exactly one ({found}); "
            "pass --record DIR"
        )
    return present[0]


def _main_worktree(workspace: Path) -> list[Path]:
    """The main worktree's root when ``workspace`` is a linked git worktree."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    if done.returncode != 0:
        return []
    main = Path(done.stdout.strip()).parent
    return [main] if main.resolve() != workspace.resolve() else []


def refuse_out_of_order(record: Path) -> None:
    """Refuse a review upstream scheduled before the unit's code generation.

    Under ``Construction Iteration: unit-major`` upstream walks code-review unit by unit
    among the design stages (``upstream.intents``): its directive arrives while a design
    stage is current, before code generation wrote anything to review.
    """
    from aidlc_review.upstream.intents import SET_STAGE_MAJOR, STATE_FILE, IntentState

    state = IntentState.read(record / STATE_FILE)
    current = state.field("Current Stage") if state is not None else None
    if state is None or not state.unit_major or current in (SOURCE_STAGE, STAGE):
        return
    raise InvalidInput(
        f"{state.path}: Construction Iteration is unit-major, so upstream's `next` scheduled "
        f"{STAGE} among the design stages (current stage: {current}), before code generation "
        f"wrote this unit's code: there is nothing to review yet, and a {STAGE}.md written "
        f"without a review is refused at approval. To go on, run `{SET_STAGE_MAJOR}` "
        f"({STAGE} then follows each unit's code generation), then "
        f"`{names.command_text(names.ORCHESTRATE_TOOL, 'next')}` and follow its directive. "
        "Upstream may then refuse to approve a design stage this unit went through out of order "
        "until its reviewer runs again for the unit: do as that refusal says"
    )


def upstream_harness(workspace: Path) -> Path | None:
    """``<workspace>/.claude`` when it is an installed AI-DLC harness."""
    harness = workspace / names.HARNESS_DIR
    return harness if (harness / "aidlc-common" / "stages").is_dir() else None
