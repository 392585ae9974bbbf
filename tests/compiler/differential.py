"""Run this compiler and upstream's reference compiler on the same mutated harness.

The project is a copy of the engine export's ``.claude`` (``tests/engine_export.py``) *with*
its shipped ``tools/data/stage-graph.json`` and ``scope-grid.json`` (upstream pins every known
slug's number and name from them) and with the memory seed installed at
``aidlc/spaces/default/memory/`` (upstream lists in ``rules_in_context`` only the
memory files that exist; this compiler always lists them). One copy serves many
mutations: each mutation's files are restored byte for byte before the next.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from aidlc_review.cli.main import main
from tests import engine_export

# the engine's data, to choose mutation targets from at collection (the export's when given)
UPSTREAM = engine_export.data() / ".claude"
OUTPUTS = ("stage-graph.json", "scope-grid.json")
KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):")  # maxTurns: camelCase too
_yaml = YAML(typ="safe", pure=True)


@dataclass
class Frontmatter:
    """A stage file as (key, raw block) sections, so untouched keys keep their bytes."""

    sections: list[tuple[str, str]]
    body: str

    @classmethod
    def parse(cls, text: str) -> Frontmatter:
        head, _, body = text[4:].partition("\n---\n")
        sections: list[tuple[str, str]] = []
        for line in (head + "\n").splitlines(keepends=True):
            match = KEY_LINE.match(line)
            if match:
                sections.append((match.group(1), line))
            else:
                key, block = sections[-1]
                sections[-1] = (key, block + line)
        return cls(sections, body)

    def render(self) -> str:
        return "---\n" + "".join(block for _, block in self.sections) + "---\n" + self.body

    def keys(self) -> list[str]:
        return [key for key, _ in self.sections]

    def get(self, key: str, default: Any = None) -> Any:
        for name, block in self.sections:
            if name == key:
                return _yaml.load(block)[key]
        return default

    def set(self, key: str, value: Any) -> None:
        block = emit(key, value)
        for index, (name, _) in enumerate(self.sections):
            if name == key:
                self.sections[index] = (key, block)
                return
        self.sections.append((key, block))

    def drop(self, key: str) -> None:
        self.sections = [(name, block) for name, block in self.sections if name != key]


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def emit(key: str, value: Any) -> str:
    """A frontmatter block in the style upstream's hand-written parser reads."""
    if isinstance(value, dict) and key == "produces_kinds":
        rows = "".join(f"  {name}: [{', '.join(kinds)}]\n" for name, kinds in value.items())
        return f"{key}:\n{rows}"
    if isinstance(value, dict):
        rows = "".join(f"  {name}: {_scalar(v)}\n" for name, v in value.items())
        return f"{key}:\n{rows}"
    if isinstance(value, list) and not value:
        return f"{key}: []\n"
    if isinstance(value, list) and isinstance(value[0], dict):
        rows = ""
        for entry in value:
            first, *rest = entry.items()
            rows += f"  - {first[0]}: {_scalar(first[1])}\n"
            rows += "".join(f"    {name}: {_scalar(v)}\n" for name, v in rest)
        return f"{key}:\n{rows}"
    if isinstance(value, list):
        return f"{key}:\n" + "".join(f"  - {_scalar(item)}\n" for item in value)
    return f"{key}: {_scalar(value)}\n"


class Harness:
    """The mutable copy one mutation edits; ``restore`` undoes every edit."""

    def __init__(self, project: Path):
        self.project = project
        self.root = project / ".claude"
        self.stages_dir = self.root / "aidlc-common" / "stages"
        self._saved: dict[Path, bytes | None] = {}

    def _remember(self, path: Path) -> None:
        if path not in self._saved:
            self._saved[path] = path.read_bytes() if path.exists() else None

    def restore(self) -> None:
        for path, data in self._saved.items():
            if data is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(data)
        self._saved.clear()

    def stage_path(self, slug: str) -> Path:
        (path,) = self.stages_dir.glob(f"*/{slug}.md")
        return path

    def stage(self, slug: str) -> Frontmatter:
        return Frontmatter.parse(self.stage_path(slug).read_text())

    def save(self, slug: str, fm: Frontmatter, path: Path | None = None) -> None:
        self.write(path or self.stage_path(slug), fm.render())

    def edit(self, slug: str, change: Callable[[Frontmatter], None]) -> None:
        fm = self.stage(slug)
        change(fm)
        self.save(slug, fm)

    def write(self, path: Path, text: str) -> None:
        self._remember(path)
        path.write_text(text)

    def remove(self, path: Path) -> None:
        self._remember(path)
        path.unlink()

    def replace_in(self, path: Path, old: str, new: str) -> None:
        text = path.read_text()
        assert old in text, (path, old)
        self.write(path, text.replace(old, new, 1))

    def protect_outputs(self) -> None:
        """Upstream rewrites tools/data/: remember the pins so restore puts them back."""
        for name in OUTPUTS:
            self._remember(self.root / "tools" / "data" / name)


def make_project(tmp: Path) -> Harness:
    project = tmp / "project"
    shutil.copytree(engine_export.require() / ".claude", project / ".claude", symlinks=True)
    shutil.copytree(
        UPSTREAM / "tools" / "data" / "memory-seed", project / "aidlc/spaces/default/memory"
    )
    return Harness(project)


@dataclass
class Outcome:
    accepted: bool
    outputs: dict[str, bytes] = field(default_factory=dict)
    message: str = ""


def run_ours(harness: Harness, out: Path) -> Outcome:
    """Compile into ``out`` seeded with the pristine stage graph: like upstream, this
    compiler keeps the numbers of the stage-graph.json already in its output folder."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    shutil.copyfile(UPSTREAM / "tools" / "data" / "stage-graph.json", out / "stage-graph.json")
    argv = ["compile", "--harness", str(harness.root), "--display-root", ".claude"]
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = main([*argv, "--out", str(out)])
    assert code in (0, 2), f"our compiler exited {code}: {err.getvalue()}"
    if code:
        return Outcome(False, message=err.getvalue())
    return Outcome(True, {name: (out / name).read_bytes() for name in OUTPUTS})


def start_upstream(harness: Harness) -> subprocess.Popen[str]:
    """Start upstream's compile; it runs beside ours (it writes only tools/data/)."""
    harness.protect_outputs()
    return subprocess.Popen(
        [str(engine_export.RUNNER), str(harness.project), "graph", "compile"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def finish_upstream(harness: Harness, running: subprocess.Popen[str]) -> Outcome:
    _, stderr = running.communicate()
    assert running.returncode != 127, f"upstream's compiler is not available: {stderr}"
    if running.returncode:
        return Outcome(False, message=stderr.strip().splitlines()[-1])
    data = harness.root / "tools" / "data"
    return Outcome(True, {name: (data / name).read_bytes() for name in OUTPUTS})


def run_upstream(harness: Harness) -> Outcome:
    return finish_upstream(harness, start_upstream(harness))


def run_both(harness: Harness, out: Path) -> tuple[Outcome, Outcome]:
    running = start_upstream(harness)
    try:
        ours = run_ours(harness, out)
    finally:
        upstream = finish_upstream(harness, running)
    return ours, upstream
