"""Run upstream's own generators in the project, the way its compose hook does.

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
        return (self.project / self.harness_dir / "tools" / "aidlc-graph.ts").is_file()

    def tool(self, name: str) -> str:
        return f"{self.harness_dir}/tools/{name}"

    def commands(self) -> list[list[str]]:
        return [
            ["bun", self.tool("aidlc-graph.ts"), "compile"],
            ["bun", self.tool("aidlc-utility.ts"), "stage-table"],
            ["bun", self.tool("aidlc-utility.ts"), "scope-table"],
            ["bun", self.tool("aidlc-runner-gen.ts"), "write"],
        ]

    def doctor_failures(self, bun: str) -> list[str]:
        """The checks upstream's doctor fails in the project now, one line each as it
        prints them (``✗  name: detail``); its own failure to run is raised."""
        argv = ["bun", self.tool("aidlc.ts"), "doctor"]
        done = self._call(argv, bun)
        failed = [line[1:].strip() for line in done.stdout.splitlines() if line.startswith("✗")]
        if done.returncode not in (0, 1) or (done.returncode == 1 and not failed):
            shown = " ".join(argv)
            raise RegenerationFailed(
                f"{shown} exited {done.returncode}: {(done.stderr or done.stdout).strip()}"
            )
        return failed

    def _call(self, argv: list[str], bun: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [bun, *argv[1:]],
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env={
                **os.environ,
                "PATH": f"{Path(bun).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            },
        )

    def run(self, argv: list[str], bun: str) -> str:
        done = self._call(argv, bun)
        if done.returncode != 0:
            shown = " ".join(argv)
            raise RegenerationFailed(
                f"{shown} exited {done.returncode}: {(done.stderr or done.stdout).strip()}"
            )
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


def find_bun() -> str | None:
    """``$AIDLC_BUN``, else ``bun`` on PATH."""
    chosen = os.environ.get("AIDLC_BUN")
    if chosen:
        return chosen if Path(chosen).is_file() else None
    return shutil.which("bun")
