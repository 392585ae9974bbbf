"""``[tool.aidlc-review] brief-diff-bytes``: the reviewer brief's diff budget, per workspace
or per unit, stated in the brief; anything but a positive whole number is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import (
    PYPROJECT,
    UNIT,
    git,
    make_workspace,
    review_args,
    script_agent,
    write,
)

BRIEF = Path("aidlc-docs/.aidlc-engine/code-review") / UNIT / "briefs/reviewer-attempt1-pass1.md"
READY_REVIEWER = (
    "import json, sys\nsys.stdin.read()\n"
    "print(json.dumps({'verdict': 'READY', 'summary': 'ok', 'findings': []}))\n"
)
BODY = "".join(f"VALUE_{n} = {n}\n" for n in range(20))


def _workspace(tmp_path: Path, table: str) -> Path:
    """Three claimed modules that each grew 20 lines since the base commit."""
    files = {f"src/orders/m{n}.py": '"""M."""\n' for n in range(3)}
    ws = make_workspace(tmp_path / "ws", files)
    (ws / "pyproject.toml").write_text(PYPROJECT + table)
    git(
        ws,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "commit",
        "-q",
        "--allow-empty",
        "-am",
        "cap",
    )
    for rel in files:
        write(ws / rel, '"""M."""\n' + BODY)
    return ws


@pytest.mark.parametrize(
    "table",
    [
        "\n[tool.aidlc-review]\nbrief-diff-bytes = 600\n",
        f"\n[tool.aidlc-review]\nbrief-diff-bytes = 90000\n\n"
        f"[tool.aidlc-review.units.{UNIT}]\nbrief-diff-bytes = 600\n",
    ],
    ids=["workspace", "unit"],
)
def test_a_small_diff_cap_is_honoured_and_stated_in_the_brief(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str
) -> None:
    ws = _workspace(tmp_path, table)
    reviewer = script_agent(tmp_path / "reviewer.py", READY_REVIEWER)

    main(review_args(ws, "--reviewer", reviewer))

    brief = (ws / BRIEF).read_text()
    assert "Diffs are capped at 600 bytes in all" in brief
    assert "**diff truncated at 600 bytes; " in brief
    assert brief.count("diff --git a/") < 3


def test_without_the_setting_the_cap_is_200_000_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _workspace(tmp_path, "")
    reviewer = script_agent(tmp_path / "reviewer.py", READY_REVIEWER)

    main(review_args(ws, "--reviewer", reviewer))

    brief = (ws / BRIEF).read_text()
    assert "Diffs are capped at 200000 bytes in all" in brief
    assert brief.count("diff --git a/") == 3 and "diff truncated" not in brief


@pytest.mark.parametrize(
    ("value", "shown"), [("0", "0"), ("-5", "-5"), ('"200KB"', '"200KB"'), ("2.5", "2.5")]
)
def test_a_cap_that_is_not_a_positive_whole_number_is_refused_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, shown: str
) -> None:
    ws = _workspace(tmp_path, f"\n[tool.aidlc-review]\nbrief-diff-bytes = {value}\n")

    assert main(review_args(ws)) == 2

    line = PYPROJECT.count("\n") + 3
    assert capsys.readouterr().err == (
        f"{ws / 'pyproject.toml'}:{line}: [tool.aidlc-review].brief-diff-bytes: "
        f"must be a positive whole number of bytes, got {shown}\n"
    )
    assert not (ws / BRIEF).exists()
