"""Run upstream's tools in the project: the one place the plugin starts the engine.

``Engine.argv`` builds a tool's argv (``bun <harness>/tools/<tool> ...``), ``find_bun`` finds
bun, and ``Engine.call`` runs it without a shell, in the project, with a timeout; a run that
cannot start or does not finish comes back as a failed run whose output says why, so every
caller reports it the same way (``failure``).

Its own generators are run the way its compose hook does.

After the stage sources change, upstream derives four things from them: the
compiled graph and scope grid (``aidlc-graph.ts compile``), the stage and scope
tables in the orchestrator's ``SKILL.md`` (``aidlc-utility.ts stage-table`` /
``scope-table`` print the region, spliced between its markers), and the stage
runner skills (``aidlc-runner-gen.ts write``). These are upstream's to produce, so
install and uninstall run upstream's tools rather than imitating them; without
bun they print the exact commands instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.fsio import write_atomic
from aidlc_review.upstream import names

TABLES = {
    "stage-table": (
        "<!-- BEGIN: compiled stage graph via `bun aidlc-utility.ts stage-table` "
        "- do NOT hand-edit -->",
        "<!-- END: compiled stage graph -->",
    ),
    "scope-table": (
        "<!-- BEGIN: compiled scope grid via `bun aidlc-utility.ts scope-table` "
        "- do NOT hand-edit -->",
        "<!-- END: compiled scope grid -->",
    ),
}
TIMEOUT = 300
NOT_STARTED = 127  # the exit a shell gives a program it cannot run
TIMED_OUT = 124  # the exit ``timeout(1)`` gives a program it stopped


class RegenerationFailed(Exception):
    """An upstream generator exited non-zero: the message carries its output."""


@dataclass(frozen=True)
class Engine:
    """Upstream's tools in one project: ``<project>/<harness_dir>/tools/*.ts``."""

    project: Path
    harness_dir: str

    @classmethod
    def of(cls, harness: Path) -> Engine:
        return cls(harness.parent, harness.name)

    @property
    def present(self) -> bool:
        return self.has(names.GRAPH_TOOL)

    def has(self, name: str) -> bool:
        """Whether the project holds upstream's tool ``name``."""
        return (self.project / self.tool(name)).is_file()

    def tool(self, name: str) -> str:
        return names.tool_path(name, self.harness_dir)

    def argv(self, name: str, *args: str) -> list[str]:
        """The argv that runs upstream's tool ``name`` with ``args`` (bun as its runner)."""
        return names.tool_argv(name, *args, harness_dir=self.harness_dir)

    def commands(self) -> list[list[str]]:
        return [
            self.argv(names.GRAPH_TOOL, "compile"),
            self.argv(names.UTILITY_TOOL, "stage-table"),
            self.argv(names.UTILITY_TOOL, "scope-table"),
            self.argv(names.RUNNER_GEN_TOOL, "write"),
        ]

    def doctor_failures(self, bun: str) -> list[str]:
        """The checks upstream's doctor fails in the project now, one line each as it
        prints them (``✗  name: detail``); its own failure to run is raised."""
        argv = self.argv(names.DISPATCHER_TOOL, "doctor")
        done = self.call(argv, bun)
        failed = [line[1:].strip() for line in done.stdout.splitlines() if line.startswith("✗")]
        if done.returncode not in (0, 1) or (done.returncode == 1 and not failed):
            shown = " ".join(argv)
            raise RegenerationFailed(
                f"{shown} exited {done.returncode}: {(done.stderr or done.stdout).strip()}"
            )
        return failed

    def call(
        self, argv: list[str], bun: str, timeout: float = TIMEOUT
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` (from ``argv``) with the bun at ``bun``, in the project, no shell.
        Never raises for the run itself: one that cannot start exits ``NOT_STARTED``, one
        past ``timeout`` seconds ``TIMED_OUT``, with the reason as its stderr."""
        try:
            return subprocess.run(
                [bun, *argv[1:]],
                cwd=self.project,
                capture_output=True,
                text=True,
                timeout=timeout,
                env={
                    **os.environ,
                    "PATH": f"{Path(bun).parent}{os.pathsep}{os.environ.get('PATH', '')}",
                },
            )
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(argv, TIMED_OUT, "", f"timed out after {timeout}s")
        except OSError as exc:
            return subprocess.CompletedProcess(argv, NOT_STARTED, "", f"could not start: {exc}")

    def run(self, argv: list[str], bun: str) -> str:
        done = self.call(argv, bun)
        if done.returncode != 0:
            raise RegenerationFailed(failure(argv, done))
        return done.stdout

    def regenerate(self, bun: str) -> None:
        """Every derived file, rebuilt by upstream's own tools."""
        for argv in self.commands():
            out = self.run(argv, bun)
            if argv[-1] in TABLES:
                self._splice_table(argv[-1], out)

    def _splice_table(self, verb: str, region: str) -> None:
        begin, end = TABLES[verb]
        skill = self.project / self.harness_dir / "skills" / "aidlc" / "SKILL.md"
        if not skill.is_file():
            return
        before = skill.read_text(encoding="utf-8")
        start = before.find(begin)
        stop = before.find(end, start)
        if start == -1 or stop == -1:
            raise RegenerationFailed(f"{skill}: no '{verb}' region between its markers")
        after = before[:start] + region.rstrip("\n") + before[stop + len(end) :]
        if after != before:
            write_atomic(skill, after)


def said(done: subprocess.CompletedProcess[str]) -> str:
    """What a failed run said: its stderr, else its stdout."""
    return (done.stderr or done.stdout).strip()


def failure(argv: list[str], done: subprocess.CompletedProcess[str]) -> str:
    """One line saying which tool run failed and what it printed."""
    return f"{' '.join(argv)} exited {done.returncode}: {said(done)}"


def find_bun() -> str | None:
    """``$AIDLC_BUN``, else ``bun`` on PATH."""
    chosen = os.environ.get("AIDLC_BUN")
    if chosen:
        return chosen if Path(chosen).is_file() else None
    return shutil.which(names.RUNNER)
