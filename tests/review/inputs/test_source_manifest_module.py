"""``review.inputs.source_manifest``: what code generation claims, checked to stay in the tree."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aidlc_review.errors import InvalidInput, ValidationFailed
from aidlc_review.review.inputs.source_manifest import (
    Claim,
    claimed_files,
    manifest_for_paths,
    parse_source_manifest,
    read_source_manifest,
    unreadable_claims,
)
from aidlc_review.sensors.redact import scrub
from tests.review.workspace import FAKE_KEY, git, make_workspace, write

SHOWN = Path("sm.json")
HEAD = {"stage": "code-generation", "version": 1}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A plain tree (no git): two files in a package folder and one beside it."""
    root = tmp_path / "ws"
    for rel in ("src/pkg/a.py", "src/pkg/b.py", "src/main.py", "lib/util.py"):
        write(root / rel, "x = 1\n")
    return root


def parse(ws: Path, writes: list[dict], **top: object) -> list[Claim]:
    raw = json.dumps({**HEAD, **top, "writes": writes}).encode()
    return list(parse_source_manifest(raw, SHOWN, ws).claims)


def refusal(ws: Path, raw: bytes | dict, kind: type[Exception] = InvalidInput) -> str:
    data = raw if isinstance(raw, bytes) else json.dumps(raw).encode()
    with pytest.raises(kind) as caught:
        parse_source_manifest(data, SHOWN, ws)
    assert type(caught.value) is kind
    return str(caught.value)


def claim_refusal(ws: Path, *writes: dict, kind: type[Exception] = InvalidInput) -> str:
    return refusal(ws, {**HEAD, "writes": list(writes)}, kind)


def test_a_manifest_read_from_disk_keeps_its_bytes_and_its_claims(ws: Path) -> None:
    path = ws / "sm.json"
    text = json.dumps(
        {**HEAD, "unit": "u1", "writes": [{"path": "src/main.py"}, {"path": "src/pkg/"}]}
    )
    path.write_text(text)

    manifest = read_source_manifest(path, ws)

    assert (manifest.path, manifest.raw) == (path, text.encode())
    assert (manifest.stage, manifest.unit, manifest.version) == ("code-generation", "u1", 1)
    assert manifest.claims == (
        Claim("src/main.py", None, is_dir=False),
        Claim("src/pkg/", None, is_dir=True),
    )


def test_the_unit_is_optional(ws: Path) -> None:
    raw = json.dumps({**HEAD, "writes": []}).encode()
    manifest = parse_source_manifest(raw, SHOWN, ws)
    assert (manifest.unit, manifest.claims) == (None, ())


def test_a_claim_s_relative_path_joins_its_repo_and_drops_the_trailing_slash() -> None:
    assert Claim("src/pkg/", None, is_dir=True).relative == "src/pkg"
    assert Claim("pkg/a.py", "src", is_dir=False).relative == "src/pkg/a.py"
    assert Claim("pkg/", "src", is_dir=True).relative == "src/pkg"


def test_a_repo_claim_names_a_file_inside_that_repo(ws: Path) -> None:
    claims = parse(ws, [{"repo": "src", "path": "pkg/a.py"}])
    assert [c.relative for c in claims] == ["src/pkg/a.py"]


