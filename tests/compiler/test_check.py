"""``compile --check``: up to date exits 0; drift in inputs or outputs exits 1 with a diff."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import aidlc_review
from aidlc_review.cli.main import main
from tests.compiler.harness_factory import edit, write_harness

B = "stages/construction/build.md"


def _compiled(tmp_path):
    root = write_harness(tmp_path / "h")
    assert main(["compile", "--harness", str(root)]) == 0
    return root


def test_check_passes_on_fresh_outputs(tmp_path, capsys):
    root = _compiled(tmp_path)
    capsys.readouterr()
    assert main(["compile", "--harness", str(root), "--check"]) == 0
    assert main(["compile", "--harness", str(root), "--check"]) == 0  # the stamped fast path
    assert capsys.readouterr().out == ""


def test_edited_input_is_drift_with_diff_and_fix_command(tmp_path, capsys):
    root = _compiled(tmp_path)
    main(["compile", "--harness", str(root), "--check"])  # stamp the up-to-date state
    capsys.readouterr()
    edit(root, B, "  - poc\n", "")
    assert main(["compile", "--harness", str(root), "--check"]) == 1
    captured = capsys.readouterr()
    assert f"--- {root}/tools/data/stage-graph.json (on disk)\n" in captured.out
    assert '-      "poc"\n' in captured.out
    assert '-      "build": "EXECUTE",\n+      "build": "SKIP",\n' in captured.out
    assert captured.err.endswith(
        f"compiled outputs are out of date; fix with: aidlc-review compile --harness {root}\n"
    )


def test_hand_edited_output_is_drift_even_when_stamped(tmp_path, capsys):
    root = _compiled(tmp_path)
    main(["compile", "--harness", str(root), "--check"])
    grid = root / "tools/data/scope-grid.json"
    grid.write_text(grid.read_text().replace('"check": "SKIP"', '"check": "EXECUTE"'))
    assert main(["compile", "--harness", str(root), "--check"]) == 1
    assert '-      "check": "EXECUTE"\n+      "check": "SKIP"\n' in capsys.readouterr().out


def test_missing_output_is_drift(tmp_path, capsys):
    root = _compiled(tmp_path)
    (root / "tools/data/scope-grid.json").unlink()
    assert main(["compile", "--harness", str(root), "--check"]) == 1
    assert "scope-grid.json (compiled)" in capsys.readouterr().out


def test_check_never_writes_outputs(tmp_path):
    root = write_harness(tmp_path / "h")
    assert main(["compile", "--harness", str(root), "--check"]) == 1
    assert not (root / "tools").exists()


def test_new_stage_file_invalidates_the_stamp(tmp_path, capsys):
    root = _compiled(tmp_path)
    main(["compile", "--harness", str(root), "--check"])
    text = (
        (root / B)
        .read_text()
        .replace("slug: build", "slug: extra")
        .replace("  - code-summary", "  - extra")
    )
    (root / "stages/construction/extra.md").write_text(text)
    assert main(["compile", "--harness", str(root), "--check"]) == 1


def test_out_dir_option_writes_elsewhere(tmp_path):
    root = write_harness(tmp_path / "h")
    out = tmp_path / "out"
    assert main(["compile", "--harness", str(root), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir())[:3] == [
        "review-plan.json", "scope-grid.json", "scope-plans.json",
    ]  # fmt: skip
    assert main(["compile", "--harness", str(root), "--out", str(out), "--check"]) == 0
    assert not (root / "tools").exists()


def _run_copy(package_copy, *argv):
    """Run ``aidlc-review`` from a copy of the package (same ``__version__``, own code)."""
    env = dict(os.environ, PYTHONPATH=str(package_copy.parent))
    return subprocess.run(
        [sys.executable, "-m", "aidlc_review", *argv],
        cwd=package_copy.parent,
        env=env,
        capture_output=True,
        text=True,
    )


def test_a_changed_compiler_is_never_up_to_date(tmp_path):
    root = _compiled(tmp_path)
    package = Path(aidlc_review.__file__).parent
    copy = tmp_path / "src" / "aidlc_review"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    check = ["compile", "--harness", str(root), "--check"]
    unchanged = _run_copy(copy, *check)
    assert (unchanged.returncode, unchanged.stdout) == (0, "")  # same code: up to date

    compiled = copy / "compile" / "compiled.py"
    compiled.write_text(compiled.read_text().replace('SPACE = "default"', 'SPACE = "team"'))
    edited = _run_copy(copy, *check)
    assert edited.returncode == 1, edited.stderr
    assert '+        "path": "aidlc/spaces/team/memory/org.md",\n' in edited.stdout
    assert "compiled outputs are out of date" in edited.stderr


def test_the_stamp_names_the_compiler_code_it_was_made_with(tmp_path):
    root = _compiled(tmp_path)
    assert main(["compile", "--harness", str(root), "--check"]) == 0
    (saved,) = (Path(os.environ["XDG_CACHE_HOME"]) / "aidlc-review/compile-stamps").iterdir()
    code = [line.split("\t") for line in saved.read_text().splitlines() if line[:5] == "code\t"]
    assert {
        "compile/compiled.py",
        "harness/definitions/stage.py",
        "compile/graph.py",
        "harness/loader.py",
    } <= {name for _, name, _ in code}
    assert all(len(digest) == 64 for _, _, digest in code)
