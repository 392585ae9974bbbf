"""Seals: state that decides approval is authenticated, so an agent cannot rewrite it.

The agents this review polices can write the whole workspace, the record and the
engine's state included. The baseline (what "unclaimed change" is measured against)
and the receipt (what a gate approves) are therefore sealed with an HMAC-SHA256 whose
key lives outside the workspace, under ``$XDG_STATE_HOME/aidlc-review/`` (default
``~/.local/state``), is created on first use with mode 0600 and is never put in an
agent's environment. The seal sits in the unit's machine-local engine directory, so a
receipt committed beside the findings stays byte-deterministic. A file whose seal is
missing or does not match blocks, naming the file.
"""

from __future__ import annotations

import hashlib
import hmac
import shutil
from pathlib import Path
from typing import NoReturn

from aidlc_review.errors import EXIT_FAILED, AidlcError, InvalidInput
from aidlc_review.fsio import write_atomic
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.state_key import KEY_FILE, machine_key, state_dir

__all__ = ["KEY_FILE", "ForgedState", "seal", "sign", "state_dir"]


class ForgedState(AidlcError):
    """Engine state an agent may have rewritten: a refusal (exit 1), never an approval."""

    exit_code = EXIT_FAILED


def seal(paths: RecordPaths, target: Path, data: bytes, previous: bytes | None = None) -> None:
    """Record the seal of ``data``, the bytes about to be written to ``target``.

    With ``previous`` (the bytes ``target`` holds now) both are accepted until
    ``settle`` is called after the write, so a kill between the two writes loses nothing.
    """
    macs = [_mac(paths, target, data)]
    if previous is not None:
        macs.append(_mac(paths, target, previous))
    marker = _marker(paths, target)
    marker.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    marker.touch()  # before the seal: a kill between the two still requires the seal
    write_atomic(_seal_path(paths, target), "\n".join(macs) + "\n")


def was_sealed(paths: RecordPaths, target: Path) -> bool:
    """True once this machine sealed ``target``: a marker kept beside the key, outside the
    workspace, so deleting the seal (which lives in the workspace) never turns a sealed
    file into one "reviewed elsewhere" that needs no seal."""
    return _marker(paths, target).is_file()


def _marker(paths: RecordPaths, target: Path) -> Path:
    what = hashlib.sha256(paths.display(target).encode()).hexdigest()
    return _markers(paths.workspace) / what


def _markers(workspace: Path) -> Path:
    where = hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()
    return state_dir() / "sealed" / where


def forget_workspace(workspace: Path) -> None:
    """This machine forgets what it sealed in ``workspace``: called by whoever removes the
    workspace itself (Bolt, removing a worktree), so a new one made at the same path holds
    files "from elsewhere" (proven or set aside), not files whose seals went missing."""
    shutil.rmtree(_markers(workspace), ignore_errors=True)


def settle(paths: RecordPaths, target: Path, data: bytes) -> None:
    """After ``target`` was written with ``data``: only ``data`` is accepted from now on."""
    seal(paths, target, data)


def unseal(paths: RecordPaths, target: Path) -> None:
    _seal_path(paths, target).unlink(missing_ok=True)


def check_seal(paths: RecordPaths, target: Path, data: bytes) -> None:
    """Raise ``ForgedState`` unless ``data`` is what this engine last sealed for ``target``."""
    if not is_sealed(paths, target, data):
        _refuse(paths, target)


def is_sealed(paths: RecordPaths, target: Path, data: bytes) -> bool:
    """True when this machine's engine sealed ``data`` for ``target`` in this workspace.

    ``ForgedState`` when this machine sealed ``target`` here once and the bytes or the seal
    no longer match (deleting or replacing a seal never turns a file this engine wrote
    into one "from elsewhere"); False when it never did: a file written elsewhere (a
    teammate's, CI's, a copied or merged workspace), which proves nothing by itself.
    """
    try:
        recorded = _seal_path(paths, target).read_text(encoding="ascii").split()
    except FileNotFoundError:
        recorded = []
    except (OSError, UnicodeDecodeError):
        recorded = []
    mac = _mac(paths, target, data)
    if any(hmac.compare_digest(line, mac) for line in recorded):
        return True
    if was_sealed(paths, target):
        _refuse(paths, target)
    return False


def _refuse(paths: RecordPaths, target: Path) -> NoReturn:
    shown = paths.display(target)
    raise ForgedState(
        f"{shown}: its seal does not match: it was not written by aidlc-review on this "
        "machine, or an agent rewrote it; it cannot be trusted and nothing is approved. "
        f"Delete {shown} and run `aidlc-review review run` again"
    )


def _seal_path(paths: RecordPaths, target: Path) -> Path:
    return paths.engine / "seals" / f"{target.name}.hmac"


def _mac(paths: RecordPaths, target: Path, data: bytes) -> str:
    # bound to the workspace too: seals copied from a scratch copy the agent reviewed on
    # this machine (same key, same relative path) do not vouch for a planted document
    where = f"{paths.workspace.resolve()}\0{paths.display(target)}".encode()
    message = b"aidlc-review seal v2\0" + where + b"\0" + data
    return hmac.new(_key(paths.workspace), message, hashlib.sha256).hexdigest()


def sign(workspace: Path, label: str, data: bytes) -> str:
    """The seal of ``data`` kept by the caller itself (Bolt's run state): an HMAC under
    this machine's key, bound to ``label`` (what the bytes are)."""
    message = b"aidlc-review seal v1\0" + label.encode() + b"\0" + data
    return hmac.new(_key(workspace.resolve()), message, hashlib.sha256).hexdigest()


def _key(workspace: Path) -> bytes:
    refuse_key_inside(workspace)
    return machine_key()


def refuse_key_inside(workspace: Path) -> None:
    """``InvalidInput`` when the state key would lie inside the workspace the agents write
    (a key they can read seals nothing): asked before any seal or sealed answer is trusted."""
    folder = state_dir()
    if folder.resolve().is_relative_to(workspace):
        raise InvalidInput(
            f"{folder}: the review's state key must live outside the workspace the agents "
            "write; set XDG_STATE_HOME to a directory outside it"
        )
