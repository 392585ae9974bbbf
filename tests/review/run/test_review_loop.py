"""The review loop end to end: real files, real git, real tools, scripted command agents."""

from __future__ import annotations

import json
import re
from pathlib import Path

from aidlc_review.cli.main import main
from tests.review.workspace import (
    CALC_BUG,
    CALC_FIXED,
    CLEAN,
    FAKE_KEY,
    LEAKY,
    LINT_ERROR,
    UNFORMATTED,
    UNIT,
    findings_doc,
    make_workspace,
    report_text,
    review_args,
    script_agent,
)

SETTINGS_FIXED = (
    '"""Settings."""\n\nimport os\n\nAWS_ACCESS_KEY_ID = os.environ.get("AWS_ACCESS_KEY_ID", "")\n'
)
UTIL_FIXED = 'def shout(text: str) -> str:\n    return text.upper() + "!"\n'
REVIEWER = """
    import json, os, pathlib, re
    source = pathlib.Path("src/orders/calc.py").read_text()
    brief = pathlib.Path(os.environ["AIDLC_BRIEF"]).read_text()
    assert os.environ["AIDLC_ROLE"] == "reviewer" and "src/orders/calc.py" in brief
    findings, resolved = [], []
    earlier = re.search(r"(CR-[0-9]+).*mean[(][)] divides by zero", brief)
    if earlier and "if not values" in source:
        resolved.append({"id": earlier.group(1), "reason": "an empty list returns 0.0"})
    if "if not values" not in source:
        findings.append({"severity": "major", "category": "error-handling",
                         "path": "src/orders/calc.py", "location": "3",
                         "finding": "mean() divides by zero for an empty list",
                         "evidence": "count = len(values) is 0 for []",
                         "recommendation": "Return 0.0 (or raise ValueError) for an empty list."})
    print(json.dumps({"verdict": "NOT-READY" if findings else "READY",
                      "summary": "Scripted review of calc.py.", "findings": findings,
                      "resolved": resolved}))
"""
REPAIRER = f"""
    import os, pathlib, sys
    sys.stdin.read()
    brief = pathlib.Path(os.environ["AIDLC_BRIEF"]).read_text()
    assert os.environ["AIDLC_ROLE"] == "repairer" and "CR-" in brief
    pathlib.Path("src/orders/settings.py").write_text({SETTINGS_FIXED!r})
    pathlib.Path("src/orders/util.py").write_text({UTIL_FIXED!r})
    pathlib.Path("src/orders/calc.py").write_text({CALC_FIXED!r})
"""


def _workspace(tmp_path: Path, **files: str) -> Path:
    return make_workspace(tmp_path / "ws", {f"src/orders/{k}.py": v for k, v in files.items()})


def test_secret_format_and_reviewer_findings_are_repaired_and_resolved_in_pass_two(tmp_path, capfd):
    ws = _workspace(tmp_path, settings=LEAKY, util=UNFORMATTED, calc=CALC_BUG)
    reviewer = script_agent(tmp_path / "agents" / "reviewer.py", REVIEWER)
    repairer = script_agent(tmp_path / "agents" / "repairer.py", REPAIRER)
    sarif = tmp_path / "out" / "review.sarif"

    code = main(
        review_args(
            ws, "--reviewer", reviewer, "--repairer", repairer, "--sarif", str(sarif), "--json"
        )
    )

    out, err = capfd.readouterr()
    assert code == 0, err
    doc = findings_doc(ws)
    first, second = doc["passes"]
    assert (first["pass"], first["verdict"], second["pass"], second["verdict"]) == (
        1,
        "NOT-READY",
        2,
        "READY",
    )
    opened = {f["id"]: f for f in first["findings"]}
    kinds = sorted((f["source"], f["check"] or "", f["severity"]) for f in opened.values())
    assert kinds == [
        ("reviewer", "", "major"),
        ("sensor", "formatter", "minor"),
        ("sensor", "secret-scan", "critical"),
    ]
    assert sorted(opened) == ["CR-001", "CR-002", "CR-003"]
    assert {f["status"] for f in first["findings"]} == {"open"}
    assert {f["id"]: f["status"] for f in second["findings"]} == dict.fromkeys(opened, "resolved")
    assert first["repair"]["status"] == "done" and second["repair"] is None
    checks = {c["name"]: c["status"] for c in second["checks"]}
    assert checks["findings-schema"] == "passed" and checks["secret-scan"] == "passed"
    assert doc["verdict"] == "READY" and doc["receipt"]["verdict"] == "READY"
    assert json.loads(out)["verdict"] == "READY"
    report = report_text(ws)
    assert "**Verdict: READY**" in report and "## Resolved findings (3)" in report
    assert (
        "| 1 | 1 | NOT-READY | 2 | 1 | 0 |" in report and "| 1 | 2 | READY | 0 | 0 | 3 |" in report
    )
    # The secret value appears in none of the review's files, briefs, SARIF or output.
    written = [p for p in (ws / "aidlc-docs").rglob("*") if p.is_file()] + [sarif]
    assert all(FAKE_KEY not in p.read_text(errors="replace") for p in written)
    assert FAKE_KEY not in out + err