def test_an_unreadable_manifest_is_refused_with_the_reason(ws: Path) -> None:
    with pytest.raises(InvalidInput) as caught:
        read_source_manifest(ws / "none.json", ws)
    assert str(caught.value) == (
        f"{ws / 'none.json'}: cannot read the source manifest: No such file or directory"
    )
    with pytest.raises(InvalidInput) as caught:
        read_source_manifest(ws / "src", ws)
    assert str(caught.value) == f"{ws / 'src'}: cannot read the source manifest: Is a directory"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "sm.json: not JSON: Expecting value: line 1 column 1 (char 0)"),
        (b"[]", "sm.json: $: must be a mapping, got a list"),
        (
            {**HEAD, "stage": "code-review", "writes": []},
            'sm.json: $.stage: must be one of code-generation; got "code-review"',
        ),
        ({**HEAD, "version": 2, "writes": []}, "sm.json: $.version: must be one of 1; got 2"),
        ({**HEAD, "version": "1", "writes": []}, 'sm.json: $.version: must be one of 1; got "1"'),
        (
            {**HEAD, "write": []},
            "sm.json: $.write: unknown key (did you mean 'writes'?)\n"
            "sm.json: $.writes: is required",
        ),
        ({**HEAD, "writes": {}}, "sm.json: $.writes: must be a list, got a mapping"),
        ({**HEAD, "writes": [{"path": 3}]}, "sm.json: $.writes[0].path: must be a string, got 3"),
        (
            {**HEAD, "writes": [{"path": "src/main.py", "mode": "w"}]},
            "sm.json: $.writes[0].mode: unknown key",
        ),
        ({**HEAD, "writes": [{}]}, "sm.json: $.writes[0].path: is required"),
        ({**HEAD, "unit": 3, "writes": []}, "sm.json: $.unit: must be a string, got 3"),
        (
            {**HEAD, "unit": " ", "writes": []},
            'sm.json: $.unit: must be a non-empty string when present, got " "',
        ),
    ],
    ids=[
        "empty",
        "not-a-mapping",
        "other-stage",
        "other-version",
        "version-as-text",
        "misspelt-key",
        "writes-not-a-list",
        "path-not-a-string",
        "unknown-write-key",
        "no-path",
        "unit-not-a-string",
        "blank-unit",
    ],
)
def test_a_malformed_manifest_is_refused_with_its_json_path(
    ws: Path, raw: bytes | dict, message: str
) -> None:
    assert refusal(ws, raw, ValidationFailed) == message


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("", 'must be a non-empty relative path, got ""'),
        ("/", 'must be a non-empty relative path, got "/"'),
        ("a\tb", "must not contain control characters, got 'a\\tb'"),
        ("/etc/passwd", "must be relative to the workspace, got '/etc/passwd'"),
        ("src\\main.py", "must be relative to the workspace, got 'src\\\\main.py'"),
        ("C:x", "must be relative to the workspace, got 'C:x'"),
        ("../x", "must not contain '..', got '../x'"),
        ("src/../lib/util.py", "must not contain '..', got 'src/../lib/util.py'"),
        ("src//main.py", "must be a normalised path (no '//' or './'), got 'src//main.py'"),
        ("./src/main.py", "must be a normalised path (no '//' or './'), got './src/main.py'"),
        ("src/./main.py", "must be a normalised path (no '//' or './'), got 'src/./main.py'"),
        (".git/config", "must not name git's own files (a .git component), got '.git/config'"),
        ("sub/.Git/", "must not name git's own files (a .git component), got 'sub/.Git/'"),
    ],
)
def test_a_claimed_path_must_be_a_plain_relative_path(ws: Path, path: str, problem: str) -> None:
    assert claim_refusal(ws, {"path": path}, kind=ValidationFailed) == (
        f"sm.json: $.writes[0].path: {problem}"
    )


def test_the_repo_of_a_claim_is_held_to_the_same_rules(ws: Path) -> None:
    assert claim_refusal(ws, {"repo": "../x", "path": "a.py"}, kind=ValidationFailed) == (
        "sm.json: $.writes[0].repo: must not contain '..', got '../x'"
    )


def test_every_malformed_claim_is_named_at_once_in_order(ws: Path) -> None:
    writes = [{"path": "src/main.py"}, {"path": "/x"}, {"path": "../y"}]
    assert claim_refusal(ws, *writes, kind=ValidationFailed) == (
        "sm.json: $.writes[1].path: must be relative to the workspace, got '/x'\n"
        "sm.json: $.writes[2].path: must not contain '..', got '../y'"
    )


