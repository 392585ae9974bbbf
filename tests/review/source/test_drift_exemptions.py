"""Exemptions from drift are proven, not claimed (DESIGN §9).

Another unit's claim exempts a path only when that unit's own review (a receipt sealed on
this machine) covers the path's bytes as they are now; writing a manifest for a unit that
was never reviewed launders nothing. And only the tree's own ``.gitignore`` files may hide
a file from drift: ``.git/info/exclude``, ``core.excludesFile``, an attribute with a clean
filter, ``assume-unchanged`` and a replace ref live in ``.git/``, which is not source.
Real git, real sensors, real ``command:`` agents.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import (
    CLEAN,
    LINT_ERROR,
    PYPROJECT,
    UNIT,
    findings_doc,
    git,
    make_workspace,
    review_args,
    script_agent,
    write,
    write_manifest,
)

HELPER = "zz-helper"
SECOND = "u2-billing"
TAX = '"""Tax."""\n\n\ndef tax(amount: int) -> int:\n    return amount // 5\n'
SILENCED = PYPROJECT.replace('select = ["E", "F", "W"]', 'select = ["E", "W"]')
LAUNDERED = (
    "pyproject.toml: unclaimed source changed since the stage-entry baseline "
    f"(claimed by {HELPER}, which has no review covering it)"
)


def _verify(ws: Path, capsys: pytest.CaptureFixture[str], unit: str = UNIT) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["review", "verify", "--workspace", str(ws), "--unit", unit])
    return code, capsys.readouterr().out


def _approve(ws: Path, unit: str = UNIT) -> int:
    return main(["review", "gate", "--workspace", str(ws), "--unit", unit, "--approve"])


def _open_findings(ws: Path, unit: str = UNIT) -> list[tuple[str, str, str]]:
    last = findings_doc(ws, unit)["passes"][-1]
    return [
        (f["severity"], f["path"], f["finding"]) for f in last["findings"] if f["status"] == "open"
    ]


def _launderer(tmp_path: Path, ws: Path, forge_receipt: bool = False) -> str:
    """A repairer that fixes nothing, writes a manifest for a unit nobody reviewed claiming
    pyproject.toml, and silences F401 there; with ``forge_receipt`` it also writes that
    unit a receipt covering the new bytes, sealed with the reviewed unit's seal."""
    record = ws / "aidlc-docs"
    return script_agent(
        tmp_path / "agents" / "launder.py",
        f"""
        import hashlib, json, pathlib, shutil, sys
        sys.stdin.read()
        record = pathlib.Path({str(record)!r})
        manifest = record / "construction/{HELPER}/code-generation/source-manifest.json"
        manifest.parent.mkdir(parents=True, exist_ok=True)
        claims = {{"stage": "code-generation", "unit": "{HELPER}", "version": 1,
                  "writes": [{{"path": "pyproject.toml"}}]}}
        manifest.write_text(json.dumps(claims))
        pyproject = pathlib.Path("pyproject.toml")
        pyproject.write_text(
            pyproject.read_text() + '\\n[tool.ruff.lint.per-file-ignores]\\n"*" = ["F401"]\\n'
        )
        if {forge_receipt!r}:
            real = record / "construction/{UNIT}/code-review/code-review-receipt.json"
            receipt = json.loads(real.read_text())
            digest = "sha256:" + hashlib.sha256(pyproject.read_bytes()).hexdigest()
            receipt.update(unit="{HELPER}", files={{"pyproject.toml": digest}})
            fake = record / "construction/{HELPER}/code-review/code-review-receipt.json"
            fake.parent.mkdir(parents=True)
            fake.write_text(json.dumps(receipt, indent=2) + "\\n")
            seals = record / ".aidlc-engine/code-review"
            (seals / "{HELPER}/seals").mkdir(parents=True)
            name = "seals/code-review-receipt.json.hmac"
            shutil.copy(seals / "{UNIT}" / name, seals / "{HELPER}" / name)
        """,
    )


@pytest.mark.parametrize("forge_receipt", [False, True], ids=["manifest-only", "forged-receipt"])
def test_a_fake_units_manifest_does_not_launder_an_unclaimed_config_edit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], forge_receipt: bool
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    repairer = _launderer(tmp_path, ws, forge_receipt)

    assert main(review_args(ws, "--repairer", repairer)) == 1
    assert (ws / "pyproject.toml").read_text().endswith('"*" = ["F401"]\n')
    assert _open_findings(ws) == [("major", "pyproject.toml", LAUNDERED)]
    assert findings_doc(ws)["verdict"] == "NOT-READY"
    code, out = _verify(ws, capsys)
    assert code == 1 and f"stale: {LAUNDERED}\n" in out
    assert _approve(ws) == 1
    assert findings_doc(ws)["gate"] == []


