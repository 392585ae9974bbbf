"""``aidlc-review doctor`` reports what it finds; only bad input fails it."""

from __future__ import annotations

import json
import shutil

import pytest

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT
from tests import engine_export


@pytest.mark.engine
def test_an_upstream_project_with_its_active_record(tmp_path, capsys):
    project = tmp_path / "proj"
    shutil.copytree(engine_export.require() / ".claude", project / ".claude", symlinks=True)
    intent = project / "aidlc/spaces/main/intents/2026-orders"
    intent.mkdir(parents=True)
    assert main(["doctor", "--workspace", str(project), "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["harness"]["kind"] == "upstream AI-DLC harness"
    assert facts["harness"]["aidlc_version"] == ".".join(map(str, engine_export.version()))
    assert facts["harness"]["plugin_version"] is None
    assert facts["harness"]["engine_tools"] > 20
    assert facts["record"] == {"path": str(intent), "kind": "upstream active intent"}
    assert facts["definitions"] == {"path": str(PROJECT_ROOT), "from": "checkout"}
    assert set(facts["tools"]) == {"bun", "ruff", "mypy", "detect-secrets", "coverage", "pytest"}


def test_text_output_names_every_fact(tmp_path, capsys):
    assert main(["doctor", "--workspace", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (
        out.splitlines()[2] == f"harness: {PROJECT_ROOT}: source form (this plugin's own harness)"
    )
    for name in ("bun:", "ruff:", "mypy:", "detect-secrets:", "coverage:"):
        assert name in out
    assert f"record: {tmp_path / 'aidlc-docs'} (plain workspace)" in out


def test_two_intents_and_no_cursor_is_reported_not_raised(tmp_path, capsys):
    for name in ("a", "b"):
        (tmp_path / "aidlc/spaces/main/intents" / name).mkdir(parents=True)
    assert main(["doctor", "--workspace", str(tmp_path), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["record"]
    assert record["path"] is None
    assert "no active intent is set and there is not exactly one (a, b)" in record["problem"]


def test_a_missing_workspace_is_bad_input(tmp_path, capsys):
    assert main(["doctor", "--workspace", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == f"--workspace {tmp_path / 'nope'}: not a directory\n"
