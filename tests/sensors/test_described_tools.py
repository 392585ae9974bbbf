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


def test_a_project_wide_type_checkers_errors_outside_the_unit_are_counted_not_judged(
    tmp_path: Path,
) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {
            "tsconfig.json": "{}\n",
            "src/a.ts": "export const a = x;\n",
            "src/other.ts": "export const b = y;\n",
        },
    )
    fake = ws / "node_modules" / ".bin" / "tsc"
    fake.parent.mkdir(parents=True)
    # a stand-in for the project's compiler: tsc's --pretty false text, one error in the
    # claimed file and two in a file the unit does not claim
    fake.write_text(
        "#!/bin/sh\n"
        'case "$1" in --version) echo "Version 5.9.2"; exit 0;; esac\n'
        "echo \"src/a.ts(1,18): error TS2304: Cannot find name 'x'.\"\n"
        "echo \"src/other.ts(1,18): error TS2304: Cannot find name 'y'.\"\n"
        "echo \"src/other.ts(1,1): error TS6133: 'b' is declared but its value is never read.\"\n"
        "exit 2\n"
    )
    fake.chmod(0o755)

    result = run_one(ws, ["src/a.ts"], "type-check")

    assert [(f.path, f.line) for f in result.findings] == [("src/a.ts", 1)]
    assert result.details["outside_unit"] == ["2 tsc finding(s) outside the unit's files"]