def test_a_second_unit_reviewed_after_the_first_exempts_its_files_once_its_review_covers_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # each unit's code generation writes its files uncommitted, then the unit is reviewed
    ws = make_workspace(tmp_path / "ws", {}, claims=["src/orders/app.py"])
    write(ws / "src/orders/app.py", CLEAN)
    assert main(review_args(ws)) == 0
    write(ws / "src/billing/tax.py", TAX)
    write_manifest(ws, ["src/billing/tax.py"], SECOND)
    write(ws / f"aidlc-docs/construction/{SECOND}/code-generation/code-summary.md", "# Tax\n")

    added = "src/billing/tax.py: unclaimed source added since the stage-entry baseline"
    code, out = _verify(ws, capsys)
    assert code == 1
    assert f"stale: {added} (claimed by {SECOND}, which has no review covering it)\n" in out

    # the first unit's files are the first unit's review's: not drift for the second
    assert main(review_args(ws, unit=SECOND)) == 0
    assert _open_findings(ws, SECOND) == []
    assert _verify(ws, capsys) == (0, "fresh: the receipt matches the source\n")
    assert _verify(ws, capsys, SECOND) == (0, "fresh: the receipt matches the source\n")
    assert _approve(ws) == 0
    assert _approve(ws, SECOND) == 0

    write(ws / "src/billing/tax.py", TAX + "\n\nRATE = 5\n")
    code, out = _verify(ws, capsys)
    assert code == 1
    assert f"stale: {added} (claimed by {SECOND}, whose review covers other contents)\n" in out
    code, out = _verify(ws, capsys, SECOND)
    assert (
        code == 1 and "stale: src/billing/tax.py: claimed file changed since the receipt\n" in out
    )


def test_units_generated_first_and_reviewed_after_wait_for_each_other_only_at_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # upstream's order: code generation for every unit, then code review for every unit
    ws = make_workspace(tmp_path / "ws", {}, claims=["src/orders/app.py"])
    write(ws / "src/orders/app.py", CLEAN)
    write(ws / "src/billing/tax.py", TAX)
    write_manifest(ws, ["src/billing/tax.py"], SECOND)
    write(ws / f"aidlc-docs/construction/{SECOND}/code-generation/code-summary.md", "# Tax\n")

    assert main(review_args(ws)) == 0  # the second unit's files do not block this pass
    untracked = f"src/billing/tax.py: unclaimed source untracked since the unit's base {_head(ws)}"
    code, out = _verify(ws, capsys)
    assert code == 1
    assert f"stale: {untracked} (claimed by {SECOND}, which has no review covering it)\n" in out
    assert _approve(ws) == 1

    assert main(review_args(ws, unit=SECOND)) == 0
    assert _verify(ws, capsys) == (0, "fresh: the receipt matches the source\n")
    assert _approve(ws) == 0


def test_a_fake_unit_written_before_the_first_pass_keeps_every_gate_shut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # code generation itself writes the fake unit's manifest and silences F401
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    write_manifest(ws, ["pyproject.toml"], HELPER)
    (ws / "pyproject.toml").write_text(
        PYPROJECT + '\n[tool.ruff.lint.per-file-ignores]\n"*" = ["F401"]\n'
    )

    # the pass waits for the fake unit's review (its claim predates the stage entry) ...
    assert main(review_args(ws)) == 0
    # ... which never comes: nothing approves
    changed = f"pyproject.toml: unclaimed source changed since the unit's base {_head(ws)}"
    code, out = _verify(ws, capsys)
    assert code == 1
    assert f"stale: {changed} (claimed by {HELPER}, which has no review covering it)\n" in out
    assert main(["review", "verify", "--workspace", str(ws), "--unit", UNIT, "--ready"]) == 1
    assert _approve(ws) == 1
    assert findings_doc(ws)["gate"] == []


COVERED_ONLY_BY_CONFTEST = """\
import importlib.util
import pathlib

_path = pathlib.Path(__file__).parents[1] / "src" / "orders" / "app.py"
_spec = importlib.util.spec_from_file_location("orders_app", _path)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
assert _module.total([1, 2]) == 3
"""


