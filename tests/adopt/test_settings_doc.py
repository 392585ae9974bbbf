"""docs/settings.md is the reference a newcomer reads: its quick start runs as written, every
setting the model knows is in its table, and the published schemas hold for real files."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import tomllib

import jsonschema

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT
from aidlc_review.review.inputs.workspace_settings import WorkspaceSettings
from aidlc_review.review.record.schemas import MANIFEST_SCHEMA, SETTINGS_SCHEMA, load_schema
from tests.adopt.test_init import _project

DOC = PROJECT_ROOT / "docs" / "settings.md"
EXAMPLE = PROJECT_ROOT / "examples" / "inventory-service"


def _quick_start() -> list[str]:
    block = re.search(r"## Quick start.*?```sh\n(.*?)```", DOC.read_text(), re.S)
    assert block, "docs/settings.md has no quick start block"
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_quick_start_runs_as_written(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "your-project")
    monkeypatch.chdir(root)
    monkeypatch.setenv("GIT_AUTHOR_NAME", "t")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "t@e")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "t")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "t@e")
    ran = []
    for line in _quick_start():
        if line.startswith(("pip install", "cd ")):
            continue  # installed already; the project is the current directory
        for command in line.split(";"):
            for part in command.split("&&"):
                argv = shlex.split(part.replace("2>/dev/null", ""))
                if argv[0] == "aidlc-review":
                    assert main(argv[1:]) == 0, (part, capsys.readouterr())
                else:
                    subprocess.run(argv, check=False, capture_output=True)
                ran.append(argv[0])
    assert ran.count("aidlc-review") == 2
    assert "verdict: READY" in capsys.readouterr().out


def test_every_setting_is_in_the_table():
    table = set(re.findall(r"^\| `([a-z.<>-]+)` \|", DOC.read_text(), re.M))
    keys = {f.alias or name for name, f in WorkspaceSettings.model_fields.items()}
    assert {k if k != "units" else "units.<unit>" for k in keys} == table


def test_the_schemas_hold_for_the_example():
    manifest = json.loads(
        (
            EXAMPLE / "aidlc-docs/construction/u1-stock-ledger/code-generation/source-manifest.json"
        ).read_text()
    )
    jsonschema.validate(manifest, load_schema(MANIFEST_SCHEMA))
    table = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["tool"]["aidlc-review"]
    jsonschema.validate(table, load_schema(SETTINGS_SCHEMA))
    bad = {**table, "coverage-threshold": "high"}
    try:
        jsonschema.validate(bad, load_schema(SETTINGS_SCHEMA))
    except jsonschema.ValidationError as exc:
        assert list(exc.absolute_path) == ["coverage-threshold"]
    else:
        raise AssertionError("a threshold that is not a number passed the schema")


def test_review_json_carries_its_version(tmp_path, capsys):
    root = _project(tmp_path / "pkg")
    assert main(["init", "--workspace", str(root), "src/"]) == 0
    capsys.readouterr()

    assert main(["review", "status", "--workspace", str(root), "--json"]) == 0

    shown = json.loads(capsys.readouterr().out)
    assert list(shown)[0] == "json_version" and shown["json_version"] == 1
