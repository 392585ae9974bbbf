"""``review summary --from DIR...``: per-unit results merged into the aggregate gate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from aidlc_review.cli.main import main
from tests.ci.github_code_scanning import SARIF_SCHEMA, violations
from tests.ci.units import CLAIMS, findings_of, review, three_unit_workspace
from tests.shared_builds import build_once, session_root


@pytest.fixture(scope="session")
def two_ways(tmp_path_factory) -> tuple[Path, Path]:
    """The three units reviewed in one workspace, and each in its own checkout whose findings
    file is then gathered like a CI artifact (findings-<unit>/code-review-findings.json).
    Built once per test run for every worker that asks; the tests only read it."""
    root = build_once(session_root(tmp_path_factory) / "ci-two-ways", review_two_ways)
    return root / "together", root / "artifacts"


def review_two_ways(root: Path) -> None:
    """Each unit's job starts from a fresh checkout and a review state of its own, as a CI
    matrix job on its own runner; like such runners, every job checks out at one path
    (``job/``) and has the machine's tool cache (this build's, mypy's among it) restored."""
    together = three_unit_workspace(root / "together")
    for unit in CLAIMS:
        review(together, unit)
    with pytest.MonkeyPatch.context() as monkeypatch:
        for unit in CLAIMS:
            shutil.rmtree(root / "job", ignore_errors=True)
            checkout = three_unit_workspace(root / "job")
            monkeypatch.setenv("XDG_STATE_HOME", str(root / f"state-{unit}"))
            review(checkout, unit)
            (root / "artifacts" / f"findings-{unit}").mkdir(parents=True)
            shutil.copy2(findings_of(checkout, unit), root / "artifacts" / f"findings-{unit}")


def summary(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["review", "summary", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_merging_per_unit_files_gives_the_gate_of_one_place(two_ways, capsys):
    together, artifacts = two_ways
    parts = [str(artifacts / f"findings-{unit}") for unit in CLAIMS]
    merged_code, merged = summary(capsys, "--from", *parts)
    one_code, one_place = summary(capsys, "--from", str(together / "aidlc-docs"))
    assert merged == one_place
    assert merged_code == one_code
    assert [u["unit"] for u in merged["units"]] == list(CLAIMS)
    verdicts = {u["unit"]: u["verdict"] for u in merged["units"]}
    assert merged["verdict"] == ("READY" if set(verdicts.values()) == {"READY"} else "NOT-READY")
    assert merged["not_ready"] == [u for u, v in verdicts.items() if v != "READY"]
    assert merged_code == (0 if merged["verdict"] == "READY" else 1)
    opened = {u["unit"]: [f["id"] for f in u["open_findings"]] for u in merged["units"]}
    for unit in CLAIMS:
        doc = json.loads(findings_of(together, unit).read_text())
        last = doc["passes"][-1]["findings"]
        assert opened[unit] == [f["id"] for f in last if f["status"] == "open"]


def test_the_job_summary_and_merged_sarif(two_ways, tmp_path, capsys):
    _, artifacts = two_ways
    step_summary = tmp_path / "step-summary.md"
    step_summary.write_text("earlier step\n")
    sarif = tmp_path / "merged.sarif"
    main(
        [
            "review",
            "summary",
            "--from",
            str(artifacts),
            "--markdown",
            str(step_summary),
            "--sarif",
            str(sarif),
        ]
    )
    shown = capsys.readouterr().out
    text = step_summary.read_text()
    assert text == "earlier step\n" + shown  # appended, as GitHub expects
    assert "| unit | verdict | attempt | passes | open findings |" in text
    for unit in CLAIMS:
        assert f"| {unit} | " in text
    log = json.loads(sarif.read_text())
    ids = [run["automationDetails"]["id"] for run in log["runs"]]
    assert ids == [f"code-review/{unit}/attempt-1" for unit in CLAIMS]
    # one upload GitHub takes: a valid log, one run per tool and category, every result located
    Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    assert violations(log) == []
    for run in log["runs"]:
        for result in run["results"]:
            assert f"- **{result['properties']['id']}** " in text


def test_a_unit_given_twice_is_refused_and_nothing_is_written(two_ways, tmp_path, capsys):
    _, artifacts = two_ways
    twice = tmp_path / "again"
    shutil.copytree(artifacts / "findings-u2-pricing", twice)
    sarif, md = tmp_path / "x.sarif", tmp_path / "x.md"
    code = main(
        [
            "review",
            "summary",
            "--from",
            str(artifacts),
            str(twice),
            "--sarif",
            str(sarif),
            "--markdown",
            str(md),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err == (
        f"{twice / 'code-review-findings.json'}: unit 'u2-pricing' is also reviewed in "
        f"{artifacts / 'findings-u2-pricing' / 'code-review-findings.json'}; "
        "give each unit's findings once\n"
    )
    assert not sarif.exists() and not md.exists()


def test_bad_input_is_named(tmp_path, capsys):
    assert main(["review", "summary", "--from", str(tmp_path / "none")]) == 2
    assert capsys.readouterr().err == f"--from {tmp_path / 'none'}: not a directory\n"
    assert main(["review", "summary", "--from", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"--from {tmp_path}: no code-review-findings.json found\n"
    (tmp_path / "code-review-findings.json").write_text('{"version": 1}')
    assert main(["review", "summary", "--from", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"{tmp_path / 'code-review-findings.json'}: ")
