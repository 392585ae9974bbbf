"""Install, uninstall and scope edits as one transaction that upstream's own tools judge.

Every byte under the harness is kept in memory first (upstream's generators write only
there: the compiled graph, the SKILL.md tables, the runner skills). Then the plan is
written, upstream's generators rebuild what they derive, and upstream's doctor runs. If a
generator fails, or the doctor fails a check it did not fail before, every file goes
back to the bytes it had (added ones removed, removed ones restored) and the refusal
quotes upstream. Checks the doctor already failed before are the project's own.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.errors import EXIT_FAILED, AidlcError
from aidlc_review.fsio import write_atomic
from aidlc_review.install.plan import InstallPlan, apply_changes
from aidlc_review.upstream.tools import Engine, RegenerationFailed


class EngineObjected(AidlcError):
    """Upstream's tools objected to the written result; the harness is restored."""

    exit_code = EXIT_FAILED


@dataclass(frozen=True)
class Snapshot:
    """Every file, symlink and folder under ``root``: bytes and modes."""

    root: Path
    files: dict[str, tuple[bytes, int]]
    links: dict[str, str]
    dirs: dict[str, int]

    @classmethod
    def take(cls, root: Path) -> Snapshot:
        files: dict[str, tuple[bytes, int]] = {}
        links: dict[str, str] = {}
        dirs: dict[str, int] = {}
        for rel, path in _walk(root):
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                links[rel] = os.readlink(path)
            elif stat.S_ISDIR(info.st_mode):
                dirs[rel] = stat.S_IMODE(info.st_mode)
            else:
                files[rel] = (path.read_bytes(), stat.S_IMODE(info.st_mode))
        return cls(root, files, links, dirs)

    def restore(self) -> None:
        """Put every path back as it was: what was added goes, what changed or went
        returns with its bytes and mode."""
        for rel, path in sorted(_walk(self.root), reverse=True):  # children before parents
            kind = "dir" if path.is_dir() and not path.is_symlink() else "file"
            if kind == "dir" and rel not in self.dirs:
                _remove_tree(path)
            elif kind == "file" and rel not in self.files and rel not in self.links:
                path.unlink()
        for rel, mode in sorted(self.dirs.items()):
            (self.root / rel).mkdir(exist_ok=True)
            (self.root / rel).chmod(mode)
        for rel, (data, mode) in self.files.items():
            path = self.root / rel
            if path.is_symlink() or not path.is_file() or path.read_bytes() != data:
                path.unlink(missing_ok=True)
                write_atomic(path, data)
            path.chmod(mode)
        for rel, target in self.links.items():
            path = self.root / rel
            if not path.is_symlink() or os.readlink(path) != target:
                path.unlink(missing_ok=True)
                path.symlink_to(target)


def _walk(root: Path) -> list[tuple[str, Path]]:
    found = []
    for folder, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(folder) / name
            found.append((path.relative_to(root).as_posix(), path))
    return found


def _remove_tree(path: Path) -> None:
    for child in sorted(path.rglob("*"), reverse=True):
        if child.is_dir() and not child.is_symlink():
            child.rmdir()
        else:
            child.unlink()
    path.rmdir()


def commit_checked(plan: InstallPlan, bun: str) -> None:
    """Write ``plan``, regenerate with upstream's tools and let its doctor judge; on any
    objection (or any failure on the way) restore every byte and raise."""
    engine = Engine.of(plan.root)
    before = set(engine.doctor_failures(bun))
    snapshot = Snapshot.take(plan.root)
    try:
        apply_changes(plan)
        engine.regenerate(bun)
        objections = [line for line in engine.doctor_failures(bun) if line not in before]
    except RegenerationFailed as exc:
        objections = [str(exc)]
    except BaseException:
        snapshot.restore()
        raise
    if objections:
        snapshot.restore()
        raise EngineObjected(
            f"{plan.root}: upstream's engine objected, so every file is back as it was "
            "(nothing changed):\n" + "\n".join(f"  {line}" for line in objections)
        )
