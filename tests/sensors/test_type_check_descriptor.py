"""type-check runs its own tool as the descriptor says: the flags of its report, its scope
from the project's config, its findings under the tool's own codes (the ledger's ids)."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.harness.definitions.sensor import SensorManifest
from tests.sensors.support import MYPY_CONFIG, located, make_workspace, project_manifest, run_one


def _with_report_flags(flags: list[str]) -> SensorManifest:
    """type-check whose own tool prints its report with ``flags`` (in argv and ``flags``)."""
    manifest = project_manifest("type-check")
    assert manifest.runner is not None
    [own] = [spec for spec in manifest.runner.tools if spec.format is None]
    argv = [own.argv[0], *flags, "--no-error-summary", "--show-error-codes"]
    changed = own.model_copy(update={"argv": argv, "flags": {**own.flags, "report": flags}})
    tools = [changed if spec is own else spec for spec in manifest.runner.tools]
    return project_manifest("type-check", runner={"tools": tools})


def test_a_tool_that_refuses_its_report_flags_is_read_in_the_fallback_format(
    tmp_path: Path,
) -> None:
    ws = make_workspace(tmp_path / "ws", {"mypy.ini": MYPY_CONFIG, "app.py": 'n: int = "3"\n'})
    refused = _with_report_flags(["--output", "json", "--no-such-flag"])

    read_as_text = run_one(ws, ["app.py"], refused)
    read_as_json = run_one(ws, ["app.py"], "type-check")

    assert located(read_as_text) == located(read_as_json) == [("app.py", 1, "assignment", "major")]
    assert [f.message for f in read_as_text.findings] == [f.message for f in read_as_json.findings]


def test_claimed_files_outside_the_configured_files_are_not_given_to_the_tool(
    tmp_path: Path,
) -> None:
    files = {
        "pyproject.toml": '[tool.mypy]\nfiles = ["src"]\n',
        "src/a.py": 'n: int = "3"\n',
        "tests/test_a.py": 'm: int = "4"\n',
    }
    ws, said = make_workspace(tmp_path / "ws", files), []

    result = run_one(ws, ["src/a.py", "tests/test_a.py"], "type-check", progress=said.append)

    assert located(result) == [("src/a.py", 1, "assignment", "major")]
    assert "type-check: 1 claimed file(s) outside the project's mypy `files`" in said
