"""Block on the change, on real reviews: real git, real ruff, real detect-secrets,
``review run --base`` and ``review verify --ready`` (the pure rules:
``test_change_filter_rules.py``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import (
    FAKE_KEY,
    PYPROJECT,
    UNIT,
    findings_doc,
    git,
    make_workspace,
    report_text,
    review_args,
)

APP = "src/orders/app.py"
COMMITTER = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")

PRE_EXISTING = (
    '"""Orders."""\n\nimport os\n\n\ndef total(prices: list[int]) -> int:\n    return sum(prices)\n'
)


def head(ws: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(ws), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip()


def _commit(ws: Path) -> None:
    git(ws, "add", "-A")
    git(ws, *COMMITTER, "commit", "-qm", "work")


@pytest.fixture
def with_old_defect(tmp_path: Path) -> tuple[Path, str]:
    """A base holding an unused import (F401, major); the unit adds a function after it."""
    ws = make_workspace(tmp_path / "ws", {APP: PRE_EXISTING})
    return ws, head(ws)


def by_rule(ws: Path) -> dict[str, str]:
    return {f["rule"]: f["status"] for f in findings_doc(ws)["passes"][-1]["findings"]}


def verify_ready(ws: Path) -> int:
    return main(["review", "verify", "--workspace", str(ws), "--unit", UNIT, "--ready"])


def test_an_untouched_pre_existing_f401_does_not_block_while_the_new_defect_does(
    with_old_defect, capsys
) -> None:
    ws, base = with_old_defect
    (ws / APP).write_text(PRE_EXISTING + "\n\ndef mean() -> float:\n    return totl / 2\n")
    _commit(ws)

    assert main(review_args(ws, "--base", base)) == 1
    assert by_rule(ws) == {"F401": "pre-existing", "F821": "open"}
    report = report_text(ws)
    assert "## Pre-existing findings (1)" in report
    assert "`src/orders/app.py:3`: F401" in report

    (ws / APP).write_text(PRE_EXISTING + "\n\ndef mean() -> float:\n    return 1 / 2\n")
    _commit(ws)
    capsys.readouterr()
    assert main(review_args(ws, "--base", base)) == 0
    assert (
        "review: READY after 2 of 2 pass(es); 0 open finding(s) go to the code-review gate "
        "(1 pre-existing on lines the unit did not change)\n"
    ) in capsys.readouterr().err
    assert by_rule(ws) == {"F401": "pre-existing", "F821": "resolved"}
    assert verify_ready(ws) == 0  # the gate derives the same answer from the diff


def test_without_a_base_the_pre_existing_f401_blocks_as_before(with_old_defect) -> None:
    ws, _ = with_old_defect
    (ws / APP).write_text(PRE_EXISTING + "\n\ndef mean() -> float:\n    return 1 / 2\n")
    _commit(ws)
    assert main(review_args(ws)) == 1
    assert by_rule(ws) == {"F401": "open"}


def _with_settings(tmp_path: Path, table: str) -> tuple[Path, str]:
    """``with_old_defect`` whose base commit also holds ``[tool.aidlc-review]`` settings."""
    ws = make_workspace(tmp_path / "ws", {APP: PRE_EXISTING})
    (ws / "pyproject.toml").write_text(f"{PYPROJECT}\n[tool.aidlc-review]\n{table}\n")
    _commit(ws)
    return ws, head(ws)


def test_filter_mode_nofilter_blocks_on_every_line(tmp_path: Path) -> None:
    ws, base = _with_settings(tmp_path, 'filter-mode = "nofilter"')
    (ws / APP).write_text(PRE_EXISTING + "\n\ndef mean() -> float:\n    return 1 / 2\n")
    _commit(ws)
    assert main(review_args(ws, "--base", base)) == 1
    assert by_rule(ws) == {"F401": "open"}


def test_a_bad_filter_mode_is_exit_2_naming_file_line_and_key(tmp_path: Path, capsys) -> None:
    ws, base = _with_settings(tmp_path, 'filter-mode = "lines"')
    assert main(review_args(ws, "--base", base)) == 2
    assert capsys.readouterr().err.endswith(
        f"{ws / 'pyproject.toml'}:12: [tool.aidlc-review].filter-mode: must be one of added, "
        'diff_context, file, nofilter; got "lines"\n'
    )


def test_a_secret_on_an_untouched_line_still_blocks(tmp_path: Path) -> None:
    leaky = f'"""Settings."""\n\nAWS_ACCESS_KEY_ID = "{FAKE_KEY}"\n'
    ws = make_workspace(tmp_path / "ws", {APP: leaky})
    base = head(ws)
    (ws / APP).write_text(leaky + "\nTIMEOUT = 3\n")
    _commit(ws)
    assert main(review_args(ws, "--base", base)) == 1
    [secret] = [
        f for f in findings_doc(ws)["passes"][-1]["findings"] if f["check"] == "secret-scan"
    ]
    assert (secret["status"], secret["severity"], secret["location"]) == ("open", "critical", "3")
    assert (
        FAKE_KEY
        not in (ws / "aidlc-docs")
        .joinpath("construction", UNIT, "code-review", "code-review-findings.json")
        .read_text()
    )


RECORD = f"aidlc-docs/construction/{UNIT}/code-review"


def _reviewed_elsewhere(tmp_path: Path, ws: Path, *extra: str) -> Path:
    """``ws`` with the record of a review a CI job (a copy of it) made with ``extra``."""
    job = tmp_path / "job"
    shutil.copytree(ws, job, symlinks=True)
    assert main(review_args(job, *extra)) == 0
    assert by_rule(job) == {"F401": "pre-existing"}
    shutil.copytree(job / RECORD, ws / RECORD)
    return ws


def test_a_record_from_elsewhere_is_classified_against_the_workspaces_base_revision(
    tmp_path: Path,
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: PRE_EXISTING})
    (ws / "pyproject.toml").write_text(
        f'{PYPROJECT}\n[tool.aidlc-review]\nbase-revision = "main"\n'
    )
    _commit(ws)
    git(ws, "checkout", "-q", "-b", "feature")
    (ws / APP).write_text(PRE_EXISTING + "\n\ndef mean() -> float:\n    return 1 / 2\n")
    _commit(ws)
    _reviewed_elsewhere(tmp_path, ws)
    assert verify_ready(ws) == 0


def test_a_record_from_elsewhere_judged_against_an_unknown_base_is_not_ready(
    tmp_path: Path, capsys
) -> None:
    ws = make_workspace(tmp_path / "ws", {APP: PRE_EXISTING})
    base = head(ws)
    (ws / APP).write_text(PRE_EXISTING + "\n\ndef mean() -> float:\n    return 1 / 2\n")
    _commit(ws)
    _reviewed_elsewhere(tmp_path, ws, "--base", base)
    capsys.readouterr()
    assert verify_ready(ws) == 1
    assert (
        f"{RECORD}/code-review-findings.json: its pre-existing findings (CR-001) were judged "
        "against a base not known here (set `base-revision` in [tool.aidlc-review]): they "
        "count as open" in capsys.readouterr().out
    )


def test_a_unit_that_changes_its_own_settings_gets_no_pre_existing_findings(tmp_path: Path) -> None:
    """A claimed pyproject.toml edited by the unit (e.g. an agent moving base-revision to
    its own commit) cannot make the unit's findings old: nothing is pre-existing then."""
    ws = make_workspace(tmp_path / "ws", {APP: PRE_EXISTING}, claims=[APP, "pyproject.toml"])
    base = head(ws)
    (ws / APP).write_text(PRE_EXISTING + "\n\ndef mean() -> float:\n    return totl / 2\n")
    _commit(ws)
    moved = head(ws)
    settings = (ws / "pyproject.toml").read_text()
    (ws / "pyproject.toml").write_text(
        settings + f'\n[tool.aidlc-review]\nbase-revision = "{moved}"\n'
    )
    _commit(ws)

    assert main(review_args(ws, "--base", base)) == 1
    found = by_rule(ws)  # (detect-secrets also takes the commit id for a hex secret)
    assert (found["F401"], found["F821"]) == ("open", "open")
    assert verify_ready(ws) == 1


def test_a_change_that_deletes_the_only_use_of_an_import_owns_the_unused_import(
    tmp_path: Path,
) -> None:
    """The import's line is untouched, but the base's bytes report no F401: it is the
    change's, and it blocks (pre-existing means it existed at the base)."""
    used = '"""Orders."""\n\nimport os\n\n\ndef sep() -> str:\n    return os.sep\n'
    ws = make_workspace(tmp_path / "ws", {APP: used})
    base = head(ws)
    (ws / APP).write_text(used.replace("return os.sep", 'return "/"'))
    _commit(ws)

    assert main(review_args(ws, "--base", base)) == 1
    assert by_rule(ws) == {"F401": "open"}
    assert verify_ready(ws) == 1
