"""Claude Code's Bash tool, as a conductor session in an upstream project has it.

Before every Bash command Claude Code runs the ``PreToolUse`` hooks the project's
``.claude/settings.json`` registers for the tool ``Bash`` (the matcher is the tool
name, or a regex of tool names; empty or ``*`` matches every tool): each hook's
``command`` through the shell, in the project, with ``CLAUDE_PROJECT_DIR`` set and the
hook's JSON on stdin (``hook_event_name``, ``tool_name``, ``tool_input.command``,
``cwd``). A hook refuses the call by exiting 2 (its stderr is the reason Claude reads)
or by printing ``hookSpecificOutput.permissionDecision: "deny"`` with exit 0; any
other exit, or a timeout, is a hook error and the call goes ahead. Only a call no hook
refused runs. (PostToolUse hooks are not run here: nothing in these walks needs them.)

``ClaudeCodeProject`` is an ``UpstreamProject`` whose engine calls are such Bash
commands (``bun .claude/tools/aidlc-<tool>.ts ...``), so the literal conductor of
``conductor.py`` drives upstream through them unchanged.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from dataclasses import dataclass, field
from typing import Any

from tests.upstream.engine import TOOLS, Ran, UpstreamProject, bun_dir, registered_hooks

DEFAULT_TIMEOUT = 60  # seconds: Claude Code's default for a command hook


class Refused(AssertionError):
    """A PreToolUse hook refused the command; the message is the reason Claude read."""


@dataclass(frozen=True)
class Refusal:
    command: str
    reason: str


@dataclass
class ClaudeCodeProject(UpstreamProject):
    refusals: list[Refusal] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    last_refusal: Refusal | None = None

    @classmethod
    def of(cls, project: UpstreamProject) -> ClaudeCodeProject:
        return cls(project.root, dict(project.env))

    def tool(self, name: str, *args: str, stdin: str | None = None) -> Ran:
        return self.bash(engine_command(name, *args), stdin=stdin)

    def ok(self, name: str, *args: str) -> Ran:
        return self.bash_ok(engine_command(name, *args))

    def bash(self, command: str, stdin: str | None = None) -> Ran:
        """Run ``command`` as Claude Code's Bash tool would: hooks first, then the shell."""
        self.commands.append(command)
        reason = self._pre_tool_use(command)
        self.last_refusal = None if reason is None else Refusal(command, reason)
        if self.last_refusal is not None:
            self.refusals.append(self.last_refusal)
            return Ran(2, "", self.last_refusal.reason)
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=self.root,
            capture_output=True,
            text=True,
            env=self._env(),
            input=stdin,
            timeout=600,
        )
        assert done.returncode != 127, f"not found: {command}\n{done.stderr}"
        return Ran(done.returncode, done.stdout, done.stderr)

    def bash_ok(self, command: str) -> Ran:
        ran = self.bash(command)
        if self.last_refusal is not None:
            raise Refused(self.last_refusal.reason)
        assert ran.code == 0, f"{command}: exit {ran.code}\n{ran.stdout}\n{ran.stderr}"
        return ran

    def _env(self) -> dict[str, str]:
        env = {**os.environ, **self.env, "CLAUDE_PROJECT_DIR": str(self.root)}
        env["PATH"] = f"{bun_dir()}{os.pathsep}{TOOLS}{os.pathsep}{env.get('PATH', '')}"
        return env

    def _pre_tool_use(self, command: str) -> str | None:
        payload = json.dumps(
            {
                "session_id": "test-session",
                "transcript_path": str(self.root / ".claude" / "transcript.jsonl"),
                "cwd": str(self.root),
                "permission_mode": "default",
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": command, "description": "conductor step"},
                "tool_use_id": f"toolu_{len(self.commands):04d}",
            }
        )
        for hook in registered_hooks(self, "PreToolUse", "Bash"):
            reason = self._run_hook(hook, payload)
            if reason is not None:
                return reason
        return None

    def _run_hook(self, hook: dict[str, Any], payload: str) -> str | None:
        try:
            done = subprocess.run(
                ["bash", "-c", hook["command"]],
                cwd=self.root,
                capture_output=True,
                text=True,
                env=self._env(),
                input=payload,
                timeout=hook.get("timeout", DEFAULT_TIMEOUT),
            )
        except subprocess.TimeoutExpired:
            return None  # a hook error: Claude Code lets the call go ahead
        if done.returncode == 2:
            return done.stderr.strip() or "blocked by a PreToolUse hook"
        if done.returncode != 0:
            return None
        return _denied_by_json(done.stdout)


def engine_command(name: str, *args: str) -> str:
    """The Bash command SKILL.md's form runs one of upstream's tools with."""
    script = "aidlc.ts" if name == "aidlc" else f"aidlc-{name}.ts"
    return shlex.join(["bun", f".claude/tools/{script}", *args])


def _denied_by_json(stdout: str) -> str | None:
    try:
        out = json.loads(stdout)
    except ValueError:
        return None
    if not isinstance(out, dict):
        return None
    specific = out.get("hookSpecificOutput") or {}
    if specific.get("permissionDecision") == "deny":
        return str(specific.get("permissionDecisionReason") or "denied by a PreToolUse hook")
    if out.get("decision") == "block":  # the older form
        return str(out.get("reason") or "blocked by a PreToolUse hook")
    return None
