"""Nothing a tool reported is dropped, and one defect is one finding.

Real ruff, run by the ``linter`` sensor (the workspace's selection) and by the
``security`` sensor (its own fixed selection, which includes ``E722`` and ``S608``).
"""

from __future__ import annotations

import json
from pathlib import Path

from aidlc_review.cli.main import main
from aidlc_review.review.findings.ledger import Observation, merge
from tests.review.workspace import findings_doc, make_workspace, report_text, review_args, write

PATH = "src/orders/jobs.py"


def _bare_excepts_at(lines: tuple[int, ...], length: int = 45) -> str:
    """A module whose only defects are bare ``except:`` clauses at exactly ``lines``."""
    text = ['"""Jobs."""']
    while len(text) < length:
        number = len(text) + 1
        if number + 2 in lines:
            text += ["try:", "    x = 1", "except:", "    x = 0"]
        else:
            text.append(f"y{number} = {number}")
    return "\n".join(text[:length]) + "\n"


def _review(ws: Path, tmp_path: Path) -> dict:
    sarif = tmp_path / "out.sarif"
    main(review_args(ws, "--sarif", str(sarif)))
    return json.loads(sarif.read_text())


def test_three_hits_of_one_rule_keep_all_three_lines_in_json_report_and_sarif(tmp_path, capsys):
    source = _bare_excepts_at((4, 15, 42))
    assert [n for n, line in enumerate(source.splitlines(), 1) if line == "except:"] == [4, 15, 42]
    ws = make_workspace(tmp_path / "ws", {PATH: source})
    sarif = _review(ws, tmp_path)

    [finding] = [f for f in findings_doc(ws)["passes"][-1]["findings"] if f["rule"] == "E722"]
    assert [place["line"] for place in finding["locations"]] == [4, 15, 42]
    assert finding["location"] == "4"
    # linter (the workspace selects E) and security both report E722: one finding, two sources
    assert finding["checks"] == ["linter", "security"]
    report = report_text(ws)
    assert "- Locations (3):\n  - line 4\n  - line 15\n  - line 42\n" in report
    results = [r for r in sarif["runs"][0]["results"] if r["properties"]["id"] == finding["id"]]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [
        4,
        15,
        42,
    ]
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    # a bare except is no security alert: security-severity only on security rules (#25)
    properties = rules[results[0]["ruleId"]]["properties"]
    assert "security-severity" not in properties and "security" not in properties["tags"]


def test_the_report_caps_the_lines_it_prints_and_points_at_the_json(tmp_path, capsys):
    lines = tuple(range(4, 4 + 4 * 12, 4))
    ws = make_workspace(tmp_path / "ws", {PATH: _bare_excepts_at(lines, length=60)})
    _review(ws, tmp_path)
    [finding] = [f for f in findings_doc(ws)["passes"][-1]["findings"] if f["rule"] == "E722"]
    assert [place["line"] for place in finding["locations"]] == list(lines)
    assert "  - 2 more in code-review-findings.json\n" in report_text(ws)


def test_the_linter_and_the_security_lens_on_one_rule_and_line_are_one_finding(tmp_path, capsys):
    ws = make_workspace(
        tmp_path / "ws",
        {PATH: 'def find(db, name):\n    return db.execute("SELECT * FROM t WHERE n = " + name)\n'},
    )
    pyproject = (ws / "pyproject.toml").read_text()
    write(ws / "pyproject.toml", pyproject.replace('"E", "F", "W"', '"E", "F", "W", "S"'))
    _review(ws, tmp_path)
    sql = [f for f in findings_doc(ws)["passes"][-1]["findings"] if f["rule"] == "S608"]
    assert [(f["checks"], [p["line"] for p in f["locations"]]) for f in sql] == [
        (["linter", "security"], [2])
    ]
    assert "https://docs.astral.sh/ruff/rules/hardcoded-sql-expression" in sql[0]["finding"]


def _hit(line: int, message: str) -> Observation:
    return Observation(
        "major",
        "correctness",
        "src/a.py",
        str(line),
        message,
        f"type-check (mypy 1.11) reported arg-type at line {line}.",
        "Fix the type error the checker reports.",
        "sensor",
        f"fp-{line}",
        check="type-check",
        rule="arg-type",
    )


def test_per_line_messages_are_kept_where_they_differ_and_the_id_survives_a_new_hit():
    first = merge([], [_hit(3, 'Argument 1 has type "str"'), _hit(9, 'Argument 2 has "int"')], 1, 1)
    [finding] = first
    assert [(p.line, p.message) for p in finding.locations] == [
        (3, 'Argument 1 has type "str"'),
        (9, 'Argument 2 has "int"'),
    ]
    assert (
        finding.evidence == "type-check (mypy 1.11) reported arg-type at 2 lines (see locations)."
    )
    second = merge(first, [_hit(3, 'Argument 1 has type "str"'), _hit(20, "x")], 1, 2)
    assert [(f.id, f.status, [p.line for p in f.locations]) for f in second] == [
        ("CR-001", "open", [3, 20])
    ]
    assert merge(second, [], 1, 3)[0].status == "resolved"