def test_a_unit_that_stays_not_ready_uses_two_passes_when_gated(tmp_path, capsys):
    ws = _workspace(tmp_path, app=LINT_ERROR)
    idle = script_agent(tmp_path / "idle.py", "import sys; sys.stdin.read()\n")
    assert main(review_args(ws, "--repairer", idle)) == 1
    doc = findings_doc(ws)
    assert [(p["pass"], p["verdict"]) for p in doc["passes"]] == [
        (1, "NOT-READY"),
        (2, "NOT-READY"),
    ]
    assert [f["id"] for f in doc["passes"][1]["findings"] if f["status"] == "open"] == ["CR-001"]
    out = capsys.readouterr().out
    assert "verdict: NOT-READY (attempt 1, 2 pass(es))" in out
    assert "CR-001 major    src/orders/app.py:1: F401 `os` imported but unused (https://" in out


def test_a_unit_that_stays_not_ready_uses_three_passes_when_autonomous(tmp_path, capsys):
    ws = _workspace(tmp_path, app=LINT_ERROR)
    idle = script_agent(tmp_path / "idle.py", "import sys; sys.stdin.read()\n")
    assert main(review_args(ws, "--mode", "autonomous", "--repairer", idle)) == 1
    doc = findings_doc(ws)
    assert [p["pass"] for p in doc["passes"]] == [1, 2, 3]
    assert doc["receipt"]["pass"] == 3 and doc["receipt"]["verdict"] == "NOT-READY"
    assert "## Remaining findings (1)" in report_text(ws)
    assert "> F401 `os` imported but unused (https://" in report_text(ws)


def test_minor_findings_alone_give_ready(tmp_path, capsys):
    ws = _workspace(tmp_path, util=UNFORMATTED, app=CLEAN)
    assert main(review_args(ws)) == 0
    doc = findings_doc(ws)
    assert doc["verdict"] == "READY"
    assert [(f["severity"], f["status"], f["check"]) for f in doc["passes"][0]["findings"]] == [
        ("minor", "open", "formatter")
    ]


def test_without_a_repairer_the_first_not_ready_pass_goes_to_the_gate(tmp_path, capsys):
    ws = _workspace(tmp_path, app=LINT_ERROR)
    assert main(review_args(ws)) == 1
    assert len(findings_doc(ws)["passes"]) == 1
    # Running again on unchanged source reviews nothing new.
    assert main(review_args(ws)) == 1
    assert len(findings_doc(ws)["passes"]) == 1
    assert "unchanged since pass 1 of attempt 1: NOT-READY" in capsys.readouterr().err


def test_a_finding_keeps_its_id_when_its_line_moves(tmp_path, capsys):
    ws = _workspace(tmp_path, app=LINT_ERROR)
    mover = script_agent(
        tmp_path / "mover.py",
        """
        import pathlib
        path = pathlib.Path("src/orders/app.py")
        path.write_text('\"\"\"App.\"\"\"\\n\\n' + path.read_text())
    """,
    )
    assert main(review_args(ws, "--repairer", mover)) == 1
    first, second = findings_doc(ws)["passes"]
    assert [(f["id"], f["location"]) for f in first["findings"]] == [("CR-001", "1")]
    assert [(f["id"], f["location"], f["status"]) for f in second["findings"]] == [
        ("CR-001", "3", "open")
    ]


