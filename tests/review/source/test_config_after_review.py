"""A team's first CI workflow or pre-commit config, added after a unit was reviewed, is not
an unclaimed change: no sensor reads it and it cannot change what one reports. The tools'
own configs stay drift: a ruff selection edited after the review makes it stale."""

from __future__ import annotations

from aidlc_review.cli.main import main
from tests.review.workspace import CLEAN, PYPROJECT, UNIT, git, make_workspace, review_args, write

WORKFLOW = "name: ci\non: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps: []\n"


def _verify(ws, capsys) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["review", "verify", "--workspace", str(ws), "--unit", UNIT])
    return code, capsys.readouterr().out


def test_ci_and_hook_configs_added_after_a_review_keep_it_fresh(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    assert main(review_args(ws)) == 0

    write(ws / ".github/workflows/ci.yml", WORKFLOW)
    write(ws / ".pre-commit-config.yaml", "repos: []\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "ci and hooks")

    assert _verify(ws, capsys) == (0, "fresh: the receipt matches the source\n")
    assert main(["review", "gate", "--workspace", str(ws), "--unit", UNIT, "--approve"]) == 0


def test_a_tool_config_edited_after_a_review_still_makes_it_stale(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    assert main(review_args(ws)) == 0

    write(ws / "pyproject.toml", PYPROJECT.replace('select = ["E", "F", "W"]', 'select = ["E"]'))
    write(ws / ".github/CODEOWNERS", "* @team\n")  # not a workflow: still source

    code, out = _verify(ws, capsys)
    assert code == 1
    assert "stale: pyproject.toml: unclaimed source changed since the stage-entry baseline\n" in out
    assert ".github/CODEOWNERS: unclaimed source added" in out
