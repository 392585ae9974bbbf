"""The review's SARIF as GitHub code scanning takes it: the OASIS schema and GitHub's rules.

Two real reviews (real ruff, detect-secrets, git; scripted reviewers): one with a lint
error, a secret, a shell call, an unformatted file and a reviewer's security finding that
names a file but no line; one whose reviewer is unavailable (a finding about no file).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft4Validator

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT
from aidlc_review.review.report.sarif_rules import PLUGIN_DOCS
from tests.ci.github_code_scanning import SARIF_SCHEMA, violations
from tests.review.report.test_sarif_rules_module import DETECT_SECRETS, MYPY_CODES, RUFF_RULES
from tests.review.workspace import (
    LEAKY,
    LINT_ERROR,
    UNFORMATTED,
    git,
    make_workspace,
    review_args,
    script_agent,
)
from tests.shared_builds import build_once, session_root

SHELL_CALL = (
    "import subprocess\n\n\ndef run(cmd: str) -> None:\n    subprocess.call(cmd, shell=True)\n"
)
MANIFEST = "aidlc-docs/construction/u1-orders/code-generation/source-manifest.json"
SECURITY_REVIEWER = """\
import json
finding = {"severity": "major", "category": "security", "path": "src/orders/q.py",
           "finding": "the command line comes from the caller",
           "evidence": "`subprocess.call(cmd, shell=True)`",
           "recommendation": "take an argv list"}
