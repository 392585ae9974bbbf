"""The source manifest names what code-generation claims; anything pointing outside is refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from aidlc_review.errors import InvalidInput
from aidlc_review.review.inputs.source_manifest import (
    Claim,
    claimed_files,
    manifest_for_paths,
    read_source_manifest,
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for name in (
        "src/a.py",
        "src/gen/one.py",
        "src/gen/deep/two.py",
        "src/gen/__pycache__/one.pyc",
        "src/gen/.git/HEAD",
        "repo-a/x.ts",
        "docs/readme.md",
    ):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n")
    (tmp_path / "outside.py").write_text("secret = 1\n")
    (tmp_path / "outside").mkdir()
    return root


def write(workspace: Path, data: object) -> Path:
    path = workspace / "source-manifest.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def manifest(*writes: dict[str, str], **top: object) -> dict[str, object]:
    return {
        "stage": "code-generation",
        "unit": "u1-auth",
        "version": 1,
        "writes": list(writes),
        **top,
    }


def test_a_valid_manifest_is_read_with_its_claims_as_written(workspace: Path) -> None:
    path = write(
        workspace,
        manifest({"path": "src/a.py"}, {"path": "src/gen/"}, {"repo": "repo-a", "path": "x.ts"}),
    )
    read = read_source_manifest(path, workspace)
    assert (read.stage, read.unit, read.version) == ("code-generation", "u1-auth", 1)
    assert read.raw == path.read_bytes()
    assert read.claims == (
        Claim("src/a.py", None, False),
        Claim("src/gen/", None, True),
        Claim("x.ts", "repo-a", False),
    )


def test_claimed_files_expand_directories_skipping_git_and_pycache(workspace: Path) -> None:
    path = write(
        workspace,
        manifest({"path": "src/gen/"}, {"path": "src/a.py"}, {"repo": "repo-a", "path": "x.ts"}),
    )
    files = claimed_files(read_source_manifest(path, workspace), workspace)
    assert files == ["repo-a/x.ts", "src/a.py", "src/gen/deep/two.py", "src/gen/one.py"]


def test_a_stage_level_manifest_has_no_unit(workspace: Path) -> None:
    data = manifest({"path": "src/a.py"})
    del data["unit"]
    assert read_source_manifest(write(workspace, data), workspace).unit is None


def test_a_symlink_planted_inside_a_claimed_directory_after_reading_is_refused(
    workspace: Path, tmp_path: Path
) -> None:
    read = read_source_manifest(write(workspace, manifest({"path": "src/gen/"})), workspace)
    os.symlink(tmp_path / "outside.py", workspace / "src/gen/leak.py")
    with pytest.raises(InvalidInput) as caught:
        claimed_files(read, workspace)
    assert (
        str(caught.value)
        == f"src/gen/leak.py: resolves outside the workspace {workspace.resolve()}"
    )


def test_symlinks_that_stay_inside_the_workspace_are_fine(workspace: Path) -> None:
    os.symlink(workspace / "docs/readme.md", workspace / "src/gen/readme.md")
    read = read_source_manifest(write(workspace, manifest({"path": "src/gen/"})), workspace)
    assert "src/gen/readme.md" in claimed_files(read, workspace)


def test_paths_from_the_command_line_are_checked_like_a_manifest(workspace: Path) -> None:
    assert claimed_files(manifest_for_paths(["src/a.py"], workspace), workspace) == ["src/a.py"]
    with pytest.raises(InvalidInput) as caught:
        manifest_for_paths(["../outside.py"], workspace)
    assert (
        str(caught.value)
        == "<command line>: $.writes[0].path: must not contain '..', got '../outside.py'"
    )


REFUSED = [
    ("not-json", '{"stage": ', "not JSON: Expecting value: line 1 column 11 (char 10)"),
    ("list", [], "$: must be a mapping, got a list"),
    ("version-2", manifest({"path": "src/a.py"}, version=2), "$.version: must be one of 1; got 2"),
    (
        "version-text",
        manifest({"path": "src/a.py"}, version="1"),
        '$.version: must be one of 1; got "1"',
    ),
    (
        "stage",
        manifest({"path": "src/a.py"}, stage="code-review"),
        '$.stage: must be one of code-generation; got "code-review"',
    ),
    (
        "unit-empty",
        manifest({"path": "src/a.py"}, unit=""),
        '$.unit: must be a non-empty string when present, got ""',
    ),
    (
        "unknown-key",
        manifest({"path": "src/a.py"}, generated_at="now"),
        "$.generated_at: unknown key",
    ),
    (
        "writes-missing",
        {"stage": "code-generation", "version": 1},
        "$.writes: is required",
    ),
    (
        "misspelt-key",
        {"stage": "code-generation", "version": 1, "write": [{"path": "src/a.py"}]},
        "$.write: unknown key (did you mean 'writes'?)\n{path}: $.writes: is required",
    ),
    ("write-not-object", manifest("src/a.py"), '$.writes[0]: must be a mapping, got "src/a.py"'),
    (
        "write-unknown-key",
        manifest({"path": "src/a.py", "sha": "x"}),
        "$.writes[0].sha: unknown key",
    ),
    (
        "path-missing",
        manifest({"repo": "repo-a"}),
        "$.writes[0].path: is required",
    ),
    (
        "absolute",
        manifest({"path": "src/a.py"}, {"path": "/etc/passwd"}),
        "$.writes[1].path: must be relative to the workspace, got '/etc/passwd'",
    ),
    (
        "dotdot",
        manifest({"path": "src/../../outside.py"}),
        "$.writes[0].path: must not contain '..', got 'src/../../outside.py'",
    ),
    (
        "repo-dotdot",
        manifest({"repo": "..", "path": "outside.py"}),
        "$.writes[0].repo: must not contain '..', got '..'",
    ),
    (
        "not-normalised",
        manifest({"path": "src//a.py"}),
        "$.writes[0].path: must be a normalised path (no '//' or './'), got 'src//a.py'",
    ),
    (
        "duplicate",
        manifest({"path": "src/a.py"}, {"path": "src/gen/"}, {"path": "src/a.py"}),
        "$.writes[2].path: duplicate of $.writes[0] ('src/a.py')",
    ),
    (
        "duplicate-via-repo",
        manifest({"path": "repo-a/x.ts"}, {"repo": "repo-a", "path": "x.ts"}),
        "$.writes[1].path: duplicate of $.writes[0] ('repo-a/x.ts')",
    ),
    (
        "missing-file",
        manifest({"path": "src/none.py"}),
        "$.writes[0].path: 'src/none.py' does not exist in the workspace",
    ),
    (
        "dir-without-slash",
        manifest({"path": "src/gen"}),
        "$.writes[0].path: 'src/gen' is a directory; claim it as 'src/gen/'",
    ),
    (
        "file-with-slash",
        manifest({"path": "src/a.py/"}),
        "$.writes[0].path: 'src/a.py/' is not a directory in the workspace",
    ),
    (
        "symlink-file-outside",
        manifest({"path": "src/link.py"}),
        "$.writes[0].path: 'src/link.py' resolves outside the workspace",
    ),
    (
        "symlink-dir-outside",
        manifest({"path": "src/out/"}),
        "$.writes[0].path: 'src/out' resolves outside the workspace",
    ),
]


@pytest.mark.parametrize("data, message", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_a_malformed_manifest_is_refused_with_its_message(
    workspace: Path, tmp_path: Path, data: object, message: str
) -> None:
    os.symlink(tmp_path / "outside.py", workspace / "src/link.py")
    os.symlink(tmp_path / "outside", workspace / "src/out")
    path = write(workspace, data)
    with pytest.raises(InvalidInput) as caught:
        read_source_manifest(path, workspace)
    assert str(caught.value) == f"{path}: {message}".replace("{path}", str(path))


def test_repo_claims_are_refused_inside_a_git_worktree(workspace: Path) -> None:
    (workspace / ".git").write_text("gitdir: /elsewhere/.git/worktrees/u1\n")
    path = write(workspace, manifest({"repo": "repo-a", "path": "x.ts"}))
    with pytest.raises(InvalidInput) as caught:
        read_source_manifest(path, workspace)
    assert (
        str(caught.value)
        == f"{path}: $.writes[0].repo: repo claims are not allowed inside a git worktree"
    )


def test_an_unreadable_manifest_is_refused(workspace: Path) -> None:
    path = workspace / "nope.json"
    with pytest.raises(InvalidInput) as caught:
        read_source_manifest(path, workspace)
    assert (
        str(caught.value) == f"{path}: cannot read the source manifest: No such file or directory"
    )


def test_the_cli_exits_2_on_a_malformed_manifest(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(workspace, manifest({"path": "/etc/passwd"}))
    code = main(["sensors", "run", "--workspace", str(workspace), "--manifest", str(path)])
    assert code == 2
    assert capsys.readouterr().err == (
        f"{path}: $.writes[0].path: must be relative to the workspace, got '/etc/passwd'\n"
    )
