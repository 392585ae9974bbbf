"""Agent adapters: how a reviewer or a repairer is reached.

``builtin`` needs no model (the reviewer that turns sensor results into the
verdict); ``command:CMD`` runs an external agent CLI without a shell from the
workspace, brief on stdin, killed with its whole process group after the
timeout; ``none`` (repairer only) means nobody repairs. ``claude`` and ``codex``
are presets: the documented headless command lines of those CLIs (``PRESETS``),
run like ``command:`` and recorded by preset name. Host-driven agents do not
pass through here: ``review start`` / ``review submit`` stand in for them.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.errors import InvalidInput
from aidlc_review.sensors.redact import scrub

MAX_STDERR_LINES = 200

BUILTIN = "builtin"
NONE = "none"
# Headless command lines, brief on stdin. Reviewers may read but not edit (Claude Code's
# -p mode denies edits without a permission mode; Codex's read-only sandbox); repairers
# may edit the workspace. Both CLIs print a JSON envelope that ``review.envelope`` reads.
PRESETS: dict[str, dict[str, tuple[str, ...]]] = {
    "--reviewer": {
        "claude": ("claude", "-p", "--output-format", "json"),
        "codex": ("codex", "exec", "--json", "--sandbox", "read-only", "-"),
    },
    "--repairer": {
        "claude": ("claude", "-p", "--output-format", "json", "--permission-mode", "acceptEdits"),
        "codex": ("codex", "exec", "--json", "--sandbox", "workspace-write", "-"),
    },
}


@dataclass(frozen=True)
class AgentSpec:
    kind: str  # builtin | none | command
    argv: tuple[str, ...] = ()
    text: str = ""

    def __str__(self) -> str:
        return self.text or self.kind


@dataclass(frozen=True)
class AgentRun:
    exit_code: int | None
    stdout: bytes
    timed_out: bool
    error: str | None = None  # the agent could not be started

    @property
    def failure(self) -> str | None:
        """Why the run does not count as done, in words safe to record (no agent output)."""
        if self.error:
            return self.error
        if self.timed_out:
            return "no answer before the agent timeout"
        if self.exit_code != 0:
            return f"agent exited with status {self.exit_code}"
        return None


def parse_agent(text: str, option: str, allowed: tuple[str, ...]) -> AgentSpec:
    if text in allowed:
        return AgentSpec(text, text=text)
    presets = PRESETS.get(option, {})
    if text in presets:
        return AgentSpec("command", presets[text], text)
    if text.startswith("command:"):
        try:
            argv = shlex.split(text[len("command:") :])
        except ValueError as exc:
            raise InvalidInput(f"{option} {text!r}: cannot split the command: {exc}") from None
        if not argv:
            raise InvalidInput(f"{option} {text!r}: the command is empty")
        return AgentSpec("command", tuple(argv), text)
    choices = " | ".join([*allowed, *presets, "command:CMD"])
    raise InvalidInput(f"{option} {text!r}: must be {choices}")


def run_command_agent(
    spec: AgentSpec,
    *,
    cwd: Path,
    brief: str,
    env: dict[str, str],
    timeout: float,
    relay: Callable[[str], None] | None = None,
) -> AgentRun:
    """Run one command agent to completion or its timeout; never raises for the agent's faults.

    Only stdout (the answer) is read; stderr is relayed as progress once the agent is
    done, secrets redacted (an agent may print what it read), to ``relay`` or stderr.
    """
    # the state key is a file outside the workspace (review.seal): never in the env
    full_env = {**os.environ, **env}
    try:
        process = subprocess.Popen(
            list(spec.argv),
            cwd=cwd,
            env=full_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return AgentRun(None, b"", False, f"cannot start {spec.argv[0]!r}: {exc.strerror}")
    stderr = b""
    try:
        stdout, stderr = process.communicate(brief.encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        _, stderr = process.communicate()
        return AgentRun(None, b"", True)
    finally:
        # also after a normal exit: nothing the agent started may go on editing the
        # workspace after its run is recorded (the group id stays reserved while any lives)
        _kill_group(process)
        process.wait()
        _relay_stderr(stderr or b"", spec, relay)
    return AgentRun(process.returncode, stdout, False)


def _relay_stderr(data: bytes, spec: AgentSpec, relay: Callable[[str], None] | None) -> None:
    lines = data.decode("utf-8", "replace").splitlines()[-MAX_STDERR_LINES:]
    for line in lines:
        text = scrub_line(line)
        if relay is not None:
            relay(f"{spec.argv[0] if spec.argv else spec}: {text}")
        else:
            print(text, file=sys.stderr, flush=True)


def scrub_line(text: str) -> str:
    """One line of agent text made safe for a terminal or log: secrets redacted, no control
    characters (an ANSI escape could rewrite what the reader sees)."""
    cleaned = "".join(c if c.isprintable() or c == "\t" else "\ufffd" for c in text)
    return scrub(cleaned)[0]


def agent_env(
    role: str, *, unit: str | None, workspace: Path, record: Path, brief: Path, number: int
) -> dict[str, str]:
    return {
        "AIDLC_UNIT": unit or "",
        "AIDLC_WORKSPACE": str(workspace),
        "AIDLC_RECORD": str(record),
        "AIDLC_BRIEF": str(brief),
        "AIDLC_ROLE": role,
        "AIDLC_PASS": str(number),
    }


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
