"""``aidlc-review hook engine-gate``: Claude Code's PreToolUse payload in, exit 0 (run it) or
exit 2 with the reason on stderr (refused). The walks through upstream's engine are in
tests/upstream/test_gated_enforcement.py; these are the decisions on small record trees."""

from __future__ import annotations

import io
import json

import pytest

from aidlc_review.cli.main import main
from aidlc_review.hooks import engine_gate

INTENT = "aidlc/spaces/default/intents/260101-greeting"
LOG = "bun .claude/tools/aidlc-log.ts"
APPROVE = "bun .claude/tools/aidlc-orchestrate.ts report --stage code-review --result approved"
PREFIX = "aidlc-review (the code-review plugin's engine gate) refused this command:"


def project(tmp_path, checkbox: str = "?", current: str = "code-review"):
    record = tmp_path / INTENT
    record.mkdir(parents=True)
    (record / "aidlc-state.md").write_text(
        f"# State\n\n- **Current Stage**: {current}\n\n"
        "- [x] code-generation — EXECUTE\n"
        f"- [{checkbox}] code-review — EXECUTE\n"
        "- [ ] build-and-test — EXECUTE\n"
    )
    stage = record / "construction/u1/code-review"
    stage.mkdir(parents=True)
    (stage / "code-review.md").write_text("# code-review\n\n## Summary\n\nok\n")
    return tmp_path


def hook(monkeypatch, capsys, workspace, command: str, tool: str = "Bash") -> tuple[int, str]:
    payload = {"hook_event_name": "PreToolUse", "tool_name": tool, "cwd": str(workspace)}
    payload["tool_input"] = {"command": command}
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(payload)))
    code = main(["hook", "engine-gate", "--workspace", str(workspace)])
    return code, capsys.readouterr().err


def test_recording_a_code_review_receipt_is_refused_with_what_to_do(tmp_path, monkeypatch, capsys):
    command = (
        f"{LOG} review --stage code-review --unit u1 --reviewer r --iteration 1 --verdict READY"
    )

    code, err = hook(monkeypatch, capsys, project(tmp_path), command)

    assert code == 2
    assert err == (
        f"{PREFIX} `{command}` would record a reviewer receipt for code-review.\n"
        "Only aidlc-review records code-review's receipts (one per pass, completed only for a "
        "READY pass), so that a receipt always stands for a review it made and can prove. Do "
        "not record them with aidlc-log.ts review. Instead review the unit: `aidlc-review "
        "review run --workspace . --unit <unit>` (or `review start` / `review submit` with the "
        "dispatched reviewer, as the code-review stage says); at the gate run `aidlc-review "
        "review gate --workspace . --unit <unit> --approve` for every unit, then report the "
        "approval. Other stages' receipts: name the stage with a literal --stage <slug>.\n"
    )


def test_approving_code_review_with_an_unreviewed_unit_is_refused(tmp_path, monkeypatch, capsys):
    command = f"{APPROVE} --user-input Approve"

    code, err = hook(monkeypatch, capsys, project(tmp_path), command)

    assert code == 2
    findings = f"{INTENT}/construction/u1/code-review/code-review-findings.json"
    assert err == (
        f"{PREFIX} `{command}` would approve code-review, but the plugin's verification "
        "(`aidlc-review review verify --ready`, recomputed from the bytes) does not hold for:\n"
        f"  u1: {findings}: not reviewed, not READY\n"
        "What to do: for each unit above, `aidlc-review review status --workspace . --unit "
        "<unit>`. Not reviewed, NOT-READY or changed since its review: `aidlc-review review run "
        "--workspace . --unit <unit>` (the developer repairs, the reviewer re-reviews, within "
        "the pass budget). Then, as the code-review stage's gate step says, `aidlc-review review "
        "gate --workspace . --unit <unit> --approve` for every unit reviewed here, and report "
        "the approval again. If the human requests changes instead: "
        "`aidlc-review review gate --workspace . --unit <unit> --request-changes`, then "
        "`aidlc-orchestrate.ts report --stage code-review --result rejected --user-input "
        '"<feedback>"`.\n'
    )


@pytest.mark.parametrize(
    "command",
    [
        "bun .claude/tools/aidlc-orchestrate.ts report --result approved --user-input Approve",
        "bun .claude/tools/aidlc.ts report --stage code-review --result done",
        'bun .claude/tools/aidlc-orchestrate.ts report --stage "$S" --result approved',
        "bun .claude/tools/aidlc-orchestrate.ts --project-dir . report --result done",
    ],
)
def test_every_spelling_of_the_approval_is_judged(tmp_path, monkeypatch, capsys, command):
    code, err = hook(monkeypatch, capsys, project(tmp_path), command)

    assert code == 2
    assert "u1: " in err and "not reviewed, not READY" in err


