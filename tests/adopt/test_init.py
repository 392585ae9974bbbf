"""``aidlc-review init``: a plain Python project claims its source in one command, and
``review run`` with no flags then reviews it. Bad input leaves every file as it was."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from aidlc_review.cli.main import main

PYPROJECT = (
    '[project]\nname = "pkg"\nversion = "0.1"\n\n[tool.pytest.ini_options]\npythonpath = ["src"]\n'
)
MANIFEST = "aidlc-docs/construction/code-generation/source-manifest.json"


def _project(root: Path) -> Path:
    (root / "src/pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src/pkg/__init__.py").write_text("def inc(x: int) -> int:\n    return x + 1\n")
    (root / "tests/test_inc.py").write_text(
        "from pkg import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n"
    )
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root


def _commit(root: Path) -> None:
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@e", *argv], cwd=root, check=True
        )


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_init_then_review_run_with_no_flags(tmp_path, capsys, monkeypatch):
    root = _project(tmp_path / "pkg")
    monkeypatch.chdir(root)

    assert main(["init", "src/", "tests/"]) == 0

    out = capsys.readouterr().out
    assert out.startswith(f"wrote {root / MANIFEST}: 2 file(s) claimed\n")
    assert "test command: python -m pytest -q\nnext: aidlc-review review run\n" in out
    assert "      - id: aidlc-review-verify\n" in out
    assert json.loads((root / MANIFEST).read_text()) == {
        "stage": "code-generation", "version": 1, "writes": [{"path": "src/"}, {"path": "tests/"}],
    }  # fmt: skip
    assert (root / "pyproject.toml").read_text() == PYPROJECT + (
        "\n# How aidlc-review runs this project (docs/settings.md).\n"
        '[tool.aidlc-review]\ntest-command = "python -m pytest -q"\n'
    )
    _commit(root)
    assert main(["review", "run"]) == 0
    assert "verdict: READY" in capsys.readouterr().out


def test_a_unit_and_a_table_already_there(tmp_path, capsys):
    root = _project(tmp_path / "pkg")
    with (root / "pyproject.toml").open("a") as f:
        f.write('\n[tool.aidlc-review]\ntest-command = "pytest"\n')
    before = (root / "pyproject.toml").read_bytes()

    assert main(["init", "--workspace", str(root), "--unit", "u1-inc", "src/pkg/__init__.py"]) == 0

    out = capsys.readouterr().out
    assert f"{root / 'pyproject.toml'}: [tool.aidlc-review] kept as it was\n" in out
    assert "test command: pytest\n" in out
    assert f"next: aidlc-review review run --workspace {root} --unit u1-inc\n" in out
    manifest = root / "aidlc-docs/construction/u1-inc/code-generation/source-manifest.json"
    assert json.loads(manifest.read_text())["writes"] == [{"path": "src/pkg/__init__.py"}]
    assert (root / "pyproject.toml").read_bytes() == before


def test_bad_input_writes_nothing(tmp_path, capsys):
    root = _project(tmp_path / "pkg")
    (tmp_path / "elsewhere.py").write_text("x = 1\n")
    before = _files(root)
    ws = ["--workspace", str(root)]

    cases = {
        ("../elsewhere.py",): f"init: ../elsewhere.py: outside the workspace {root}\n",
        ("nope.py",): "init: nope.py: no such file or folder\n",
    }
    for claims, said in cases.items():
        assert main(["init", *ws, *claims]) == 2
        assert capsys.readouterr().err == said
        assert _files(root) == before
    (root / "pyproject.toml").write_text("[project\n")
    before = _files(root)
    assert main(["init", *ws, "src/"]) == 2
    assert capsys.readouterr().err.startswith(f"{root / 'pyproject.toml'}: not valid TOML: ")
    assert _files(root) == before


def test_an_existing_manifest_is_never_overwritten(tmp_path, capsys):
    root = _project(tmp_path / "pkg")
    assert main(["init", "--workspace", str(root), "src/"]) == 0
    before = _files(root)
    capsys.readouterr()

    assert main(["init", "--workspace", str(root), "tests/"]) == 2

    assert capsys.readouterr().err == (
        f"{root / MANIFEST}: exists already; edit it, or delete it to claim anew\n"
    )
    assert _files(root) == before


def test_an_npm_project_gets_a_language_neutral_settings_file_not_a_pyproject(tmp_path, capsys):
    (tmp_path / "package.json").write_text('{"devDependencies": {"vitest": "^3.2.0"}}\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src/add.ts").write_text("export const one = 1;\n")

    assert main(["init", "src/", "--workspace", str(tmp_path)]) == 0

    assert not (tmp_path / "pyproject.toml").exists()
    assert (tmp_path / ".aidlc-review.toml").read_text() == (
        "# How aidlc-review runs this project (docs/settings.md).\n"
        'test-command = "npx vitest run"\n'
    )