def test_a_claimed_name_holding_a_secret_is_refused_naming_only_its_marker(ws: Path) -> None:
    name = f"src/{FAKE_KEY}.py"
    write(ws / name, "x = 1\n")
    shown, _ = scrub(name)

    message = claim_refusal(ws, {"path": name}, kind=ValidationFailed)

    assert message == (
        f"sm.json: $.writes[0].path: names a secret ({shown}); "
        "rename it so no secret is in its path"
    )
    assert FAKE_KEY not in message


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("src/nope.py", "'src/nope.py' does not exist in the workspace"),
        ("src/*.py", "'src/*.py' does not exist in the workspace"),  # a glob is not expanded
        ("src/pkg", "'src/pkg' is a directory; claim it as 'src/pkg/'"),
        ("src/main.py/", "'src/main.py/' is not a directory in the workspace"),
        ("src/gone/", "'src/gone/' is not a directory in the workspace"),
    ],
)
def test_a_claim_must_name_what_is_in_the_workspace(ws: Path, path: str, problem: str) -> None:
    assert claim_refusal(ws, {"path": path}) == f"sm.json: $.writes[0].path: {problem}"


def test_a_claim_that_a_symlink_takes_outside_the_workspace_is_refused(
    ws: Path, tmp_path: Path
) -> None:
    write(tmp_path / "secret.txt", "s\n")
    (ws / "src/out.txt").symlink_to(tmp_path / "secret.txt")
    (ws / "src/outdir").symlink_to(tmp_path, target_is_directory=True)

    assert claim_refusal(ws, {"path": "src/out.txt"}) == (
        "sm.json: $.writes[0].path: 'src/out.txt' resolves outside the workspace"
    )
    assert claim_refusal(ws, {"path": "src/outdir/"}) == (
        "sm.json: $.writes[0].path: 'src/outdir' resolves outside the workspace"
    )


def test_a_claim_that_a_symlink_takes_into_git_s_files_is_refused(ws: Path) -> None:
    git(ws, "init", "-q")
    (ws / "src/meta").symlink_to(ws / ".git", target_is_directory=True)
    assert claim_refusal(ws, {"path": "src/meta/"}) == (
        "sm.json: $.writes[0].path: 'src/meta' resolves into a .git directory"
    )


def test_a_symlink_that_stays_inside_the_workspace_may_be_claimed(ws: Path) -> None:
    (ws / "src/alias.py").symlink_to(ws / "lib/util.py")
    assert [c.relative for c in parse(ws, [{"path": "src/alias.py"}])] == ["src/alias.py"]


@pytest.mark.parametrize(
    "second",
    [{"path": "src/main.py"}, {"repo": "src", "path": "main.py"}],
    ids=["same-path", "same-file-through-repo"],
)
def test_a_claim_made_twice_is_refused_naming_the_first(ws: Path, second: dict) -> None:
    assert claim_refusal(ws, {"path": "lib/util.py"}, {"path": "src/main.py"}, second) == (
        "sm.json: $.writes[2].path: duplicate of $.writes[1] ('src/main.py')"
    )


def test_a_repo_claim_is_refused_inside_a_linked_git_worktree(tmp_path: Path) -> None:
    main = make_workspace(tmp_path / "main", {"src/app.py": "x = 1\n"})
    linked = tmp_path / "linked"
    git(main, "worktree", "add", "-q", "-b", "bolt-u1", str(linked))

    assert parse(main, [{"repo": "src", "path": "app.py"}])[0].relative == "src/app.py"
    assert claim_refusal(linked, {"repo": "src", "path": "app.py"}) == (
        "sm.json: $.writes[0].repo: repo claims are not allowed inside a git worktree"
    )
    assert parse(linked, [{"path": "src/app.py"}])[0].relative == "src/app.py"


def test_an_in_memory_manifest_is_checked_like_one_on_disk(ws: Path) -> None:
    manifest = manifest_for_paths(["src/main.py", "lib/"], ws, unit="u1")

    assert manifest.path == Path("<command line>")
    assert (manifest.stage, manifest.version, manifest.unit) == ("code-generation", 1, "u1")
    assert [c.relative for c in manifest.claims] == ["src/main.py", "lib"]
    assert json.loads(manifest.raw)["writes"] == [{"path": "src/main.py"}, {"path": "lib/"}]
    assert manifest_for_paths([], ws).unit is None
    with pytest.raises(InvalidInput) as caught:
        manifest_for_paths(["src/nope.py"], ws)
    assert str(caught.value) == (
        "<command line>: $.writes[0].path: 'src/nope.py' does not exist in the workspace"
    )


