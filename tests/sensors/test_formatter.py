"""formatter: the workspace's own formatter, check-only, on claimed files only."""

from __future__ import annotations

from pathlib import Path

from tests.sensors.support import (
    FORMATTED,
    RUFF_CONFIG,
    UNFORMATTED,
    located,
    make_workspace,
    run_one,
    tree_bytes,
)


def test_a_claimed_misformatted_file_is_found_and_an_unclaimed_one_next_to_it_is_not(
    tmp_path: Path,
) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {
            "pyproject.toml": RUFF_CONFIG,
            "src/claimed.py": UNFORMATTED,
            "src/neighbour.py": UNFORMATTED,
            "src/clean.py": FORMATTED,
        },
    )
    result = run_one(ws, ["src/claimed.py", "src/clean.py"], "formatter")
    assert result.status == "failed"
    assert (result.tool, result.command) == (
        "ruff",
        "ruff format --check --output-format json --no-force-exclude --no-cache -- <2 files>",
    )
    assert located(result) == [("src/claimed.py", 1, "formatter/unformatted", "minor")]
    assert (
        result.findings[0].message == "file is not formatted as the workspace's formatter requires"
    )


def test_the_formatter_never_writes_to_the_workspace(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": RUFF_CONFIG, "a.py": UNFORMATTED})
    before = sorted(p.relative_to(ws) for p in ws.rglob("*")), tree_bytes(ws)
    run_one(ws, ["a.py"], "formatter")
    assert (sorted(p.relative_to(ws) for p in ws.rglob("*")), tree_bytes(ws)) == before


def test_black_is_used_when_the_workspace_configures_black(tmp_path: Path) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {
            "pyproject.toml": "[tool.black]\nline-length = 88\n",
            "a.py": "x = {  'a':1 }\n",
            "b.py": 'x = {"a": 1}\n',
        },
    )
    result = run_one(ws, ["a.py", "b.py"], "formatter")
    assert (result.status, result.tool) == ("failed", "black")
    assert located(result) == [("a.py", 1, "formatter/unformatted", "minor")]


def test_ruff_toml_selects_ruff(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"ruff.toml": "line-length = 100\n", "a.py": FORMATTED})
    result = run_one(ws, ["a.py"], "formatter")
    assert (result.status, result.tool, result.findings) == ("passed", "ruff", ())


def test_a_workspace_without_formatter_config_is_skipped_with_the_reason(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"a.py": UNFORMATTED})
    result = run_one(ws, ["a.py"], "formatter")
    assert (result.status, result.findings) == ("skipped", ())
    assert result.reason == (
        "no formatter configured in the workspace (looked for .ruff.toml, "
        "pyproject.toml:tool.black, pyproject.toml:tool.ruff, ruff.toml)"
    )


def test_a_file_that_does_not_parse_is_a_major_finding(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": RUFF_CONFIG, "a.py": "def f(:\n"})
    result = run_one(ws, ["a.py"], "formatter")
    assert result.status == "failed"
    assert located(result)[0] == ("a.py", 1, "formatter/unparseable", "major")


def test_claimed_files_named_like_options_are_passed_as_file_names(tmp_path: Path) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {"pyproject.toml": RUFF_CONFIG, "--help.py": UNFORMATTED, "-rf.py": UNFORMATTED},
    )
    result = run_one(ws, ["--help.py", "-rf.py"], "formatter")
    assert located(result) == [
        ("--help.py", 1, "formatter/unformatted", "minor"),
        ("-rf.py", 1, "formatter/unformatted", "minor"),
    ]
    assert (ws / "-rf.py").read_text() == UNFORMATTED


def test_an_advisory_formatter_never_blocks(tmp_path: Path) -> None:
    from tests.sensors.support import project_manifest

    ws = make_workspace(tmp_path / "ws", {"pyproject.toml": RUFF_CONFIG, "a.py": "def f(:\n"})
    result = run_one(ws, ["a.py"], project_manifest("formatter", default_severity="advisory"))
    assert {f.severity for f in result.findings} == {"minor"}
    assert not result.blocking


FIRST_CHANGE_AT_6 = '"""Doc."""\n\nimport os\n\n\ndef f(a,b):\n    return a+b\n\nx = [1,\n  2]\n'


def test_the_finding_is_located_at_the_first_line_the_formatter_would_change(
    tmp_path: Path,
) -> None:
    ruff = make_workspace(
        tmp_path / "ruff", {"pyproject.toml": RUFF_CONFIG, "a.py": FIRST_CHANGE_AT_6}
    )
    black = make_workspace(
        tmp_path / "black",
        {"pyproject.toml": "[tool.black]\n", "a.py": FIRST_CHANGE_AT_6, "b.py": UNFORMATTED},
    )
    assert located(run_one(ruff, ["a.py"], "formatter")) == [
        ("a.py", 6, "formatter/unformatted", "minor")
    ]
    result = run_one(black, ["a.py", "b.py"], "formatter")
    assert (result.tool, result.command) == ("black", "black --check --diff -- <2 files>")
    assert located(result) == [
        ("a.py", 6, "formatter/unformatted", "minor"),
        ("b.py", 1, "formatter/unformatted", "minor"),
    ]
    assert "def f" not in "".join(f.message for f in result.findings)  # no source quoted


def test_a_file_black_cannot_parse_is_a_major_finding_beside_a_file_it_would_reformat(
    tmp_path: Path,
) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {"pyproject.toml": "[tool.black]\n", "a.py": "x = 1\ndef f(:\n", "b.py": UNFORMATTED},
    )
    result = run_one(ws, ["a.py", "b.py"], "formatter")
    assert (result.status, result.tool) == ("failed", "black")
    assert located(result) == [
        ("a.py", 2, "formatter/unparseable", "major"),
        ("b.py", 1, "formatter/unformatted", "minor"),
    ]
    assert "def f" not in "".join(f.message for f in result.findings)  # no source quoted
