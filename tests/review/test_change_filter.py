"""Block on the change: with a given base, what the unit did not change does not block.

Pure rules first (``review.change_filter``), then real reviews: real git, real ruff,
real detect-secrets, ``review run --base`` and ``review verify --ready``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.review.change_filter import Change, classify
from aidlc_review.review.consistency import _stored_verdicts, contradictions
from aidlc_review.review.models import Finding, FindingsDocument, Location
from aidlc_review.review.recompute import merge_recomputed
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
OLD = "src/orders/old.py"
COMMITTER = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")


def finding(
    line: int | None,
    *,
    path: str = APP,
    severity: str = "major",
    category: str = "maintainability",
    source: str = "sensor",
    check: str | None = "linter",
    rule: str | None = "F401",
    status: str = "open",
    number: int = 1,
) -> Finding:
    return Finding.model_validate(
        {
            "id": f"CR-{number:03d}",
            "severity": severity,
            "category": category,
            "path": path,
            "location": str(line) if line else None,
            "locations": [Location(line=line)] if line else [],
            "finding": "F401 `os` imported but unused",
            "evidence": "linter reported F401.",
            "recommendation": "Fix it.",
            "status": status,
            "source": source,
            "check": check,
            "checks": [check] if check else [],
            "rule": rule,
            "fingerprint": f"sha256:{number}",
            "first_seen": 1,
            "attempt": 1,
        }
    )


def change(mode: str = "added", **lines: set[int]) -> Change:
    return Change("base", mode, {APP: frozenset(lines.get("app", set()))})  # type: ignore[arg-type]


def statuses(found: list[Finding]) -> list[str]:
    return [f.status for f in found]


def test_without_a_base_nothing_is_pre_existing() -> None:
    assert statuses(classify([finding(3)], None)) == ["open"]


def test_added_mode_a_finding_on_a_changed_line_is_the_changes_and_one_beside_it_is_not() -> None:
    found = classify([finding(10), finding(13, number=2)], change(app={10}))
    assert statuses(found) == ["open", "pre-existing"]


def test_diff_context_mode_counts_three_lines_around_a_change() -> None:
    found = classify([finding(13), finding(14, number=2)], change("diff_context", app={10}))
    assert statuses(found) == ["open", "pre-existing"]


def test_file_mode_counts_every_line_of_a_changed_file_and_none_of_an_unchanged_one() -> None:
    found = classify([finding(90), finding(2, path=OLD, number=2)], change("file", app={10}))
    assert statuses(found) == ["open", "pre-existing"]


def test_nofilter_mode_keeps_everything_open() -> None:
    found = classify([finding(2, path=OLD), finding(90, number=2)], change("nofilter", app={1}))
    assert statuses(found) == ["open", "open"]


def test_a_range_touching_a_changed_line_is_the_changes() -> None:
    ranged = finding(8).model_copy(update={"locations": [Location(line=8, end_line=11)]})
    assert statuses(classify([ranged], change(app={11}))) == ["open"]


def test_secrets_critical_security_reviewer_runtime_and_unit_findings_block_anywhere() -> None:
    unchanged = change(app={50})
    found = classify(
        [
            finding(3, check="secret-scan", rule="AWS Access Key", severity="critical"),
            finding(3, rule="S105", number=2),  # a hard-coded password, from ruff
            finding(3, rule="S608", severity="critical", category="security", number=3),
            finding(3, source="reviewer", check=None, rule=None, number=4),
            finding(None, path="", source="runtime", check=None, number=5),
            finding(None, path="", check="coverage", rule="coverage/tests-failed", number=6),
            finding(None, check="secret-scan", rule="too-large", number=7),
            finding(None, check="secret-scan", rule="timed-out", number=8),
        ],
        unchanged,
    )
    assert statuses(found) == ["open"] * 8
    # a major security finding on an untouched line is pre-existing like any other, and so
    # is a critical one that is not about security (a file that did not parse at the base)
    assert statuses(classify([finding(3, rule="S608", category="security")], unchanged)) == [
        "pre-existing"
    ]
    assert statuses(classify([finding(3, rule="E999", severity="critical")], unchanged)) == [
        "pre-existing"
    ]


def test_a_line_less_finding_follows_its_file() -> None:
    whole = finding(None, check="formatter", rule="formatter/unformatted")
    assert statuses(classify([whole], change(app={4}))) == ["open"]
    assert statuses(classify([whole.model_copy(update={"path": OLD})], change(app={4}))) == [
        "pre-existing"
    ]


def test_a_stored_classification_is_never_taken_it_is_derived_again() -> None:
    forged = finding(10, status="pre-existing")  # on a line the unit changed
    assert statuses(classify([forged], change(app={10}))) == ["open"]
    assert statuses(classify([finding(3, status="resolved")], change(app={10}))) == ["resolved"]


def test_recomputing_at_a_gate_derives_the_classification_on_both_sides() -> None:
    recorded = [finding(10, status="pre-existing")]
    again = merge_recomputed(recorded, [], 1, 1, {APP}, not_run={"linter"}, change=change(app={10}))
    assert statuses(again.findings) == ["open"]
    assert again.understated == []  # the record is not "understated": it is re-derived


def test_a_stored_ready_the_diff_does_not_back_is_a_contradiction() -> None:
    last = {
        "attempt": 1,
        "pass": 1,
        "verdict": "READY",
        "source_fingerprint": "sha256:" + "0" * 64,
        "reviewer": {"agent": "builtin", "status": "answered"},
        "findings": [finding(10, status="pre-existing").model_dump(mode="json")],
        "checks": [],
    }
    doc = FindingsDocument.model_validate(
        {"unit": UNIT, "attempt": 1, "verdict": "READY", "passes": [last], "checks": []}
    )
    assert contradictions("x.json", doc, None, None, change(app={10})) == []  # no receipt
    assert _stored_verdicts("x.json", doc, change(app={99})) == []
    assert _stored_verdicts("x.json", doc, change(app={10})) == [
        "x.json: stored verdict READY, but its own findings decide NOT-READY (CR-001 major)"
    ]


# --- real reviews ------------------------------------------------------------------------

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
    with_old_defect,
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
    assert main(review_args(ws, "--base", base)) == 0
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
