"""Diffs for the reviewer brief: the unit against its base, and what a repair changed.

Only claimed paths are diffed. Both sides are text as ``kept_source`` shows it (secrets
redacted), written by one unified-diff writer: the base side comes from git (one
``git cat-file --batch`` for every claimed path, argv, no shell), the current and the
previous pass's side from the kept snapshots, so the diff shows the bytes that were
frozen. A file the base lacks is a new-file diff. The brief's diffs share one byte
budget; what did not fit is said ("diff truncated at N bytes; M file(s) omitted: ...").
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.gitdoor import git
from aidlc_review.review.source.kept_source import KeptText, as_text

DEFAULT_DIFF_BYTES = 200_000
CONTEXT_LINES = 3
MAX_NAMED = 50
_NO_NEWLINE = "\\ No newline at end of file\n"


@dataclass(frozen=True)
class FileDiff:
    path: str
    text: str


@dataclass(frozen=True)
class ShownDiff:
    """One diff as the brief prints it, cut to its share of the budget."""

    text: str
    files: int
    omitted: tuple[str, ...] = ()
    cap: int | None = None  # set when something did not fit

    @property
    def note(self) -> str | None:
        if self.cap is None:
            return None
        note = f"diff truncated at {self.cap} bytes; {len(self.omitted)} file(s) omitted"
        if self.omitted:
            named = ", ".join(self.omitted[:MAX_NAMED])
            more = len(self.omitted) - MAX_NAMED
            note += f": {named}" + (f" and {more} more" if more > 0 else "")
        return note


def file_diff(path: str, before: KeptText | None, after: KeptText | None) -> FileDiff | None:
    """The unified diff of one path (``None`` side: the file is absent); None when equal."""
    if before is not None and after is not None and before.digest == after.digest:
        return None
    head = f"diff --git a/{path} b/{path}\n"
    head += "new file\n" if before is None else "deleted file\n" if after is None else ""
    untext = next((s.reason for s in (before, after) if s is not None and s.text is None), None)
    if untext is not None:
        return FileDiff(path, head + f"(no text diff: {untext})\n")
    old = _lines(before)
    new = _lines(after)
    body = difflib.unified_diff(
        old,
        new,
        "/dev/null" if before is None else f"a/{path}",
        "/dev/null" if after is None else f"b/{path}",
        n=CONTEXT_LINES,
    )
    text = "".join(line if line.endswith("\n") else line + "\n" + _NO_NEWLINE for line in body)
    return FileDiff(path, head + text)


def diff_snapshots(before: Mapping[str, KeptText], after: Mapping[str, KeptText]) -> list[FileDiff]:
    """What changed between two kept snapshots, path by path."""
    found = [file_diff(p, before.get(p), after.get(p)) for p in sorted(set(before) | set(after))]
    return [d for d in found if d is not None]


def diff_against(workspace: Path, base: str, current: Mapping[str, KeptText]) -> list[FileDiff]:
    """The claimed files (``current``) against the base commit; [] for none changed.

    Raises ``OSError`` when git cannot read the base."""
    blobs = _base_blobs(workspace, base, sorted(current))
    found = [file_diff(p, blobs.get(p), current[p]) for p in sorted(current)]
    return [d for d in found if d is not None]


def fit(sections: list[list[FileDiff]], cap: int) -> list[ShownDiff]:
    """Each section cut to what is left of the shared ``cap`` (bytes), in order."""
    left = cap
    shown = []
    for diffs in sections:
        parts: list[str] = []
        omitted: list[str] = []
        cut = False
        for diff in diffs:
            size = len(diff.text.encode())
            if left <= 0:
                omitted.append(diff.path)
            elif size <= left:
                parts.append(diff.text)
                left -= size
            else:
                parts.append(_cut(diff.text, left))
                left, cut = 0, True
        hit = cut or bool(omitted)
        shown.append(ShownDiff("".join(parts), len(diffs), tuple(omitted), cap if hit else None))
    return shown


def diff_base(workspace: Path, recorded: str | None, configured: bool) -> str | None:
    """The commit the unit is diffed against: the recorded base (``review.source.baseline``) when a
    revision was configured, else its merge-base with the default branch when there is one."""
    if recorded is None or configured:
        return recorded
    branch = _default_branch(workspace)
    if branch is None:
        return recorded
    found = git(workspace, "merge-base", recorded, branch)
    return found.decode().strip() if found else recorded


def _lines(side: KeptText | None) -> list[str]:
    return [] if side is None or side.text is None else side.text.splitlines(keepends=True)


def _cut(text: str, size: int) -> str:
    kept = text.encode()[:size].decode("utf-8", "ignore")
    kept = kept[: kept.rfind("\n") + 1]
    return kept + "... (truncated)\n"


def _default_branch(workspace: Path) -> str | None:
    remote = git(workspace, "symbolic-ref", "-q", "refs/remotes/origin/HEAD")
    if remote:
        return remote.decode().strip()
    for name in ("main", "master"):
        if git(workspace, "rev-parse", "--verify", "-q", f"refs/heads/{name}"):
            return f"refs/heads/{name}"
    return None


def _base_blobs(workspace: Path, base: str, paths: list[str]) -> dict[str, KeptText]:
    """``{path: text}`` for each path the base commit holds as a file. A base git does not
    know (gone after a rebase and ``git gc``) is an error, not a base without the files:
    ``cat-file --batch`` would answer "missing" for each and the unit would read as new."""
    if git(workspace, "rev-parse", "--verify", "-q", f"{base}^{{commit}}") is None:
        raise OSError(f"git cannot read the base {base[:12]}")
    request = "".join(f"{base}:{path}\n" for path in paths).encode()
    out = git(workspace, "cat-file", "--batch", stdin=request)
    if out is None:
        raise OSError(f"git cannot read the base {base[:12]}")
    found: dict[str, KeptText] = {}
    at = 0
    try:
        for path in paths:
            end = out.index(b"\n", at)
            header = out[at:end].split()
            at = end + 1
            if header[-1] == b"missing":
                continue
            size = int(header[2])
            if header[1] == b"blob":
                found[path] = as_text(out[at : at + size])
            at += size + 1
    except (ValueError, IndexError):
        raise OSError(f"git's answer for the base {base[:12]} could not be read") from None
    return found
