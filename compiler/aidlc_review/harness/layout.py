"""Where a harness keeps its definition files.

Two shapes are read: an installed AI-DLC harness (``aidlc-common/stages/``)
and this project's own root (``stages/``). Everything else is shared:
``scopes/aidlc-<name>.md``, ``agents/<slug>.md``, ``sensors/aidlc-<id>.md``,
``knowledge/<agent>/``, and compiled output in ``tools/data/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from aidlc_review.harness import listing
from aidlc_review.harness.listing import in_checkout

__all__ = ["PROJECT_ROOT", "HarnessLayout", "in_checkout", "plugin_root"]

PROJECT_ROOT = Path(listing.PROJECT_ROOT)


def plugin_root() -> Path:
    """Where the plugin's shipped definitions are (see ``listing.plugin_root``)."""
    return Path(listing.plugin_root())


class HarnessLayout:
    """A harness directory and where its stages live, as ``Path`` objects over
    ``harness.listing`` (which ``compile --check``'s fast path uses without this class)."""

    __slots__ = ("root", "stages_dir")

    def __init__(self, root: Path, stages_dir: Path):
        self.root = root
        self.stages_dir = stages_dir

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HarnessLayout) and (self.root, self.stages_dir) == (
            other.root,
            other.stages_dir,
        )

    def __hash__(self) -> int:
        return hash((self.root, self.stages_dir))

    def __repr__(self) -> str:
        return f"HarnessLayout({str(self.root)!r})"

    @classmethod
    def at(cls, root: Path | None) -> HarnessLayout:
        base, stages_dir = listing.locate(str(root) if root is not None else None)
        return cls(Path(base), Path(stages_dir))

    @property
    def installed(self) -> bool:
        return self.stages_dir.parent.name == "aidlc-common"

    def display(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _shown(self, paths: list[str]) -> Iterator[tuple[Path, str]]:
        for path in paths:
            yield Path(path), listing.display(str(self.root), path)

    def stage_files(self) -> Iterator[tuple[Path, str]]:
        return self._shown(listing.stage_files(str(self.stages_dir)))

    def scope_files(self) -> Iterator[tuple[Path, str]]:
        return self._shown(listing.scope_files(str(self.root)))

    def agent_files(self) -> Iterator[tuple[Path, str]]:
        return self._shown(listing.agent_files(str(self.root)))

    def sensor_files(self) -> Iterator[tuple[Path, str]]:
        return self._shown(listing.sensor_files(str(self.root)))

    def input_files(self) -> list[Path]:
        """Every file a compile reads (``listing.definition_files``, as ``Path`` objects)."""
        return [Path(p) for p in listing.definition_files(str(self.root), str(self.stages_dir))]

    @property
    def data_dir(self) -> Path:
        return self.root / "tools" / "data"
