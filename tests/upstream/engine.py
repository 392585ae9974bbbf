"""Upstream's own AI-DLC engine, run for real in a temporary project.

``UpstreamProject`` copies the engine export ``AIDLC_UPSTREAM`` names (a fresh upstream
project: ``.claude/`` and ``aidlc/``; ``tests/engine_export.py``, skipped without one) into a
directory, makes it a git repository, and runs upstream's TypeScript tools on it through
``../shared/bin/aidlc-upstream`` (bun is installed from the npm registry on first use; exit
127 if it cannot be, which fails the test). ``walk`` is a mechanical conductor: it follows
upstream's ``orchestrate next`` directives and reports through ``orchestrate report`` exactly
as DESIGN.md §8 describes, with a callback for the stages a test wants to run itself.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock
from tests import engine_export, shared_builds

from aidlc_review.upstream.features import EngineFeatures

RUNNER = engine_export.RUNNER
UNITS_FILE = "unit-of-work-dependency"
STEERING_PARTS = 50  # load-steering parts one directive may take before it is a stall
RESTART = "Run a fresh `next` to restart delivery from part 1"  # stale steering (2.6)
TOOLS = Path(sys.executable).parent  # aidlc-review, ruff, mypy of this environment


@functools.cache
def bun_dir() -> Path:
    """The folder of upstream's bun (installed on first use); fails loudly when it cannot be.

    Test workers share one install: the first installs it under a lock, the rest wait.
    Asked once per process: every engine call needs it."""
    home = Path(os.environ["AIDLC_BUN_HOME"])  # one install per machine (tests/conftest.py)
    home.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(home.parent / "aidlc-upstream-bun.lock")):
        done = subprocess.run([str(RUNNER), "--which-bun"], capture_output=True, text=True)
    assert done.returncode == 0, f"bun could not be installed for upstream's engine: {done.stderr}"
    return Path(done.stdout.strip()).parent


def build_once(where: Path, build: Callable[[Path], None]) -> Path:
    """``shared_builds.build_once`` with this environment's tools and bun on PATH."""
    return shared_builds.build_once(where, build, prepare=put_tools_on_path)