def test_the_same_review_of_the_same_bytes_writes_identical_artifacts(tmp_path, capsys):
    outputs = []
    for name in ("one", "two"):
        ws = make_workspace(tmp_path / name / "ws", {"src/orders/app.py": LINT_ERROR})
        assert main(review_args(ws)) == 1
        folder = ws / "aidlc-docs" / "construction" / "u1-orders"
        outputs.append(
            [
                (folder / "code-review" / "code-review-findings.json").read_bytes(),
                (folder / "code-review" / "code-review.md").read_bytes(),
                (folder / "code-review" / "code-review-receipt.json").read_bytes(),
            ]
        )
    # identical but for the audit time each pass records
    stamp = re.compile(rb'"at": "[^"]+"|\| \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z \|')
    assert [[stamp.sub(b"AT", o) for o in out] for out in outputs] == [
        [stamp.sub(b"AT", o) for o in outputs[0]]
    ] * 2


def test_a_repairer_that_writes_the_review_files_is_overruled(tmp_path, capsys):
    ws = _workspace(tmp_path, app=LINT_ERROR)
    meddler = script_agent(
        tmp_path / "meddler.py",
        """
        import os, pathlib
        record = pathlib.Path(os.environ["AIDLC_RECORD"])
        review = record / "construction" / os.environ["AIDLC_UNIT"] / "code-review"
        (review / "code-review-findings.json").write_text("{}")
        (review / "code-review.md").write_text("# all good\\n")
        pathlib.Path("src/orders/app.py").write_text("def answer() -> int:\\n    return 42\\n")
    """,
    )
    assert main(review_args(ws, "--repairer", meddler)) == 0
    doc = findings_doc(ws)
    assert [(p["pass"], p["verdict"]) for p in doc["passes"]] == [(1, "NOT-READY"), (2, "READY")]
    assert "**Verdict: READY**" in report_text(ws)


def test_the_built_in_reviewer_is_given_no_brief(tmp_path):
    """No model reads it: none is built (its diffs and redaction cost a second a pass)."""
    ws = make_workspace(tmp_path / "ws", {"src/orders/app.py": CLEAN})
    assert main(review_args(ws)) == 0
    briefs = ws / "aidlc-docs/.aidlc-engine/code-review/u1-orders/briefs"
    assert not briefs.exists() or not list(briefs.glob("reviewer-*"))


HALLUCINATING = """
    import json
    real = {"severity": "major", "category": "error-handling", "path": "src/orders/calc.py",
            "location": "3", "finding": "mean() divides by zero for an empty list",
            "evidence": "return sum(values) / count with count == 0",
            "recommendation": "Return 0.0 for an empty list."}
    invented = {"severity": "critical", "category": "security", "path": "src/orders/calc.py",
                "location": "2", "finding": "shell injection",
                "evidence": "`subprocess.run(values, shell=True)` runs user input",
                "recommendation": "Do not use a shell."}
    print(json.dumps({"verdict": "NOT-READY", "summary": "Two findings.",
                      "findings": [real, invented] if REAL else [invented]}))
"""


def test_a_hallucinated_blocking_finding_does_not_block_while_a_real_one_does(tmp_path):
    ws = _workspace(tmp_path, calc=CALC_BUG)
    both = script_agent(tmp_path / "a" / "both.py", HALLUCINATING.replace("REAL", "True"))
    invented = script_agent(tmp_path / "a" / "one.py", HALLUCINATING.replace("REAL", "False"))

    assert main(review_args(ws, "--reviewer", both, "--repairer", "none")) == 1
    found = {f["finding"]: f for f in findings_doc(ws)["passes"][-1]["findings"]}
    assert found["mean() divides by zero for an empty list"]["status"] == "open"
    assert found["shell injection"]["status"] == "unverified"
    assert "## Unverified reviewer findings (1)" in report_text(ws)

    alone = make_workspace(tmp_path / "alone", {"src/orders/calc.py": CALC_BUG})
    assert main(review_args(alone, "--reviewer", invented, "--repairer", "none")) == 0
    [only] = findings_doc(alone)["passes"][-1]["findings"]
    assert (only["finding"], only["status"]) == ("shell injection", "unverified")
    assert main(["review", "verify", "--workspace", str(alone), "--unit", UNIT, "--ready"]) == 0
