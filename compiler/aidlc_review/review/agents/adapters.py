"""Agent adapters: how a reviewer or a repairer is reached.

``builtin`` needs no model (the reviewer that turns sensor results into the
verdict); ``command:CMD`` runs an external agent CLI without a shell from the
workspace, brief on stdin, with an environment that does not lead to the review's
state (``agent_environment``), under a supervisor that kills every process of the
agent's once it exits or its time is up (``review.agents.supervisor``); ``none``
(repairer only) means nobody repairs. ``claude`` and ``codex`` are presets: the
documented headless command lines of those CLIs (``PRESETS``), run like
``command:`` and recorded by preset name. Host-driven agents do not pass through
here: ``review start`` / ``review submit`` stand in for them.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from aidlc_review.errors import InvalidInput
from aidlc_review.review.agents.envelope import (
    environment_failure,
    hopeless,
    reported_failure,
    reported_usage,
)
from aidlc_review.review.agents.pipes import MAX_ANSWER_BYTES, exchange
from aidlc_review.review.record.models import AgentUsage
from aidlc_review.review.record.seal import state_dir
from aidlc_review.sensors.redact import scrub

MAX_STDERR_LINES = 200
# Linux has child subreapers: the supervisor outlives every process of the agent's and
# kills them all. Elsewhere the agent's process group is killed, which a grandchild
# that calls setsid() (or double-forks into a new session) escapes.
SUPERVISED = sys.platform.startswith("linux")
SUPERVISOR = Path(__file__).with_name("supervisor.py")
POLL_SECONDS = 0.1
STOP_GRACE_SECONDS = 2.0  # for the supervisor to kill the agent's tree after SIGTERM
DRAIN_SECONDS = 0.5  # for the pipes to close once the agent's process has exited

BUILTIN = "builtin"
NONE = "none"


@dataclass(frozen=True)
class Preset:
    """One agent CLI's headless command line, brief on stdin, and the environment it adds.

    ``env`` is set for the turn; ``env_defaults`` only where the user's environment does not
    set the variable already (a budget the user may tune)."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    env_defaults: tuple[tuple[str, str], ...] = ()


