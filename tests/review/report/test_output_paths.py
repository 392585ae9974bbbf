"""Output options never overwrite what a review reads or keeps.

``--sarif`` (``review run``, ``review submit``, ``review summary``) and ``--markdown``
(``review summary``) may not name, once symlinks and ``..`` are resolved, a claimed file,
a source manifest, the findings document, the report, the receipt, anything in the record
dir or the engine state, the review's state on this machine, or git's own files: exit 2
before any work, naming the option and what it would overwrite, and not one byte changes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aidlc_review.cli.main import main
from tests.review.workspace import CLEAN, UNIT, make_workspace, write, write_manifest

STAGE_DIR = f"aidlc-docs/construction/{UNIT}/code-review"
FINDINGS = f"{STAGE_DIR}/code-review-findings.json"
MANIFEST = f"aidlc-docs/construction/{UNIT}/code-generation/source-manifest.json"
OTHER_MANIFEST = "aidlc-docs/construction/u2-billing/code-generation/source-manifest.json"
LOST = "writing there would lose"
ONLY = "only the review writes there"

REFUSED = {
    FINDINGS: f"is the unit's findings document; {LOST} the review's history",
    f"src/../{FINDINGS}": f"is the unit's findings document; {LOST} the review's history",
    "findings-link.sarif": f"is the unit's findings document; {LOST} the review's history",
    f"{STAGE_DIR}/code-review.md": f"is the unit's review report; {LOST} what the gate shows",
    f"{STAGE_DIR}/code-review-receipt.json": f"is the unit's receipt; {LOST} what the review "
    "approved",
    MANIFEST: f"is the unit's source manifest; {LOST} what the unit claims",
    "src/orders.py": "is claimed by the unit's source manifest ($.writes[0]); "
    f"{LOST} the source under review",
    "hard-link.sarif": "is claimed by the unit's source manifest ($.writes[0]); "
    f"{LOST} the source under review",
    "src/gen/new.sarif": "is inside 'src/gen/', claimed by the unit's source manifest "
    "($.writes[1]); writing there adds source",
    "src/billing.py": f"is claimed by {OTHER_MANIFEST} ($.writes[0]); "
    f"{LOST} the source under review",
    f"aidlc-docs/.aidlc-engine/code-review/{UNIT}/baseline.json": "is inside the engine state "
    f"(aidlc-docs/.aidlc-engine); {ONLY}",
    "aidlc-docs/review.sarif": "is inside the record dir (aidlc-docs); only the stages write there",
    ".git/config": "is inside git's own files; git writes there",
    "$STATE/aidlc-review/state.key": f"is inside the review's state on this machine; {ONLY}",
}


def files_of(*roots: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes()
        for root in roots
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory) -> tuple[Path, Path]:
    """A reviewed unit (a file and a directory claim) beside a second unit's claim, a
    symlink and a hard link to what it keeps, and the state dir its review sealed with.
    Built once: the tests that share it only read it (each checks that nothing changed)."""
    root = tmp_path_factory.mktemp("reviewed")
    ws, state = reviewed_unit(root / "ws"), root / "state"
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("XDG_STATE_HOME", str(state))
        assert main(["review", "run", "--workspace", str(ws), "--unit", UNIT]) == 0
    (ws / "findings-link.sarif").symlink_to(ws / FINDINGS)
    os.link(ws / "src/orders.py", ws / "hard-link.sarif")
    return ws, state


def reviewed_unit(root: Path) -> Path:
    files = {"src/orders.py": CLEAN, "src/gen/one.py": CLEAN, "src/billing.py": CLEAN}
    ws = make_workspace(root, files, claims=["src/orders.py", "src/gen/"])
    write_manifest(ws, ["src/billing.py"], unit="u2-billing")
    return ws


@pytest.fixture
def ws(reviewed, monkeypatch, capsys) -> Path:
    """The shared reviewed workspace as the current directory, its state dir in force."""
    shared, state = reviewed
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.chdir(shared)
    capsys.readouterr()
    return shared


def target(name: str) -> str:
    return name.replace("$STATE", os.environ["XDG_STATE_HOME"])


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_review_run_sarif_may_not_overwrite_what_the_review_keeps(ws, name, capsys) -> None:
    before = files_of(ws, Path(os.environ["XDG_STATE_HOME"]))
    argv = ["review", "run", "--workspace", ".", "--unit", UNIT, "--sarif", target(name)]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"--sarif {target(name)}: {REFUSED[name]}\n"
    assert files_of(ws, Path(os.environ["XDG_STATE_HOME"])) == before


def test_review_submit_sarif_is_refused_before_the_answer_is_recorded(
    tmp_path, monkeypatch, capsys
) -> None:
    ws = reviewed_unit(tmp_path / "ws")
    monkeypatch.chdir(ws)
    assert main(["review", "start", "--workspace", ".", "--unit", UNIT, "--json"]) == 0
    started = json.loads(capsys.readouterr().out)
    answer = {"verdict": "READY", "summary": "Fine.", "findings": []}
    write(tmp_path / "answer.json", json.dumps(answer))  # outside: it is nobody's source
    assert main(["review", "run", "--workspace", ".", "--unit", "u2-billing"]) == 0
    capsys.readouterr()
    findings = "aidlc-docs/construction/u2-billing/code-review/code-review-findings.json"
    before = files_of(ws, Path(os.environ["XDG_STATE_HOME"]))
    submit = ["review", "submit", "--workspace", ".", "--unit", UNIT]
    submit += ["--request", started["request"], "--answer", str(tmp_path / "answer.json")]
    assert main([*submit, "--sarif", findings]) == 2
    assert capsys.readouterr().err == (
        f"--sarif {findings}: is inside the record dir (aidlc-docs); only the stages write there\n"
    )
    assert main([*submit, "--sarif", MANIFEST]) == 2
    assert capsys.readouterr().err == f"--sarif {MANIFEST}: {REFUSED[MANIFEST]}\n"
    assert files_of(ws, Path(os.environ["XDG_STATE_HOME"])) == before
    sarif = tmp_path / "out.sarif"
    assert main([*submit, "--sarif", str(sarif)]) == 0  # the request was not spent
    assert json.loads(sarif.read_text())["version"] == "2.1.0"


@pytest.mark.parametrize("option", ["--sarif", "--markdown"])
def test_review_summary_may_not_overwrite_a_document_it_reads(ws, option, capsys) -> None:
    before = files_of(ws, Path(os.environ["XDG_STATE_HOME"]))
    argv = ["review", "summary", "--from", "aidlc-docs", option, f"src/../{FINDINGS}"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"{option} src/../{FINDINGS}: is a findings document the summary reads ({FINDINGS}); "
        f"{LOST} a unit's history\n"
    )
    assert files_of(ws, Path(os.environ["XDG_STATE_HOME"])) == before


def test_review_summary_may_not_overwrite_a_claimed_file(ws, capsys) -> None:
    before = files_of(ws, Path(os.environ["XDG_STATE_HOME"]))
    assert main(["review", "summary", "--from", "aidlc-docs", "--markdown", "src/billing.py"]) == 2
    assert capsys.readouterr().err == f"--markdown src/billing.py: {REFUSED['src/billing.py']}\n"
    assert files_of(ws, Path(os.environ["XDG_STATE_HOME"])) == before


def test_review_summary_markdown_on_a_full_device_is_exit_2_and_writes_no_sarif(ws, capsys) -> None:
    argv = ["review", "summary", "--from", "aidlc-docs", "--sarif", "merged.sarif"]
    assert main([*argv, "--markdown", "/dev/full"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "--markdown /dev/full: cannot write: No space left on device\n"
    assert captured.out == ""
    assert not (ws / "merged.sarif").exists()