def manifest(ws: Path, *paths: str):
    return manifest_for_paths(list(paths), ws)


def test_claimed_files_lists_files_and_expands_folders_sorted_without_repeats(ws: Path) -> None:
    write(ws / "src/pkg/deep/c.py", "x = 1\n")
    claimed = manifest(ws, "src/main.py", "src/pkg/", "src/pkg/a.py", "lib/util.py")
    assert claimed_files(claimed, ws) == [
        "lib/util.py",
        "src/main.py",
        "src/pkg/a.py",
        "src/pkg/b.py",
        "src/pkg/deep/c.py",
    ]


def test_a_claimed_folder_leaves_out_git_and_pycache_folders(ws: Path) -> None:
    write(ws / "src/pkg/__pycache__/a.cpython-312.pyc", "")
    write(ws / "src/pkg/vendored/.git/config", "")
    write(ws / "src/pkg/vendored/v.py", "")
    assert claimed_files(manifest(ws, "src/pkg/"), ws) == [
        "src/pkg/a.py",
        "src/pkg/b.py",
        "src/pkg/vendored/v.py",
    ]


def test_a_symlinked_folder_inside_a_claimed_one_is_followed_and_a_loop_is_walked_once(
    ws: Path,
) -> None:
    (ws / "src/pkg/shared").symlink_to(ws / "lib", target_is_directory=True)
    (ws / "src/pkg/again").symlink_to(ws / "src/pkg", target_is_directory=True)
    assert claimed_files(manifest(ws, "src/pkg/"), ws) == [
        "src/pkg/a.py",
        "src/pkg/b.py",
        "src/pkg/shared/util.py",
    ]


def test_a_symlinked_folder_inside_a_claimed_one_pointing_out_is_refused(
    ws: Path, tmp_path: Path
) -> None:
    write(tmp_path / "elsewhere/x.py", "")
    claimed = manifest(ws, "src/pkg/")
    (ws / "src/pkg/ext").symlink_to(tmp_path / "elsewhere", target_is_directory=True)

    for listing in (claimed_files, unreadable_claims):
        with pytest.raises(InvalidInput) as caught:
            listing(claimed, ws)
        assert str(caught.value) == (
            "src/pkg/ext: a symlinked directory inside a claimed directory points outside the "
            f"workspace ({tmp_path / 'elsewhere'}); its files cannot be reviewed: remove the "
            "link or move the files into the workspace"
        )


def test_a_file_inside_a_claimed_folder_linking_out_is_refused(ws: Path, tmp_path: Path) -> None:
    write(tmp_path / "secret.txt", "s\n")
    claimed = manifest(ws, "src/pkg/")
    (ws / "src/pkg/leak.py").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(InvalidInput) as caught:
        claimed_files(claimed, ws)
    assert str(caught.value) == f"src/pkg/leak.py: resolves outside the workspace {ws}"


def test_a_claimed_file_replaced_by_a_link_out_since_reading_is_refused(
    ws: Path, tmp_path: Path
) -> None:
    claimed = manifest(ws, "src/main.py")
    write(tmp_path / "secret.txt", "s\n")
    (ws / "src/main.py").unlink()
    (ws / "src/main.py").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(InvalidInput) as caught:
        claimed_files(claimed, ws)
    assert str(caught.value) == f"src/main.py: resolves outside the workspace {ws}"


def test_entries_of_a_claimed_folder_nobody_can_read_are_named_with_why(ws: Path) -> None:
    (ws / "src/pkg/dangling.py").symlink_to(ws / "src/pkg/removed.py")
    os.mkfifo(ws / "src/pkg/pipe")
    claimed = manifest(ws, "src/pkg/", "src/main.py")

    assert unreadable_claims(claimed, ws) == {
        "src/pkg/dangling.py": "dangling symlink",
        "src/pkg/pipe": "not a regular file",
    }
    assert claimed_files(claimed, ws) == ["src/main.py", "src/pkg/a.py", "src/pkg/b.py"]


def test_a_tree_of_regular_files_has_nothing_unreadable(ws: Path) -> None:
    assert unreadable_claims(manifest(ws, "src/", "lib/util.py"), ws) == {}
