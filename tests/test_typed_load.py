"""typed_load: the one way a file becomes a typed object, and how its problems are worded."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from aidlc_review.errors import InvalidInput, ValidationFailed
from aidlc_review.review.inputs.workspace_settings import load_settings
from aidlc_review.typed_load import key_path, keys_of, load_json, parse_json


class Write(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    path: str
    mode: int = 644


class Doc(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    version: int
    writes: list[Write]
    files: dict[str, str] = {}


def test_key_paths_read_like_json_paths() -> None:
    assert key_path(("writes", 2, "path"), "$") == "$.writes[2].path"
    assert key_path(("files", "src/a.py"), "$") == '$.files["src/a.py"]'
    assert key_path(("consumes", 0, "required")) == "consumes[0].required"
    assert key_path(("coverage-threshold",), "[tool.aidlc-review]") == (
        "[tool.aidlc-review].coverage-threshold"
    )


def test_the_known_keys_come_from_the_model_itself() -> None:
    assert keys_of(Doc) == {"": ["files", "version", "writes"], "writes": ["mode", "path"]}


def test_every_problem_of_a_json_file_is_named_with_its_path(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text(
        '{"version": "1", "writes": [{"path": "a"}, {"pth": "b"}], "files": {"x.py": 3}}'
    )
    with pytest.raises(ValidationFailed) as caught:
        load_json(Doc, path)
    assert str(caught.value).splitlines() == [
        f'{path}: $.files["x.py"]: must be a string, got 3',
        f'{path}: $.version: must be an integer, got "1"',
        f"{path}: $.writes[1].path: is required",
        f"{path}: $.writes[1].pth: unknown key (did you mean 'path'?)",
    ]


def test_a_kind_and_a_hint_frame_the_problems_on_one_line() -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_json(Doc, b'{"version": 1}', "state.json", what="state", hint="delete it")
    assert str(caught.value) == ("state.json: not a valid state: $.writes: is required; delete it")
    with pytest.raises(InvalidInput) as caught:
        parse_json(Doc, b"{", "state.json", what="state", hint="delete it")
    assert str(caught.value).startswith("state.json: not a valid state: not JSON: ")


def test_settings_name_the_toml_line_and_the_key_meant(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n'
        "[tool.aidlc-review]\n"
        'test-comand = "pytest"\n'
        "coverage-threshold = true\n"
        "\n[tool.aidlc-review.units.orders]\n"
        "base-revison = 'main'\n"
    )
    shown = tmp_path / "pyproject.toml"
    with pytest.raises(ValidationFailed) as caught:
        load_settings(tmp_path)
    assert str(caught.value).splitlines() == [
        f"{shown}:5: [tool.aidlc-review].test-comand: unknown key (did you mean 'test-command'?)",
        f"{shown}:6: [tool.aidlc-review].coverage-threshold: "
        "must be a number from 0 to 100, got true",
        f"{shown}:9: [tool.aidlc-review].units.orders.base-revison: unknown key "
        "(did you mean 'base-revision'?)",
    ]


def test_a_units_table_overrides_the_workspace_settings(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.aidlc-review]\ncoverage-threshold = 85\ntest-command = ['pytest', '-q']\n"
        "[tool.aidlc-review.units.orders]\ncoverage-threshold = 50\n"
    )
    settings = load_settings(tmp_path)
    assert settings.for_unit("orders").coverage_threshold == 50
    assert settings.for_unit("orders").test_command == ["pytest", "-q"]
    assert settings.for_unit(None).coverage_threshold == 85
