"""Reading a Bash command's text the way the shell and upstream's tools would: which
reviewer receipts it writes and which stage it commits forward."""

from __future__ import annotations

import pytest

from aidlc_review.upstream.commands import (
    UNKNOWN,
    ReceiptWrite,
    StageCommit,
    engine_intents,
)

LOG = "bun .claude/tools/aidlc-log.ts"
REPORT = "bun .claude/tools/aidlc-orchestrate.ts report"


def stages_written(command: str) -> list[str]:
    return [i.stage for i in engine_intents(command) if isinstance(i, ReceiptWrite)]


def commits(command: str) -> list[tuple[str | None, str | None]]:
    return [(i.stage, i.project_dir) for i in engine_intents(command) if isinstance(i, StageCommit)]


@pytest.mark.parametrize(
    "command",
    [
        f"{LOG} review --stage code-review --unit u1 --reviewer r --iteration 1 --verdict READY",
        f"{LOG} review --stage code-review --reviewer r --iteration 1",  # REVIEW_REQUESTED too
        'bun "$CLAUDE_PROJECT_DIR/.claude/tools/aidlc-log.ts" review --stage code-review',
        f"{LOG} --project-dir /tmp/wt review --stage code-review --single",
        f"{LOG} review --stage other --stage code-review",  # the last one wins
        f"cd /x && {LOG} review --stage 'code-review'",
        f"true; {LOG} review --stage code\\-review",
        f"echo ok # {LOG} review --stage code-review",  # no comments: bash runs nothing here,
        f"x#y; {LOG} review --stage code-review",  # but here it does, and shlex would hide it
        f"sh -c '{LOG} review --stage code-review'",
        f'eval "{LOG} review --stage code-review"',
        f'out="$({LOG} review --stage code-review)"',
        f"echo `{LOG} review --stage code-review`",
        f"env A=1 timeout 9 {LOG} review --stage code-review",
        "bun .claude/tools/aidlc.ts log review --stage code-review",
        "bun .claude/tools/aidlc-audit.ts append REVIEW_COMPLETED --field Stage=code-review",
    ],
)
def test_a_code_review_receipt_is_seen_however_the_command_is_written(command):
    assert "code-review" in stages_written(command)


@pytest.mark.parametrize(
    "command",
    [
        f"{LOG} review --stage code-review-x --reviewer r",
        f"{LOG} review --stage code-generation --unit u1 --reviewer r --iteration 1",
        f"{LOG} decision --stage code-review --decision x",
        f"{LOG} review --reviewer r",  # no --stage: upstream refuses it
        "grep -n review .claude/tools/aidlc-log.ts",
        "aidlc-review review run --workspace . --unit u1",
        "cat .claude/tools/aidlc-log.ts | head",
    ],
)
def test_other_commands_write_no_code_review_receipt(command):
    assert "code-review" not in stages_written(command)
    assert UNKNOWN not in stages_written(command)


@pytest.mark.parametrize(
    "command",
    [
        f'{LOG} review --stage "$STAGE" --verdict READY',
        f"{LOG} review --stage $(cat stage.txt)",
        f"{LOG} review $ARGS",
        f"{LOG} review --stage code-revie?",
        "bun .claude/tools/aidlc-audit.ts append $EVENT --field Stage=$S",
    ],
)
def test_a_stage_the_shell_still_expands_is_unknown(command):
    assert UNKNOWN in stages_written(command)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            f"{REPORT} --stage code-review --result approved --user-input Approve",
            [("code-review", None)],
        ),
        (f"{REPORT} --result approved --user-input Approve", [(None, None)]),  # current stage
        (f"{REPORT} --stage '' --result done", [(None, None)]),
        (f"{REPORT} --stage code-review --result completed", [("code-review", None)]),
        (f"{REPORT} --stage code-review --result skipped --reason x", [("code-review", None)]),
        (f"{REPORT} --stage $S --result approved", [(UNKNOWN, None)]),
        (f"{REPORT} --stage code-review --result $R", [("code-review", None)]),
        (f"{REPORT} $FLAGS", [(UNKNOWN, None)]),
        (
            "bun .claude/tools/aidlc.ts report --stage code-review --result approved",
            [("code-review", None)],
        ),
        (
            f"{REPORT.replace(' report', ' --project-dir ../p report')} --result ok",
            [],  # not a forward result
        ),
        (f"{REPORT} --single --stage code-review --result completed", [("code-review", None)]),
        (
            "bun .claude/tools/aidlc-orchestrate.ts --project-dir ../p report --result done",
            [(None, "../p")],
        ),
    ],
)
def test_a_forward_commit_is_seen_with_its_stage(command, expected):
    assert commits(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        f"{REPORT} --stage code-review --result awaiting-approval",
        f"{REPORT} --stage code-review --result rejected --user-input no",
        f"{REPORT} --stage code-review --result revised",
        f"{REPORT} --result resumed --user-input r",
        f"{REPORT} --stage code-review --skeleton-stance off",
        f"{REPORT} --stage code-review",  # no verdict: upstream refuses it
        f"{REPORT} --stage code-review --result=approved",  # not a flag upstream reads
        "bun .claude/tools/aidlc-orchestrate.ts next",
        "bun .claude/tools/aidlc-orchestrate.ts park",
    ],
)
def test_reports_that_commit_nothing_forward_are_not_commits(command):
    assert commits(command) == []


def test_an_unclosed_quote_is_still_read_word_by_word():
    assert stages_written(f"{LOG} review --stage code-review --note 'oops") == ["code-review"]
