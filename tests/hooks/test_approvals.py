"""An approval of code-review upstream records past the plugin is named, not trusted.

The hook reads text; it is not the only line. When upstream's state says code-review is
approved but a unit holds no READY approval by aidlc-review, the next ``review`` command
names it (``verify`` fails), and so do ``doctor`` and the CI gate."""

from __future__ import annotations

import json
from pathlib import Path

from aidlc_review.cli.main import main
from aidlc_review.hooks.approvals import unbacked_approvals

INTENT = "aidlc/spaces/default/intents/260101-greeting"


def approved_upstream(tmp_path: Path, checkbox: str = "x") -> Path:
    """An upstream record whose state has code-review approved, and unit u1 never reviewed."""
    record = tmp_path / INTENT
    (record / "construction/u1/code-generation").mkdir(parents=True)
    (record / "construction/u1/code-generation/source-manifest.json").write_text(
        json.dumps({"stage": "code-generation", "unit": "u1", "version": 1, "writes": []})
    )
    (record / "aidlc-state.md").write_text(
        "# State\n\n- **Current Stage**: build-and-test\n\n"
        "- [x] code-generation — EXECUTE\n"
        f"- [{checkbox}] code-review — EXECUTE\n"
        "- [-] build-and-test — EXECUTE\n"
    )
    return tmp_path


def test_a_code_review_upstream_approved_without_the_plugins_ready_is_named(tmp_path):
    workspace = approved_upstream(tmp_path)
    [line] = unbacked_approvals(workspace)
    assert "records code-review as approved, but unit u1 has no READY approval" in line
    assert "it was never reviewed" in line


def test_verify_fails_and_doctor_names_it(tmp_path, capsys):
    workspace = approved_upstream(tmp_path)

    assert main(["review", "verify", "--workspace", str(workspace), "--unit", "u1"]) == 1
    assert "unit u1 has no READY approval by aidlc-review" in capsys.readouterr().err
    assert main(["doctor", "--workspace", str(workspace)]) == 1
    assert "problem: upstream's state" in capsys.readouterr().out


def test_a_code_review_not_yet_approved_is_nothing_to_name(tmp_path):
    assert unbacked_approvals(approved_upstream(tmp_path, checkbox="-")) == []