print(json.dumps({"verdict": "NOT-READY", "summary": "s", "findings": [finding]}))
"""
FILES = {
    "src/orders/app.py": LINT_ERROR,
    "src/orders/util.py": UNFORMATTED,
    "src/orders/settings.py": LEAKY,
    "src/orders/q.py": SHELL_CALL,
}


def _review(root: Path) -> None:
    ws = make_workspace(root / "ws", FILES)
    reviewer = script_agent(root / "agents" / "security.py", SECURITY_REVIEWER)
    assert main(review_args(ws, "--reviewer", reviewer, "--sarif", str(root / "a.sarif"))) == 1
    lost = make_workspace(root / "lost", {"src/orders/app.py": LINT_ERROR})
    failing = script_agent(root / "agents" / "failing.py", "import sys\nsys.exit(3)\n")
    assert main(review_args(lost, "--reviewer", failing, "--sarif", str(root / "b.sarif"))) == 1


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> tuple[dict, dict]:
    root = build_once(session_root(tmp_path_factory) / "ci-sarif-github", _review)
    return json.loads((root / "a.sarif").read_text()), json.loads((root / "b.sarif").read_text())


def _results(log: dict) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for result in log["runs"][0]["results"]:
        found.setdefault(result["ruleId"], []).append(result)
    return found


def _where(result: dict) -> tuple[str, int, int]:
    (location,) = result["locations"]
    physical = location["physicalLocation"]
    region = physical["region"]
    return physical["artifactLocation"]["uri"], region["startLine"], region["endLine"]


def test_both_logs_are_valid_sarif_2_1_0_and_keep_githubs_rules(logs):
    validator = Draft4Validator(json.loads(SARIF_SCHEMA.read_text()))
    for log in logs:
        assert sorted(e.message for e in validator.iter_errors(log)) == []
        assert violations(log) == []


def test_every_result_is_located(logs):
    located, lost = logs
    where = {rule: [_where(r) for r in results] for rule, results in _results(located).items()}
    assert where == {
        "linter/F401": [("src/orders/app.py", 1, 1)],
        "security/S602": [("src/orders/q.py", 5, 5)],
        "secret-scan/AWS Access Key": [("src/orders/settings.py", 3, 3)],
        "formatter/unformatted": [("src/orders/util.py", 2, 2)],
        # the reviewer named the file but no line: line 1 of the file
        "reviewer/security": [("src/orders/q.py", 1, 1)],
    }
    (unavailable,) = _results(lost)["runtime/reviewer-unavailable"]
    assert _where(unavailable) == (MANIFEST, 1, 1)  # about no file: the unit's manifest
    assert unavailable["message"]["text"].endswith(
        "reviewer unavailable: agent exited with status 3"
    )


def test_security_severity_and_the_security_tag_only_on_security_rules(logs):
    located, lost = logs
    rules = [
        *located["runs"][0]["tool"]["driver"]["rules"],
        *lost["runs"][0]["tool"]["driver"]["rules"],
    ]
    shown = {
        r["id"]: (r["properties"]["tags"], r["properties"].get("security-severity")) for r in rules
    }
    assert shown == {
        "formatter/unformatted": (["maintainability"], None),
        "linter/F401": (["maintainability"], None),  # never a High security alert
        "reviewer/security": (["security"], "7.0"),
        "secret-scan/AWS Access Key": (["security"], "9.0"),
        "security/S602": (["security"], "7.0"),
        "runtime/reviewer-unavailable": (["correctness"], None),
    }
    for log in logs:
        for result in log["runs"][0]["results"]:
            assert "security-severity" not in result["properties"]


def _ruff_name(code: str) -> str:
    ruff = Path(sys.executable).parent / "ruff"
    done = subprocess.run(
        [str(ruff), "rule", code, "--output-format", "json"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["name"]


def test_every_rule_has_a_help_page_that_names_it(logs):
    located, lost = logs
    rules = [
        *located["runs"][0]["tool"]["driver"]["rules"],
        *lost["runs"][0]["tool"]["driver"]["rules"],
    ]
    pages = {r["id"]: r["helpUri"] for r in rules}
    # ruff's own page for the rule, by the name ruff itself gives the code
    assert pages["linter/F401"] == RUFF_RULES + _ruff_name("F401")
    assert pages["security/S602"] == RUFF_RULES + _ruff_name("S602")
    assert pages["secret-scan/AWS Access Key"] == DETECT_SECRETS
    # the plugin's own checks: their page in this repository, which exists
    own = {rule: page for rule, page in pages.items() if page.startswith(PLUGIN_DOCS)}
    assert sorted(own) == [
        "formatter/unformatted",
        "reviewer/security",
        "runtime/reviewer-unavailable",
    ]
    for page in own.values():
        assert (PROJECT_ROOT / page.removeprefix(PLUGIN_DOCS)).is_file(), page
    assert MYPY_CODES.startswith("https://mypy.readthedocs.io/")


def test_a_line_inserted_above_a_finding_keeps_its_fingerprint(tmp_path, capsys):
    ws = make_workspace(
        tmp_path / "ws", {"src/orders/app.py": LINT_ERROR, "src/orders/q.py": SHELL_CALL}
    )
    before, after = tmp_path / "before.sarif", tmp_path / "after.sarif"
    assert main(review_args(ws, "--sarif", str(before))) == 1
    for name in ("app.py", "q.py"):
        path = ws / "src" / "orders" / name
        path.write_text('"""Orders."""\n# inserted\n\n' + path.read_text())
    git(ws, "commit", "-qam", "lines above")
    assert main(review_args(ws, "--sarif", str(after))) == 1

    def prints(log_path: Path) -> dict[str, tuple[int, dict]]:
        log = json.loads(log_path.read_text())
        return {
            r["ruleId"]: (_where(r)[1], r["partialFingerprints"]) for r in log["runs"][0]["results"]
        }

    old, new = prints(before), prints(after)
    assert sorted(old) == sorted(new) == ["linter/F401", "security/S602"]
    for rule in old:
        assert new[rule][0] == old[rule][0] + 3  # the finding moved three lines down
        assert new[rule][1] == old[rule][1]  # and code scanning still sees the same alert


def test_the_checker_is_not_vacuous():
    """GitHub's rules as checked above do reject what the review used to write."""
    rule = {
        "id": "linter/F401",
        "shortDescription": {"text": "x"},
        "fullDescription": {"text": "x"},
        "help": {"text": "x"},
        "properties": {"security-severity": "3.0"},
    }
    unlocated = {
        "ruleId": "linter/F401",
        "message": {"text": "m"},
        "partialFingerprints": {"k": "v"},
    }
    no_line = {
        **unlocated,
        "locations": [
            {"physicalLocation": {"artifactLocation": {"uri": "https://x.invalid/a.py"}}}
        ],
    }
    run = {
        "tool": {"driver": {"name": "aidlc-review", "rules": [rule]}},
        "results": [unlocated, no_line],
    }
    assert violations({"runs": [run, run]}) == [
        "runs[0].tool.driver.rules[0]: security-severity 3.0 on a rule not tagged security",
        "runs[0].results[0].locations: 0 location(s), 1 to 10 are shown",
        "runs[0].results[1].locations[0]: uri 'https://x.invalid/a.py' is not a relative path",
        "runs[0].results[1].locations[0].region.startLine: missing",
        "runs[1]: a second run of tool and category ('aidlc-review', '')",
        "runs[1].tool.driver.rules[0]: security-severity 3.0 on a rule not tagged security",
        "runs[1].results[0].locations: 0 location(s), 1 to 10 are shown",
        "runs[1].results[1].locations[0]: uri 'https://x.invalid/a.py' is not a relative path",
        "runs[1].results[1].locations[0].region.startLine: missing",
    ]
