"""``compile --check``: up to date exits 0; drift in inputs or outputs exits 1 with a diff."""

from __future__ import annotations

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
    assert sorted(p.name for p in out.iterdir())[:2] == ["scope-grid.json", "scope-plans.json"]
    assert main(["compile", "--harness", str(root), "--out", str(out), "--check"]) == 0
    assert not (root / "tools").exists()