def put_tools_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """bun (for upstream's generators) and this environment's tools on PATH."""
    monkeypatch.setenv("PATH", f"{bun_dir()}{os.pathsep}{TOOLS}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("AIDLC_BUN", raising=False)


@dataclass
class Ran:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


@dataclass
class UpstreamProject:
    root: Path
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def fresh(cls, where: Path) -> UpstreamProject:
        project = cls(engine_export.copy(where))
        project.git("init", "-q", "-b", "main")
        project.git("add", "-A")
        project.git("commit", "-q", "-m", "a fresh upstream project")
        project.git("gc", "-q")  # one pack, not ~300 loose objects: copies are quicker
        return project

    def copy_to(self, where: Path) -> UpstreamProject:
        """This project, its git history included, at ``where``.

        Upstream's state records the project's root (``Project Root`` in an intent's
        ``aidlc-state.md``, written at birth): the copy records its own, as it would
        had the intent been born there."""
        shutil.copytree(self.root, where, symlinks=True)
        old, new = str(self.root).encode(), str(where).encode()
        for path in (where / "aidlc").rglob("*"):
            if path.is_file() and not path.is_symlink() and old in (data := path.read_bytes()):
                path.write_bytes(data.replace(old, new))
        return type(self)(where, dict(self.env))

    @property
    def harness(self) -> Path:
        return self.root / ".claude"

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    def tool(self, name: str, *args: str, stdin: str | None = None) -> Ran:
        env = {**os.environ, **self.env}
        env["PATH"] = f"{bun_dir()}{os.pathsep}{env.get('PATH', '')}"
        done = subprocess.run(
            [str(RUNNER), str(self.root), name, *args],
            capture_output=True,
            text=True,
            env=env,
            input=stdin,
            timeout=300,
        )
        assert done.returncode != 127, f"upstream's engine could not run: {done.stderr}"
        return Ran(done.returncode, done.stdout, done.stderr)

    def tool_path(self, script: Path, *args: str, stdin: str | None = None) -> Ran:
        """Run one of upstream's scripts by path (a hook) with its bun, in the project."""
        env = {**os.environ, **self.env}
        bun = bun_dir() / "bun"
        done = subprocess.run(
            [str(bun), str(script), *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            env=env,
            input=stdin,
            timeout=300,
        )
        return Ran(done.returncode, done.stdout, done.stderr)

    def ok(self, name: str, *args: str) -> Ran:
        ran = self.tool(name, *args)
        assert ran.code == 0, (
            f"{name} {' '.join(args)} exit {ran.code}:\n{ran.stdout}\n{ran.stderr}"
        )
        return ran

    def birth(self, scope: str = "feature", arguments: str = "x", label: str = "a b") -> Ran:
        """Start an intent of ``scope`` with the verb this engine names it by."""
        return self.ok(
            "utility", *EngineFeatures.read(self.harness).birth_args(scope, arguments, label)
        )

    def next(self) -> Any:
        """The engine's next directive, as SKILL.md has the conductor take it: a
        ``load-steering`` directive (2.6) is transport, continued with its token until the
        engine says something else; it is never reported."""
        directive = self.ok("orchestrate", "next").json()
        for _ in range(STEERING_PARTS):
            if directive.get("kind") == "error" and RESTART in directive.get("message", ""):
                directive = self.ok("orchestrate", "next").json()  # as the engine says
            if directive.get("kind") != "load-steering":
                return directive
            directive = self.ok("orchestrate", "continue", directive["continue_token"]).json()
        raise AssertionError(f"load-steering did not end in {STEERING_PARTS} parts")

    def run_hooks(self, event: str, tool: str, payload: dict[str, Any]) -> None:
        """Run the command hooks ``settings.json`` registers for ``event`` on ``tool`` as
        Claude Code would after the tool ran (``PostToolUse``, ``UserPromptSubmit``): in the
        project, ``CLAUDE_PROJECT_DIR`` set, the event's JSON on stdin; each must succeed."""
        env = {**os.environ, **self.env, "CLAUDE_PROJECT_DIR": str(self.root)}
        env["PATH"] = f"{bun_dir()}{os.pathsep}{TOOLS}{os.pathsep}{env.get('PATH', '')}"
        event_json = json.dumps({"hook_event_name": event, "cwd": str(self.root), **payload})
        for hook in registered_hooks(self, event, tool):
            done = subprocess.run(
                ["bash", "-c", hook["command"]],
                cwd=self.root,
                capture_output=True,
                text=True,
                env=env,
                input=event_json,
                timeout=hook.get("timeout", 60),
            )
            assert done.returncode == 0, f"{event} hook {hook['command']}: {done.stderr}"

    def written(self, path: Path) -> None:
        """What Claude Code's Write tool does after it wrote ``path``: its PostToolUse
        hooks run (upstream's audit logger records the write; its sensors fire)."""
        text = path.read_text(encoding="utf-8")
        tool_input = {"file_path": str(path), "content": text}
        response = {"filePath": str(path), "type": "create"}
        payload = {"tool_name": "Write", "tool_input": tool_input, "tool_response": response}
        self.run_hooks("PostToolUse", "Write", payload)

    def doctor_summary(self) -> str:
        lines = self.tool("aidlc", "doctor").stdout.strip().splitlines()
        return lines[-1] if lines else ""

    def status(self) -> str:
        return self.git("status", "--porcelain", "--untracked-files=all")


def registered_hooks(project: UpstreamProject, event: str, tool: str) -> list[dict[str, Any]]:
    """The command hooks ``settings.json`` registers for ``event`` on ``tool``, in order."""
    settings = json.loads((project.harness / "settings.json").read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = []
    for entry in settings.get("hooks", {}).get(event, []):
        matcher = entry.get("matcher", "")
        if matcher in ("", "*") or re.fullmatch(matcher, tool):
            found.extend(h for h in entry.get("hooks", []) if h.get("type") == "command")
    return found