# Claude Code retries a failing API call with back-off for minutes; a few retries fit a turn.
_CLAUDE_RETRIES = (("CLAUDE_CODE_MAX_RETRIES", "3"),)
# The reviewer reads and answers, whatever the settings say: only reading tools are offered
# (--tools; dontAsk denies what is not allowed), only the user's own settings load (not the
# project's permissions, env or hooks), every hook is off, no MCP server, no slash
# command, no CLAUDE.md or auto-memory, and no session transcript is written under HOME.
CLAUDE_REVIEWER = Preset(
    (
        *("claude", "-p", "--output-format", "json"),
        *("--tools", "Read,Grep,Glob", "--allowedTools", "Read,Grep,Glob"),
        *("--permission-mode", "dontAsk", "--setting-sources", "user"),
        *("--settings", '{"disableAllHooks": true}', "--strict-mcp-config"),
        *("--disable-slash-commands", "--no-session-persistence"),
    ),
    env=(("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1"), ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1")),
    env_defaults=_CLAUDE_RETRIES,
)
# The repairer works as the team's developer agent does: the project's settings, hooks and
# CLAUDE.md load; edits are accepted; no session transcript is written.
CLAUDE_REPAIRER = Preset(
    (
        *("claude", "-p", "--output-format", "json", "--permission-mode", "acceptEdits"),
        "--no-session-persistence",
    ),
    env_defaults=_CLAUDE_RETRIES,
)
# Codex: works outside a git repository, keeps no session files (--ephemeral); the reviewer
# in the read-only sandbox with no AGENTS.md (project_doc_max_bytes=0), the repairer in the
# workspace-write sandbox with the project's AGENTS.md.
_CODEX = ("codex", "exec", "--json", "--skip-git-repo-check", "--ephemeral")
CODEX_REVIEWER = Preset((*_CODEX, "--sandbox", "read-only", "-c", "project_doc_max_bytes=0", "-"))
CODEX_REPAIRER = Preset((*_CODEX, "--sandbox", "workspace-write", "-"))
# Both CLIs print a JSON envelope that ``review.agents.envelope`` reads.
PRESETS: dict[str, dict[str, Preset]] = {
    "--reviewer": {"claude": CLAUDE_REVIEWER, "codex": CODEX_REVIEWER},
    "--repairer": {"claude": CLAUDE_REPAIRER, "codex": CODEX_REPAIRER},
}


@dataclass(frozen=True)
class AgentSpec:
    kind: str  # builtin | none | command
    argv: tuple[str, ...] = ()
    text: str = ""
    env: tuple[tuple[str, str], ...] = ()  # a preset's variables for the turn
    env_defaults: tuple[tuple[str, str], ...] = ()  # ... unless the user set them

    def __str__(self) -> str:
        return self.text or self.kind

    def environment(self, extra: dict[str, str]) -> dict[str, str]:
        """The turn's environment: ``agent_environment`` with this agent's variables."""
        base = agent_environment(extra)
        return {**dict(self.env_defaults), **base, **dict(self.env)}


class AgentCannotWork(InvalidInput):
    """The agent CLI can only fail here (not logged in, no key, endpoint unreachable): an
    environment error, reported with the CLI's own reason before a pass is spent on it."""


@dataclass(frozen=True)
class AgentRun:
    exit_code: int | None
    stdout: bytes
    timed_out: bool
    error: str | None = None  # the agent could not be started
    gave_up: bool = False  # stopped early: its output said it could only fail
    seconds: float = 0.0  # wall-clock time of the turn

    @property
    def usage(self) -> AgentUsage:
        """The turn's time, and the tokens and cost its CLI reported."""
        return AgentUsage(turns=1, seconds=round(self.seconds, 3), **reported_usage(self.stdout))

    @property
    def failure(self) -> str | None:
        """Why the run does not count as done, in words safe to record: ours, and the
        CLI's own reason from its envelope (secrets redacted), on any exit status."""
        if self.error:
            return self.error
        if self.timed_out:
            return "no answer before the agent timeout"
        said = reported_failure(self.stdout)
        reason = f": {scrub_line(said)}" if said else ""
        if self.gave_up:
            return f"agent stopped: it could only fail{reason}"
        if self.exit_code != 0:
            return f"agent exited with status {self.exit_code}{reason}"
        return None

    @property
    def cannot_work(self) -> str | None:
        """The CLI's own reason when it says it cannot work in this environment."""
        said = environment_failure(self.stdout) if self.failure else None
        return scrub_line(said) if said else None


CANNOT_WORK_FIX = (
    "Log the CLI in (or give it its API key) and check that its endpoint is reachable, "
    "then run the review again."
)


def refuse_if_cannot_work(role: str, spec: AgentSpec, run: AgentRun) -> None:
    """Raise ``AgentCannotWork`` when the run's CLI said it cannot work here: the review stops
    before anything of the turn is recorded, so no pass is spent on it."""
    if run.cannot_work:
        raise AgentCannotWork(
            f"{role} {spec}: the agent CLI cannot work here: {run.cannot_work}. "
            f"{CANNOT_WORK_FIX} No pass was spent."
        )


def parse_agent(text: str, option: str, allowed: tuple[str, ...]) -> AgentSpec:
    if text in allowed:
        return AgentSpec(text, text=text)
    presets = PRESETS.get(option, {})
    if text in presets:
        preset = presets[text]
        found = _found(preset.argv, option, text)
        return AgentSpec("command", found, text, preset.env, preset.env_defaults)
    if text.startswith("command:"):
        try:
            argv = shlex.split(text[len("command:") :])
        except ValueError as exc:
            raise InvalidInput(f"{option} {text!r}: cannot split the command: {exc}") from None
        if not argv:
            raise InvalidInput(f"{option} {text!r}: the command is empty")
        return AgentSpec("command", _found(tuple(argv), option, text), text)
    choices = " | ".join([*allowed, *presets, "command:CMD"])
    raise InvalidInput(f"{option} {text!r}: must be {choices}")


def _found(argv: tuple[str, ...], option: str, text: str) -> tuple[str, ...]:
    """An agent that cannot start is refused before a pass is spent on it."""
    program = argv[0]
    if "/" in program and not Path(program).is_absolute():
        return argv  # relative to the workspace the agent runs in: known only then
    if "/" in program:
        found = Path(program).is_file() and os.access(program, os.X_OK)
    else:
        found = shutil.which(program) is not None
    if not found:
        raise InvalidInput(
            f"{option} {text!r}: {program!r} is not an executable on PATH; install it, "
            "or name another agent (builtin | claude | codex | command:CMD)"
        )
    return argv


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
    When this returns, no process the agent started is left running.
    """
    started = time.monotonic()
    run = _run_turn(spec, cwd, brief, spec.environment(env), timeout, relay)
    return replace(run, seconds=time.monotonic() - started)


def _run_turn(
    spec: AgentSpec,
    cwd: Path,
    brief: str,
    env: dict[str, str],
    timeout: float,
    relay: Callable[[str], None] | None,
) -> AgentRun:
    try:
        turn = _start(spec.argv, cwd, env)
    except OSError as exc:
        return AgentRun(None, b"", False, f"cannot start {spec.argv[0]!r}: {exc.strerror}")
    try:
        answer = exchange(
            turn.process, brief.encode(), timeout, _stop, POLL_SECONDS, DRAIN_SECONDS, hopeless
        )
    finally:
        # also after a normal exit: nothing the agent started may go on editing the
        # workspace after its run is recorded
        cannot = _end_turn(turn)
    if cannot:
        return AgentRun(None, b"", False, f"cannot start {spec.argv[0]!r}: {cannot}")
    _relay_stderr(answer.stderr, spec, relay)
    if answer.timed_out:
        return AgentRun(None, b"", True)
    if answer.overflowed:
        return AgentRun(None, b"", False, f"answer larger than {MAX_ANSWER_BYTES} bytes")
    if answer.gave_up:
        return AgentRun(None, answer.stdout, False, gave_up=True)
    code = turn.process.returncode
    # a signal is 128 + its number, as the supervisor reports it, on every platform
    return AgentRun(code if code >= 0 else 128 - code, answer.stdout, False)


def agent_environment(extra: dict[str, str]) -> dict[str, str]:
    """The environment an agent runs with: the review's own, less anything that names or
    leads to the review's state dir, plus ``extra`` (``agent_env``'s variables).

    The key that seals baselines and receipts lives in that dir (``review.record.seal``), and an
    agent is an untrusted program run as the same user: told where the key is, it could
    re-seal whatever it rewrote. So XDG_STATE_HOME goes, every inherited AIDLC_* goes (the
    review's own settings, none meant for an agent), and so does any variable whose value
    holds the state dir or is the directory it sits in. XDG_CACHE_HOME goes too: the sensors'
    result cache is authenticated (``sensors.cache``), and an agent is not pointed at it.
    HOME, PATH and the rest stay: an agent CLI finds its own config and credentials under HOME.
    """
    state = state_dir()
    inside = {str(state), os.path.realpath(state)}
    base = {str(state.parent), os.path.realpath(state.parent)}
    kept = {
        name: value
        for name, value in os.environ.items()
        if name not in ("XDG_STATE_HOME", "XDG_CACHE_HOME")
        and not name.startswith("AIDLC_")
        and value.rstrip("/") not in base
        and not any(path in value for path in inside)
    }
    return {**kept, **extra}


@dataclass(frozen=True)
class _Turn:
    process: subprocess.Popen[bytes]
    report: int | None  # the supervisor's pipe: the errno of an agent it could not start


def _start(argv: tuple[str, ...], cwd: Path, env: dict[str, str]) -> _Turn:
    if not SUPERVISED:
        return _Turn(_popen(list(argv), cwd, env, ()), None)
    read, write = os.pipe()
    # run by path and isolated (-I): ``-m`` would look in the working directory (the
    # workspace, which agents write) first, and -S skips site for a faster start
    command = [sys.executable, "-I", "-S", str(SUPERVISOR), str(write), *argv]
    try:
        return _Turn(_popen(command, cwd, env, (write,)), read)
    except OSError:
        os.close(read)
        raise
    finally:
        os.close(write)


def _popen(
    argv: list[str], cwd: Path, env: dict[str, str], pass_fds: tuple[int, ...]
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        pass_fds=pass_fds,
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the turn now: the supervisor gets SIGTERM and a moment to kill the agent's tree;
    then (at once, without a supervisor) the process group gets SIGKILL."""
    if SUPERVISED and process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            pass
    _kill_group(process)


def _end_turn(turn: _Turn) -> str | None:
    """Nothing of the turn left running and no pipe left open; why the agent could not
    start, if it could not."""
    _stop(turn.process)
    turn.process.wait()
    for pipe in (turn.process.stdin, turn.process.stdout, turn.process.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    if turn.report is None:
        return None
    with os.fdopen(turn.report, "rb") as report:
        said = report.read(16).strip()
    return os.strerror(int(said)) if said.isdigit() else None


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
