"""Paths named on the command line are checked before any work starts.

A review that runs for minutes and then cannot write its ``--sarif`` file, or a
``--answer`` that is a FIFO nobody writes to, is a usage error up front, not exit 3
after the report is written, nor a read that blocks forever.

An output option may not name what the review reads or keeps (symlinks and ``..``
resolved): a claimed file, a source manifest, the findings document, the report, the
receipt, anything in the record dir or the engine's state, the review's state on this
machine, or git's own files. Writing there would lose history or source, or change
what the review covers.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from aidlc_review.errors import InvalidInput, UsageError

if TYPE_CHECKING:
    from aidlc_review.review.inputs.paths import RecordPaths


def check_output_file(path: Path | None, option: str) -> None:
    """``path`` can be written: not a directory, under a writable directory."""
    if path is None:
        return
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a directory; name a file")
    folder = path.absolute().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent  # missing folders are created when the file is written
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: {folder} is not a directory")
    if path.exists() and not path.is_file():
        raise UsageError(f"{option} {path}: not a regular file")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{option} {path}: not writable")


def check_input_file(path: Path, option: str) -> None:
    """``path`` is a regular file (a FIFO or device would block or never end)."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot read it: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise UsageError(f"{option} {path}: must be a regular file")


class Kept(NamedTuple):
    """Something an output may not overwrite: a file, or (``tree``) everything under it."""

    path: Path  # resolved
    tree: bool
    what: str  # why not, after "--option FILE: "


def check_not_kept(outputs: dict[str, Path | None], kept: list[Kept]) -> None:
    """Each named output (``{"--sarif": path}``) overwrites nothing in ``kept``; the first
    entry it hits (they go from the most particular) is named."""
    for option, path in outputs.items():
        if path is None:
            continue
        target = Path(os.path.realpath(path))
        same = _identity(target)
        for entry in kept:
            hit = target == entry.path or (entry.tree and target.is_relative_to(entry.path))
            if hit or (same is not None and same == _identity(entry.path)):
                raise UsageError(f"{option} {path}: {entry.what}")


def check_review_outputs(
    outputs: dict[str, Path | None],
    workspace: Path,
    unit: str | None,
    record: Path | None,
    manifest: Path | None,
) -> None:
    """The review's output options overwrite nothing the unit's review reads or keeps."""
    if all(path is None for path in outputs.values()):
        return
    from aidlc_review.review.inputs.paths import RecordPaths

    check_not_kept(outputs, review_kept(RecordPaths.resolve(workspace, unit, record, manifest)))


def check_summary_outputs(
    outputs: dict[str, Path | None], sources: list[Path], workspace: Path, record: Path | None
) -> None:
    """``review summary``'s outputs overwrite neither a document it reads nor anything the
    workspace's reviews keep."""
    if all(path is None for path in outputs.values()):
        return
    from aidlc_review.review.inputs.paths import FINDINGS_FILE, RecordPaths

    found = [path for folder in sources if folder.is_dir() for path in folder.rglob(FINDINGS_FILE)]
    paths = RecordPaths.resolve(workspace, None, record)
    check_not_kept(outputs, findings_kept(sorted(found)) + review_kept(paths, strict=False))


def review_kept(paths: RecordPaths, *, strict: bool = True) -> list[Kept]:
    """What a unit's review reads or keeps, the most particular first (``strict``: the
    unit's own source manifest must be readable)."""
    from aidlc_review.review.inputs.paths import ENGINE_DIR
    from aidlc_review.review.record.seal import state_dir

    engine, record = paths.record / ENGINE_DIR, paths.record
    only = "only the review writes there"
    return [
        _file(paths.findings, "the unit's findings document", "the review's history"),
        _file(paths.report, "the unit's review report", "what the gate shows"),
        _file(paths.receipt, "the unit's receipt", "what the review approved"),
        _file(paths.manifest, "the unit's source manifest", "what the unit claims"),
        *_claimed(paths, strict),
        Kept(engine, True, f"is inside the engine state ({paths.display(engine)}); {only}"),
        Kept(
            record,
            True,
            f"is inside the record dir ({paths.display(record)}); only the stages write there",
        ),
        Kept(_real(state_dir()), True, f"is inside the review's state on this machine; {only}"),
        Kept(_real(paths.workspace / ".git"), True, "is inside git's own files; git writes there"),
    ]


def _file(path: Path, noun: str, lost: str) -> Kept:
    return Kept(_real(path), False, f"is {noun}; writing there would lose {lost}")


def _claimed(paths: RecordPaths, strict: bool) -> list[Kept]:
    """Every path a source manifest in the record claims (the unit's own must be readable:
    the review refuses it otherwise; another unit's that is not is left to its review)."""
    from aidlc_review.review.inputs.source_manifest import read_source_manifest

    kept = []
    for manifest in paths.all_manifests():
        own = manifest == paths.manifest
        try:
            source = read_source_manifest(manifest, paths.workspace)
        except InvalidInput:
            if own and strict:
                raise
            continue
        owner = "the unit's source manifest" if own else paths.display(manifest)
        for index, claim in enumerate(source.claims):
            where = f"{owner} ($.writes[{index}])"
            target = _real(paths.workspace / claim.relative)
            if claim.is_dir:
                why = f"is inside {claim.path!r}, claimed by {where}; writing there adds source"
                kept.append(Kept(target, True, why))
            else:
                kept.append(_file(target, f"claimed by {where}", "the source under review"))
    return kept


def findings_kept(found: list[Path]) -> list[Kept]:
    """``review summary``'s inputs: each findings document it reads (and the report and
    receipt beside it), named as found."""
    from aidlc_review.review.inputs.paths import RECEIPT_FILE, REPORT_FILE

    kept = []
    for path in found:
        kept += [
            _file(path, f"a findings document the summary reads ({path})", "a unit's history"),
            _file(path.parent / REPORT_FILE, f"the report beside {path}", "what its gate shows"),
            _file(path.parent / RECEIPT_FILE, f"the receipt beside {path}", "what it approved"),
        ]
    return kept


@contextmanager
def writing(option: str, path: Path | None) -> Iterator[None]:
    """A write the checks could not foresee (a full disk, ``/dev/full``) is a usage error
    naming the option, not an internal one."""
    try:
        yield
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write: {exc.strerror or exc}") from None


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _identity(path: Path) -> tuple[int, int] | None:
    """The file itself (a hard link to a kept file is that file), when it exists."""
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_dev, found.st_ino) if stat.S_ISREG(found.st_mode) else None
