"""Where a harness keeps its definition files.

Two shapes are read: an installed AI-DLC harness (``aidlc-common/stages/``)
and this project's own root (``stages/``). Everything else is shared:
``scopes/aidlc-<name>.md``, ``agents/<slug>.md``, ``sensors/aidlc-<id>.md``,
``knowledge/<agent>/``, and compiled output in ``tools/data/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from aidlc_review.errors import InvalidInput

PROJECT_ROOT = Path(__file__).resolve().parents[3]
PACKAGED = "_plugin"


def in_checkout() -> bool:
    """True when this package runs from this repository's source tree (editable install)."""
    return (PROJECT_ROOT / "pyproject.toml").is_file() and (PROJECT_ROOT / "stages").is_dir()


def plugin_root() -> Path:
    """Where the plugin's shipped definitions are: this checkout's root when running from
    source, else the installed package's ``_plugin/`` (the wheel carries them, see setup.py).
    importlib.resources is imported only then: ``compile --check``'s fast path avoids it."""
    if in_checkout():
        return PROJECT_ROOT.resolve()
    from importlib.resources import files

    packaged = files("aidlc_review").joinpath(PACKAGED)
    if not packaged.is_dir():
        raise InvalidInput(
            f"{packaged}: this aidlc-review carries no plugin definitions "
            "(built without its build hook?); reinstall it from a wheel built by `python -m build`"
        )
    return Path(str(packaged)).resolve()


class HarnessLayout:
    """A harness directory and where its stages live.

    A plain class, not a dataclass: ``compile --check``'s fast path imports this
    module, and dataclasses (with inspect and ast behind it) would cost it ~5 ms.
    """

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
        base = (root or plugin_root()).resolve()
        if not base.is_dir():
            raise InvalidInput(f"{base}: harness directory not found")
        for candidate in (base / "aidlc-common" / "stages", base / "stages"):
            if candidate.is_dir():
                return cls(base, candidate)
        raise InvalidInput(
            f"{base}: not an AI-DLC harness (no aidlc-common/stages/ or stages/ folder)"
        )

    @property
    def installed(self) -> bool:
        return self.stages_dir.parent.name == "aidlc-common"

    def display(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _files(self, folder: Path, pattern: str) -> Iterator[tuple[Path, str]]:
        if folder.is_dir():
            for path in sorted(folder.glob(pattern)):
                if path.is_file():
                    yield path, self.display(path)

    def stage_files(self) -> Iterator[tuple[Path, str]]:
        return self._files(self.stages_dir, "*/*.md")

    def scope_files(self) -> Iterator[tuple[Path, str]]:
        return self._files(self.root / "scopes", "aidlc-*.md")

    def agent_files(self) -> Iterator[tuple[Path, str]]:
        return self._files(self.root / "agents", "*.md")

    def sensor_files(self) -> Iterator[tuple[Path, str]]:
        return self._files(self.root / "sensors", "aidlc-*.md")

    def input_files(self) -> list[Path]:
        """Every file a compile reads (for the up-to-date stamp)."""
        groups = (self.stage_files(), self.scope_files(), self.agent_files(), self.sensor_files())
        return [path for group in groups for path, _ in group]

    @property
    def data_dir(self) -> Path:
        return self.root / "tools" / "data"
