"""The door's runner: the argv of an engine tool, and a run that never raises for itself."""

from __future__ import annotations

import stat
from pathlib import Path

from aidlc_review.upstream import names
from aidlc_review.upstream.commands import may_touch_engine
from aidlc_review.upstream.tools import NOT_STARTED, TIMED_OUT, Engine, failure


def _program(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_tools_argv_is_bun_then_the_tool_under_the_harness_then_its_arguments(
    tmp_path,
) -> None:
    engine = Engine(tmp_path, ".claude")
    argv = engine.argv(names.LOG_TOOL, "review", "--stage", "code-review")
    assert argv == ["bun", ".claude/tools/aidlc-log.ts", "review", "--stage", "code-review"]


def test_the_text_a_message_shows_is_the_argv_joined() -> None:
    shown = names.command_text(names.ORCHESTRATE_TOOL, "next")
    assert shown == "bun .claude/tools/aidlc-orchestrate.ts next"


def test_an_engine_is_present_when_its_graph_tool_is(tmp_path) -> None:
    engine = Engine(tmp_path, ".claude")
    assert not engine.present
    (tmp_path / ".claude" / "tools").mkdir(parents=True)
    (tmp_path / ".claude" / "tools" / names.GRAPH_TOOL).write_text("", encoding="utf-8")
    assert engine.present and engine.has(names.GRAPH_TOOL) and not engine.has(names.LOG_TOOL)


def test_a_run_passes_the_arguments_without_a_shell_in_the_project(tmp_path) -> None:
    bun = _program(tmp_path / "bun", 'pwd; for a in "$@"; do echo "[$a]"; done')
    engine = Engine(tmp_path, ".claude")
    done = engine.call(engine.argv(names.LOG_TOOL, "a b", "$HOME;x"), bun)
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        str(tmp_path),
        "[.claude/tools/aidlc-log.ts]",
        "[a b]",
        "[$HOME;x]",
    ]


def test_a_run_that_cannot_start_comes_back_as_a_failure_saying_so(tmp_path) -> None:
    engine = Engine(tmp_path, ".claude")
    argv = engine.argv(names.LOG_TOOL, "review")
    done = engine.call(argv, str(tmp_path / "no-bun-here"))
    assert done.returncode == NOT_STARTED
    assert failure(argv, done).startswith(
        f"bun .claude/tools/aidlc-log.ts review exited {NOT_STARTED}: could not start"
    )


def test_a_run_past_its_timeout_comes_back_as_a_failure_saying_so(tmp_path) -> None:
    bun = _program(tmp_path / "bun", "exec sleep 5")
    engine = Engine(tmp_path, ".claude")
    done = engine.call(engine.argv(names.LOG_TOOL), bun, timeout=0.2)
    assert (done.returncode, done.stderr) == (TIMED_OUT, "timed out after 0.2s")


def test_the_grammar_fails_closed_on_a_command_it_cannot_read_that_names_the_engine() -> None:
    unparsable = 'bun .claude/tools/aidlc-log.ts review --stage "code-review'
    assert may_touch_engine(unparsable)
    assert not may_touch_engine('echo "unterminated')