@pytest.mark.parametrize(
    ("checkbox", "current", "command"),
    [
        ("x", "build-and-test", APPROVE),  # approved before: a re-report only finishes it
        ("S", "build-and-test", APPROVE),  # skipped in this scope: upstream refuses it
        (" ", "code-generation", APPROVE),  # not started: upstream refuses it
        ("?", "code-review", f"{APPROVE.replace('code-review', 'code-generation')}"),
        ("-", "code-generation", "bun .claude/tools/aidlc-orchestrate.ts report --result done"),
        ("?", "code-review", "bun .claude/tools/aidlc-orchestrate.ts report --result rejected"),
        ("?", "code-review", f"{LOG} review --stage code-generation --reviewer r --iteration 1"),
        ("?", "code-review", "aidlc-review review run --workspace . --unit u1"),
        ("?", "code-review", "ls -la"),
    ],
)
def test_what_does_not_approve_code_review_goes_ahead(
    tmp_path, monkeypatch, capsys, checkbox, current, command
):
    workspace = project(tmp_path, checkbox=checkbox, current=current)

    assert hook(monkeypatch, capsys, workspace, command) == (0, "")


def test_other_tools_and_other_payloads_go_ahead(tmp_path, monkeypatch, capsys):
    workspace = project(tmp_path)
    assert hook(monkeypatch, capsys, workspace, APPROVE, tool="Write") == (0, "")
    monkeypatch.setattr("sys.stdin", io.StringIO("not json"))
    assert main(["hook", "engine-gate", "--workspace", str(workspace)]) == 0


def test_a_project_dir_the_shell_still_expands_is_refused(tmp_path, monkeypatch, capsys):
    command = "bun .claude/tools/aidlc-orchestrate.ts --project-dir $P report --result done"

    code, err = hook(monkeypatch, capsys, project(tmp_path), command)

    assert (code, err) == (
        2,
        f"{PREFIX} `{command}` commits a stage in a project this check cannot read (its "
        "--project-dir is not a literal path). Name the project directory literally.\n",
    )


def test_a_check_that_fails_refuses_an_engine_command_and_nothing_else(
    tmp_path, monkeypatch, capsys
):
    def broken(*_args):
        raise OSError("disk on fire")

    monkeypatch.setattr(engine_gate, "gate_command", broken)
    workspace = project(tmp_path)

    assert hook(monkeypatch, capsys, workspace, APPROVE) == (
        2,
        f"{PREFIX} it could not be checked (OSError: disk on fire).\n",
    )
    assert hook(monkeypatch, capsys, workspace, "ls") == (0, "")


# Each spelling an adversarial conductor used to get code-review approved past the hook
# (issue 33): none reaches the engine while a unit is not READY.
TOOL = ".claude/tools/aidlc-orchestrate.ts"
UNREADABLE_SPELLINGS = [
    f'set -- report --stage code-review --result approved; bun {TOOL} "$@"',
    f'f() {{ bun {TOOL} "$@"; }}; f report --stage code-review --result approved',
    f"echo report --stage code-review --result approved | xargs bun {TOOL}",
    "bun .claude/tools/aidlc-orches\\\ntrate.ts report --stage code-review --result approved",
    "python3 -c \"import subprocess; subprocess.run(['bun', '"
    + TOOL
    + "', 'report', '--stage', 'code-review', '--result', 'approved'])\"",
    "find .claude/tools -name aidlc-orchestrate.ts -exec bun {} report --result approved \\;",
    'T=$(printf %s .claude/tools/aidlc-orch estrate.ts | tr -d " "); '
    "bun $T report --result approved",
    'eval "$(echo YnVu | base64 -d) .claude/tools/aidlc-orchestrate.ts report --result approved"',
    "sh ./approve.sh",
    "python3 approve.py",
]


@pytest.mark.parametrize("command", UNREADABLE_SPELLINGS)
def test_no_spelling_of_an_approval_gets_past_while_a_unit_is_not_ready(
    command, tmp_path, monkeypatch, capsys
):
    workspace = project(tmp_path)
    (workspace / "approve.sh").write_text(
        f"bun {TOOL} report --stage code-review --result approved\n"
    )
    (workspace / "approve.py").write_text(
        f"import subprocess\nsubprocess.run(['bun', '{TOOL}', 'report', '--result', 'approved'])\n"
    )

    code, err = hook(monkeypatch, capsys, workspace, command)

    assert code == 2
    assert err.startswith(PREFIX)


def test_a_refusal_for_what_cannot_be_read_names_the_plain_command(tmp_path, monkeypatch, capsys):
    code, err = hook(monkeypatch, capsys, project(tmp_path), UNREADABLE_SPELLINGS[4])
    assert code == 2
    assert "cannot read it to its end" in err
    assert f"`bun {TOOL} report --stage code-review --result approved" in err


@pytest.mark.parametrize(
    "command",
    [
        "ls .claude/tools",
        f"cat {TOOL} | head",
        "find .claude/tools -name 'aidlc-*.ts'",
        "python3 -c 'print(1)'",
        "source .venv/bin/activate && pytest -q",
        "aidlc-review review run --workspace . --unit u1",
        'echo "$HOME"',
    ],
)
def test_commands_that_do_not_reach_the_engine_unreadably_run(
    command, tmp_path, monkeypatch, capsys
):
    code, _ = hook(monkeypatch, capsys, project(tmp_path), command)
    assert code == 0


def test_the_intents_units_are_found_under_construction_units_where_the_engine_keeps_them(
    tmp_path,
):
    record = tmp_path / "record"
    for unit in ("billing", "orders"):  # the newest engine's layout (docs/upstream-newer.md)
        (record / "construction" / "units" / unit / "code-generation").mkdir(parents=True)
    (record / "construction" / "code-generation").mkdir()  # a stage-level run's folder

    assert engine_gate.intent_units(tmp_path, record) == ["billing", "orders"]
