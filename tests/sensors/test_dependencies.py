"""dependencies: what the unit adds or loosens against the base revision, unless approved."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.sensors.support import fake_tool, make_workspace, run_one

PYPROJECT = """[project]
name = "shop"
version = "1.0"
dependencies = [
    "requests>=2.31",
]

[project.optional-dependencies]
dev = ["pytest>=8"]
{tool}"""


def pyproject(
    deps: str = '    "requests>=2.31",\n', dev: str = '"pytest>=8"', tool: str = ""
) -> str:
    text = PYPROJECT.replace('    "requests>=2.31",\n', deps).replace('"pytest>=8"', dev)
    return text.format(tool=tool)


def git(ws: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=ws,
        check=True,
        capture_output=True,
    )


def commit(ws: Path, files: dict[str, str]) -> None:
    make_workspace(ws, files)
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "base")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    git(root, "init", "-q")
    commit(root, {"pyproject.toml": pyproject(), "requirements.txt": "flask>=2,<3\n"})
    return root


def findings(result) -> list[tuple[str, int | None, str | None, str, str]]:
    return [(f.path, f.line, f.rule, f.severity, f.message) for f in result.findings]


def test_a_dependency_the_unit_adds_to_pyproject_is_a_major_finding(ws: Path) -> None:
    (ws / "pyproject.toml").write_text(pyproject('    "requests>=2.31",\n    "httpx>=0.27",\n'))
    result = run_one(ws, ["pyproject.toml"], "dependencies")
    assert result.status == "failed" and result.blocking
    assert findings(result) == [
        (
            "pyproject.toml",
            6,
            "dependencies/added",
            "major",
            "added dependency httpx>=0.27 (project dependencies), not on the approved list",
        )
    ]
    assert result.details["base"] == "HEAD"
    assert result.details["audit"] == {
        "status": "skipped",
        "reason": "no tool.aidlc-review dependency-audit configured",
    }


def test_once_approved_on_the_base_the_same_dependency_passes(ws: Path) -> None:
    approved = '\n[tool.aidlc-review]\napproved-dependencies = ["httpx>=0.20"]\n'
    commit(ws, {"pyproject.toml": pyproject(tool=approved)})
    (ws / "pyproject.toml").write_text(
        pyproject('    "requests>=2.31",\n    "httpx>=0.27",\n', tool=approved)
    )
    result = run_one(ws, ["pyproject.toml"], "dependencies")
    assert (result.status, result.findings) == ("passed", ())
    assert result.details["approved"] == ["pyproject.toml: httpx>=0.27 (approved: httpx>=0.20)"]


def test_an_approval_the_unit_writes_itself_does_not_count(ws: Path) -> None:
    approved = '\n[tool.aidlc-review]\napproved-dependencies = ["httpx"]\n'
    (ws / "pyproject.toml").write_text(
        pyproject('    "requests>=2.31",\n    "httpx>=0.27",\n', tool=approved)
    )
    result = run_one(ws, ["pyproject.toml"], "dependencies")
    [finding] = result.findings
    assert finding.severity == "major"
    assert finding.message == (
        "added dependency httpx>=0.27 (project dependencies), not on the approved list; only "
        "this change lists it in approved-dependencies, and an approval counts once it is on "
        "the base revision (HEAD)"
    )


def test_an_approval_narrower_than_the_requirement_does_not_cover_it(ws: Path) -> None:
    commit(
        ws,
        {
            "pyproject.toml": pyproject(
                tool='\n[tool.aidlc-review]\napproved-dependencies = ["httpx>=0.27"]\n'
            )
        },
    )
    text = (
        (ws / "pyproject.toml")
        .read_text()
        .replace('"requests>=2.31",', '"requests>=2.31",\n    "httpx>=0.20",')
    )
    (ws / "pyproject.toml").write_text(text)
    result = run_one(ws, ["pyproject.toml"], "dependencies")
    assert [f.rule for f in result.findings] == ["dependencies/added"]


def test_a_loosened_specifier_is_reported_in_pyproject_groups_and_requirements_files(
    ws: Path,
) -> None:
    (ws / "pyproject.toml").write_text(pyproject(dev='"pytest>=7"'))
    (ws / "requirements.txt").write_text("flask>=2\n--extra-index-url https://pkgs.example\n")
    result = run_one(ws, ["pyproject.toml", "requirements.txt"], "dependencies")
    assert findings(result) == [
        (
            "pyproject.toml",
            9,
            "dependencies/loosened",
            "major",
            "loosened dependency pytest: pytest>=8 -> pytest>=7 (optional group 'dev'), "
            "not on the approved list",
        ),
        (
            "requirements.txt",
            1,
            "dependencies/loosened",
            "major",
            "loosened dependency flask: flask<3,>=2 -> flask>=2 (requirements), "
            "not on the approved list",
        ),
        (
            "requirements.txt",
            2,
            "dependencies/unreadable",
            "major",
            "new dependency line this sensor cannot read, review it by hand: "
            "--extra-index-url https://pkgs.example",
        ),
    ]


def test_a_tightened_or_unchanged_declaration_is_not_reported(ws: Path) -> None:
    (ws / "pyproject.toml").write_text(pyproject('    "requests>=2.32,<3",\n'))
    (ws / "requirements.txt").write_text("# pinned\nflask>=2.3,<3  # web\n")
    result = run_one(ws, ["pyproject.toml", "requirements.txt"], "dependencies")
    assert (result.status, result.findings) == ("passed", ())


def test_a_lock_file_reports_the_packages_it_adds_beyond_the_declared_ones(ws: Path) -> None:
    lock = '[[package]]\nname = "requests"\nversion = "2.32.0"\n'
    commit(ws, {"uv.lock": lock})
    (ws / "pyproject.toml").write_text(pyproject('    "requests>=2.31",\n    "httpx>=0.27",\n'))
    (ws / "uv.lock").write_text(
        lock + '\n[[package]]\nname = "httpx"\nversion = "0.27.0"\n'
        '\n[[package]]\nname = "anyio"\nversion = "4.4.0"\n'
    )
    result = run_one(ws, ["pyproject.toml", "uv.lock"], "dependencies")
    assert [(f.path, f.message) for f in result.findings] == [
        (
            "pyproject.toml",
            "added dependency httpx>=0.27 (project dependencies), not on the approved list",
        ),
        (
            "uv.lock",
            "the lock file adds 1 package(s) no claimed declaration adds and the approved "
            "list does not cover: anyio==4.4.0",
        ),
    ]


def test_the_configured_audit_runs_and_its_failure_is_a_major_finding(
    ws: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    fake_tool(
        bin_dir,
        "audit-deps",
        "import sys\nprint('Found 1 known vulnerability in flask')\nsys.exit(1)\n",
    )
    git_dir = Path(shutil.which("git") or "git").parent
    commit(
        ws,
        {
            "pyproject.toml": pyproject(
                tool="\n[tool.aidlc-review]\n"
                'dependency-audit = ["audit-deps", "-r", "requirements.txt"]\n'
            )
        },
    )
    (ws / "requirements.txt").write_text("flask>=2.3,<3\n")
    settings = {"tool_path": f"{bin_dir}:{git_dir}"}
    result = run_one(ws, ["requirements.txt"], "dependencies", settings=settings)
    assert findings(result) == [
        (
            "",
            None,
            "dependencies/audit",
            "major",
            "the dependency audit `audit-deps -r requirements.txt` exited 1: "
            "Found 1 known vulnerability in flask",
        )
    ]
    assert result.details["audit"]["status"] == "failed"


def test_outside_a_git_repository_it_could_not_verify(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "plain", {"pyproject.toml": pyproject()})
    result = run_one(ws, ["pyproject.toml"], "dependencies")
    assert result.status == "error" and result.blocking
    assert result.reason.startswith(
        "base revision 'HEAD' not found in the workspace's git repository"
    )


def test_no_claimed_dependency_file_is_skipped(ws: Path) -> None:
    (ws / "app.py").write_text("x = 1\n")
    result = run_one(ws, ["app.py"], "dependencies")
    assert result.status == "skipped" and not result.blocking


def test_the_same_requirement_added_to_another_group_is_located_in_that_group(ws: Path) -> None:
    (ws / "pyproject.toml").write_text(pyproject(dev='"pytest>=8", "requests>=2.31"'))
    result = run_one(ws, ["pyproject.toml"], "dependencies")
    assert findings(result) == [
        (
            "pyproject.toml",
            9,
            "dependencies/added",
            "major",
            "added dependency requests>=2.31 (optional group 'dev'), not on the approved list",
        )
    ]


PRACTICES = "aidlc-docs/inception/practices-discovery/team-practices.md"
PRACTICES_TEXT = (
    "# Team practices\n\n## Code Style\n\n- ruff\n\n"
    "## Approved dependencies\n\n- `httpx>=0.27`\n- rich\n\n## Deployment\n\n- containers\n"
)


def test_the_team_practices_file_at_the_base_approves_too(ws: Path) -> None:
    commit(ws, {PRACTICES: PRACTICES_TEXT})
    (ws / "pyproject.toml").write_text(pyproject('    "requests>=2.31",\n    "httpx>=0.28",\n'))
    settings = {"team_practices": str(ws / PRACTICES)}
    result = run_one(ws, ["pyproject.toml"], "dependencies", settings=settings)
    assert (result.status, result.findings) == ("passed", ())
    assert result.details["approved"] == ["pyproject.toml: httpx>=0.28 (approved: httpx>=0.27)"]


def test_an_approval_added_to_team_practices_by_the_change_does_not_count(ws: Path) -> None:
    make_workspace(ws, {PRACTICES: PRACTICES_TEXT})  # written, not committed
    (ws / "pyproject.toml").write_text(pyproject('    "requests>=2.31",\n    "httpx>=0.28",\n'))
    result = run_one(ws, ["pyproject.toml"], "dependencies", settings={"team_practices": PRACTICES})
    assert [f.rule for f in result.findings] == ["dependencies/added"]
