"""A tool the workspace configures but has not installed is named, never read as clean."""

from __future__ import annotations

from pathlib import Path

from tests.sensors.support import make_workspace, run_one


def test_a_configured_type_checker_that_is_not_installed_is_named(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"tsconfig.json": "{}\n", "src/a.ts": "export {};\n"})
    (tmp_path / "empty").mkdir()

    result = run_one(
        ws, ["src/a.ts"], "type-check", settings={"tool_path": str(tmp_path / "empty")}
    )

    assert result.status == "skipped"
    assert result.reason == (
        "no type-check ran for 1 claimed file(s): the workspace configures tsc but has not "
        "installed it (looked in node_modules/.bin, .venv/bin and PATH; the review never "
        "installs anything)"
    )