def _hide_locally(how: str, tmp_path: Path) -> str:
    """The repairer's Python lines that make git's local excludes hide ``conftest.py``."""
    if how == "info-exclude":
        return 'open(".git/info/exclude", "a").write("conftest.py\\n")'
    ignore = tmp_path / "agents" / "ignore"
    return (
        f'pathlib.Path({str(ignore)!r}).write_text("conftest.py\\n"); '
        f'subprocess.run(["git", "config", "core.excludesFile", {str(ignore)!r}], check=True)'
    )


@pytest.mark.parametrize("how", ["info-exclude", "core-excludesfile"])
def test_a_conftest_hidden_by_local_git_excludes_is_drift_and_blocks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    ws = make_workspace(
        tmp_path / "ws",
        {
            "src/orders/app.py": CLEAN,
            "tests/test_smoke.py": "def test_smoke() -> None:\n    pass\n",
        },
        claims=["src/orders/app.py"],
    )
    settings = '\n[tool.aidlc-review]\ntest-command = "python -m pytest -q tests"\n'
    (ws / "pyproject.toml").write_text(PYPROJECT + settings + "coverage-threshold = 80\n")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qam", "tests")
    repairer = script_agent(
        tmp_path / "agents" / "hide.py",
        f"""
        import pathlib, subprocess, sys
        sys.stdin.read()
        {_hide_locally(how, tmp_path)}
        pathlib.Path("tests/conftest.py").write_text({COVERED_ONLY_BY_CONFTEST!r})
        """,
    )

    assert main(review_args(ws, "--repairer", repairer)) == 1
    first, second = findings_doc(ws)["passes"]
    assert {f["check"] for f in first["findings"] if f["status"] == "open"} == {"coverage"}
    assert [c["status"] for c in second["checks"] if c["name"] == "coverage"] == ["passed"]
    added = "tests/conftest.py: unclaimed source added since the stage-entry baseline"
    assert _open_findings(ws) == [("major", "tests/conftest.py", added)]
    code, out = _verify(ws, capsys)
    assert code == 1 and f"stale: {added}\n" in out
    assert _approve(ws) == 1
    assert findings_doc(ws)["gate"] == []


def _clean_filter(ws: Path, tmp_path: Path) -> None:
    original = tmp_path / "original.toml"
    shutil.copy(ws / "pyproject.toml", original)
    write(ws / ".git/info/attributes", "pyproject.toml filter=hide\n")
    git(ws, "config", "filter.hide.clean", f"cat {original}")


def _assume_unchanged(ws: Path, tmp_path: Path) -> None:
    git(ws, "update-index", "--assume-unchanged", "pyproject.toml")


def _replace_base(ws: Path, tmp_path: Path) -> None:
    """A replace ref makes git read a forged commit, holding the silenced config, as the base."""
    (ws / "pyproject.toml").write_text(SILENCED)
    git(ws, "add", "pyproject.toml")
    tree = _git_out(ws, "write-tree")
    head = _git_out(ws, "rev-parse", "HEAD")
    forged = _git_out(
        ws, "-c", "user.name=t", "-c", "user.email=t@e.invalid", "commit-tree", tree, "-m", "base"
    )
    git(ws, "reset", "-q")
    git(ws, "replace", head, forged)


def _head(ws: Path) -> str:
    return _git_out(ws, "rev-parse", "HEAD")[:12]


def _git_out(ws: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(ws), *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.mark.parametrize(
    "trick", [_clean_filter, _assume_unchanged, _replace_base], ids=lambda t: t.__name__[1:]
)
def test_a_config_edit_git_is_told_to_overlook_is_still_a_change_since_the_base(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], trick: Callable[[Path, Path], None]
) -> None:
    # code generation (before the first pass) silences ruff's F rules and hides the edit
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": LINT_ERROR})
    trick(ws, tmp_path)
    (ws / "pyproject.toml").write_text(SILENCED)
    assert _git_out(ws, "diff", "--name-only", "HEAD") == ""  # git itself sees nothing

    assert main(review_args(ws)) == 1
    changed = f"pyproject.toml: unclaimed source changed since the unit's base {_head(ws)}"
    assert _open_findings(ws) == [("major", "pyproject.toml", changed)]
    assert _approve(ws) == 1


def test_a_gitignore_that_ignores_itself_is_listed_and_its_change_is_drift(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    assert main(review_args(ws)) == 0
    write(ws / "tests/.gitignore", "*\n")
    write(ws / "tests/conftest.py", "import os\n")

    code, out = _verify(ws, capsys)
    assert code == 1
    assert "stale: tests/.gitignore: unclaimed source added since the stage-entry baseline\n" in out
    assert "conftest.py" not in out  # the tree's own .gitignore may hide it: it is itself drift
