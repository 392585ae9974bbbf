"""A gated ``feature`` walk through upstream's own engine, driven only by ``next``/``report``,
with code-review run by ``aidlc-review review run --unit U`` (no ``--record``, no
``--harness``): the active intent's record and the installed harness are found.

Every walk here is the same from the intent's birth up to its first code-generation
directive (no stage before it is taken over), so that part is walked once per test run
(``at_code_generation``) and each test goes on from its own copy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.upstream.conductor import Conductor, Directive, WalkStopped
from tests.upstream.engine import UpstreamProject, build_once

from aidlc_review.cli.main import main

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)

UNITS = ["u1-greet", "u2-farewell"]
CLEAN = 'def greet(name: str) -> str:\n    return f"hello {name}"\n'
UNUSED_IMPORT = 'import os\n\n\ndef farewell() -> str:\n    return "bye"\n'


def _project_settings(project) -> None:
    (project.root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    project.git("add", "-A")
    project.git("commit", "-q", "-m", "the code-review plugin and the project's ruff settings")


@dataclass(frozen=True)
class Walked:
    """A project walked to a directive (not yet run), and what the walk saw on the way."""

    project: UpstreamProject
    directive: Directive
    seen: list[tuple[str, str | None, Any]]


@pytest.fixture(scope="session")
def at_code_generation(installed_once, shared_tmp) -> Walked:
    """The installed project with the project's settings committed and a ``feature`` intent
    born, walked until upstream's first code-generation directive (not yet run)."""

    def walk(where: Path) -> None:
        project = installed_once.copy_to(where / "project")
        _project_settings(project)
        conductor = Conductor(project, UNITS)
        conductor.birth()
        directive = conductor.walk_until("code-generation")
        walked = {"directive": directive, "seen": conductor.seen}
        (where / "walked.json").write_text(json.dumps(walked))

    where = build_once(shared_tmp / "upstream-at-code-generation", walk)
    walked = json.loads((where / "walked.json").read_text())
    seen = [tuple(s) for s in walked["seen"]]
    return Walked(UpstreamProject(where / "project"), walked["directive"], seen)


def _resumed(at_code_generation: Walked, tmp_path: Path, sources: dict[str, str]) -> Conductor:
    """A copy of the walk at code-generation, its conductor going on with these sources: it
    runs the engine's next directive there, the first unit's code-generation the walk
    stopped at."""
    project = at_code_generation.project.copy_to(tmp_path / "project")
    conductor = _conductor(project, sources)
    conductor.seen = list(at_code_generation.seen)
    directive = project.next()
    assert directive == at_code_generation.directive
    conductor.follow(directive)
    return conductor


def _conductor(project, sources: dict[str, str]) -> Conductor:
    conductor = Conductor(project, UNITS)

    def generate(directive) -> None:
        conductor.write_artifacts(directive)
        conductor.record_review(directive, "READY")
        unit = directive["unit"]
        path = f"src/{unit.replace('-', '_')}.py"
        (project.root / "src").mkdir(exist_ok=True)
        (project.root / path).write_text(sources[unit])
        record = project.root / Path(directive["produces"][0]).parent
        manifest = {
            "stage": "code-generation",
            "unit": unit,
            "version": 1,
            "writes": [{"path": path}],
        }
        (record / "source-manifest.json").write_text(json.dumps(manifest))

    def review(directive) -> None:
        ran = subprocess.run(
            [
                sys.executable,
                "-m",
                "aidlc_review",
                "review",
                "run",
                "--workspace",
                str(project.root),
                "--unit",
                directive["unit"],
            ],
            capture_output=True,
            text=True,
            env={**os.environ, **project.env},
        )
        conductor.review_exits.append(ran.returncode)
        assert ran.returncode in (0, 1), ran.stderr
        for produced in directive["produces"]:
            assert (project.root / produced).is_file(), f"upstream expects {produced}"

    conductor.on_stage = {"code-generation": generate, "code-review": review}
    conductor.review_exits = []
    return conductor


def test_a_gated_feature_walk_reviews_each_unit_and_reaches_build_and_test(
    at_code_generation, tmp_path, on_path
):
    conductor = _resumed(at_code_generation, tmp_path, {u: CLEAN for u in UNITS})
    installed = conductor.project

    reached = conductor.walk_until("build-and-test")

    assert reached["stage"] == "build-and-test"
    assert conductor.review_exits == [0, 0, 0]  # the last again at the gate: unchanged, READY
    gates = [(s, u, g) for s, u, g in conductor.seen if s == "code-review"]
    assert gates == [
        ("code-review", "u1-greet", False),
        ("code-review", "u2-farewell", False),
        ("code-review", "u2-farewell", True),
    ]
    record = next(installed.root.glob("aidlc/spaces/default/intents/*/"))
    for unit in UNITS:
        stage_dir = record / "construction" / unit / "code-review"
        findings = json.loads((stage_dir / "code-review-findings.json").read_text())
        assert findings["verdict"] == "READY"
        receipt = stage_dir / "code-review-receipt.json"
        assert receipt.is_file()
        ignored = subprocess.run(["git", "check-ignore", "-q", str(receipt)], cwd=installed.root)
        assert ignored.returncode == 1, "the receipt must reach teammates: not git-ignored"


def test_upstream_refuses_to_approve_placeholder_reviews(at_code_generation, tmp_path, on_path):
    conductor = _resumed(at_code_generation, tmp_path, {u: CLEAN for u in UNITS})

    def placeholder(directive) -> None:
        conductor.write_artifacts(directive)  # a code-review.md nobody reviewed

    conductor.on_stage["code-review"] = placeholder

    with pytest.raises(WalkStopped, match="code-review"):
        conductor.walk_until("build-and-test")


def test_a_not_ready_unit_keeps_code_review_from_approval(
    at_code_generation, tmp_path, on_path, capsys
):
    sources = {"u1-greet": CLEAN, "u2-farewell": UNUSED_IMPORT}
    conductor = _resumed(at_code_generation, tmp_path, sources)
    installed = conductor.project

    with pytest.raises(WalkStopped, match="u2-farewell"):
        conductor.walk_until("build-and-test")

    assert conductor.review_exits == [0, 1, 1]
    capsys.readouterr()
    gate = [
        "review",
        "gate",
        "--workspace",
        str(installed.root),
        "--unit",
        "u2-farewell",
        "--approve",
    ]
    assert main(gate) == 1
