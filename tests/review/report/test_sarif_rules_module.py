"""Spec of ``review.report.sarif_rules``: a finding's SARIF rule ID, security rank and help page."""

from __future__ import annotations

import pytest

from aidlc_review.harness.layout import PROJECT_ROOT
from aidlc_review.review.record.models import Finding
from aidlc_review.review.report.sarif_rules import (
    HELP_PAGES,
    PLUGIN_DOCS,
    help_uri,
    is_security,
    rule_descriptor,
    rule_id,
)
from aidlc_review.sensors.descriptors import docs_page, shipped_tools
from aidlc_review.sensors.registry import RUNNERS


def docs_of(sensor: str, tool: str) -> str:
    """The docs URL a tool's descriptor gives (the manifests say it, not this test)."""
    [docs] = [spec.docs for name, spec in shipped_tools() if (name, spec.tool) == (sensor, tool)]
    assert docs
    return docs


RUFF_RULES = docs_of("linter", "ruff")
MYPY_CODES = docs_of("type-check", "mypy")
DETECT_SECRETS = docs_of("secret-scan", "detect-secrets")

UNUSED = "F401 `os` imported but unused (https://docs.astral.sh/ruff/rules/unused-import)"


def finding(
    check: str | None = "linter",
    rule: str | None = "F401",
    *,
    source: str = "sensor",
    category: str = "maintainability",
    severity: str = "major",
    checks: list[str] | None = None,
    text: str = UNUSED,
) -> Finding:
    return Finding.model_validate(
        {
            "id": "CR-001",
            "severity": severity,
            "category": category,
            "path": "src/orders/app.py",
            "finding": text,
            "evidence": "e",
            "recommendation": "r",
            "status": "open",
            "source": source,
            "check": check,
            "checks": checks if checks is not None else [check] if check else [],
            "rule": rule,
            "fingerprint": "sha256:1",
            "first_seen": 1,
            "attempt": 1,
        }
    )


def reviewer(category: str = "error-handling", severity: str = "major") -> Finding:
    return finding(None, None, source="reviewer", category=category, severity=severity, text="t")


def test_a_rule_id_is_the_reporter_then_its_rule() -> None:
    assert rule_id(finding("linter", "F401")) == "linter/F401"
    assert rule_id(finding("secret-scan", "AWS Access Key")) == "secret-scan/AWS Access Key"
    assert rule_id(finding(None, "reviewer-unavailable", source="runtime")) == (
        "runtime/reviewer-unavailable"
    )


def test_a_rule_already_named_by_its_reporter_is_not_prefixed_twice() -> None:
    assert rule_id(finding("coverage", "coverage/tests-failed")) == "coverage/tests-failed"
    assert rule_id(finding("formatter", "formatter/unformatted")) == "formatter/unformatted"


def test_a_rule_that_only_begins_with_the_reporters_name_is_still_prefixed() -> None:
    assert rule_id(finding("type", "type-check/x")) == "type/type-check/x"


def test_a_finding_without_a_rule_is_named_by_its_category() -> None:
    assert rule_id(reviewer("error-handling")) == "reviewer/error-handling"


def test_secrets_are_security_rules_whoever_reported_them_first() -> None:
    assert is_security(finding("secret-scan", "AWS Access Key", category="security"))
    # ruff's S105 and detect-secrets' hit on one line are one finding naming both sensors
    assert is_security(finding("linter", "S105", checks=["linter", "secret-scan"]))


@pytest.mark.parametrize(
    ("check", "rule"),
    [("security", "S602"), ("linter", "S105"), ("security", "security/S608")],
)
def test_ruffs_bandit_codes_from_the_linter_or_the_security_lens_are_security_rules(
    check: str, rule: str
) -> None:
    assert is_security(finding(check, rule))


@pytest.mark.parametrize(
    ("check", "rule"),
    [
        ("linter", "F401"),  # an unused import is never a security alert
        ("linter", "SIM101"),  # flake8-simplify: an S, but not a bandit code
        ("security", "S60"),
        ("security", "S6021"),
        ("security", "BLE001"),  # the security lens also selects blind excepts: not bandit
        ("type-check", "S101"),  # a bandit-looking code from a sensor that is not ruff
        ("formatter", "formatter/unformatted"),
    ],
)
def test_other_sensor_rules_are_not_security_rules(check: str, rule: str) -> None:
    assert not is_security(finding(check, rule, category="security"))


def test_the_runtimes_quoted_secret_and_the_dependency_audit_are_security_rules() -> None:
    assert is_security(finding(None, "secret-quoted", source="runtime", category="security"))
    assert is_security(finding("dependencies", "dependencies/audit", category="configuration"))
    assert not is_security(finding("dependencies", "dependencies/unapproved"))


def test_a_reviewer_finding_is_a_security_rule_only_in_the_security_category() -> None:
    assert is_security(reviewer("security"))
    assert not is_security(reviewer("correctness"))
    assert not is_security(finding(None, "reviewer-unavailable", source="runtime"))


def test_ruff_findings_link_the_page_ruff_printed_else_ruffs_rule_index() -> None:
    assert help_uri(finding("linter", "F401")) == RUFF_RULES + "unused-import"
    page = "https://docs.astral.sh/ruff/rules/subprocess-popen-with-shell-equals-true"
    shell = f"S602 `subprocess` call with `shell=True` ({page})"
    assert help_uri(finding("security", "S602", text=shell)) == (
        RUFF_RULES + "subprocess-popen-with-shell-equals-true"
    )
    assert help_uri(finding("linter", "F401", text="F401 `os` imported but unused")) == RUFF_RULES


def test_a_link_that_is_not_ruffs_rule_page_is_not_taken_from_the_message() -> None:
    lure = "F401 unused (https://evil.example/ruff/rules/unused-import)"
    assert help_uri(finding("linter", "F401", text=lure)) == RUFF_RULES


def test_each_other_reporter_has_its_own_help_page() -> None:
    assert help_uri(finding("type-check", "type-check/arg-type")) == MYPY_CODES
    assert help_uri(finding("secret-scan", "AWS Access Key")) == DETECT_SECRETS
    assert help_uri(reviewer()) == PLUGIN_DOCS + "docs/severity.md"
    assert help_uri(finding(None, "secret-quoted", source="runtime")) == (
        PLUGIN_DOCS + "docs/runtime.md"
    )
    assert help_uri(finding("formatter", "formatter/unformatted")) == (
        PLUGIN_DOCS + "sensors/aidlc-formatter.md"
    )
    assert help_uri(finding("coverage", "coverage/tests-failed")) == (
        PLUGIN_DOCS + "sensors/aidlc-coverage.md"
    )


def test_every_page_of_the_plugins_own_that_a_rule_links_exists_in_the_repository() -> None:
    owners = [
        finding(name, f"{name}/x", text="t")
        for name in sorted(RUNNERS)
        if name not in HELP_PAGES and docs_page(name, f"{name}/x", "t") is None
    ]
    assert owners  # the coverage, formatter, dependencies … sensors: their own pages
    pages = [help_uri(f) for f in [*owners, reviewer(), finding(None, "x", source="runtime")]]
    own = [page for page in pages if page.startswith(PLUGIN_DOCS)]
    assert len(own) == len(pages)
    missing = [p for p in own if not (PROJECT_ROOT / p.removeprefix(PLUGIN_DOCS)).is_file()]
    assert missing == []


def test_a_ruff_rules_descriptor_names_its_code_and_ruffs_page() -> None:
    assert rule_descriptor("linter/F401", [finding("linter", "F401")]) == {
        "id": "linter/F401",
        "name": "linter-F401",
        "shortDescription": {"text": "F401 unused-import (linter)"},
        "fullDescription": {
            "text": "linter reports F401 unused-import; its help page says what it means."
        },
        "helpUri": RUFF_RULES + "unused-import",
        "help": {"text": f"F401 unused-import: see {RUFF_RULES}unused-import"},
        "properties": {"tags": ["maintainability"]},
    }


def test_a_rule_whose_page_is_not_ruffs_is_titled_by_its_code_alone() -> None:
    secret = finding("secret-scan", "AWS Access Key", category="security", severity="critical")
    described = rule_descriptor("secret-scan/AWS Access Key", [secret])
    assert described["name"] == "secret-scan-AWS-Access-Key"
    assert described["shortDescription"] == {"text": "AWS Access Key (secret-scan)"}
    assert described["help"] == {"text": f"AWS Access Key: see {DETECT_SECRETS}"}
    unpaged = rule_descriptor("linter/F401", [finding(text="F401 `os` imported but unused")])
    assert unpaged["shortDescription"] == {"text": "F401 (linter)"}
    assert unpaged["helpUri"] == RUFF_RULES


def test_a_security_rule_is_tagged_security_and_ranked_by_its_worst_finding() -> None:
    findings = [
        finding("security", "S602", category="security", severity="minor"),
        finding("security", "S602", category="security", severity="critical"),
        finding("security", "S602", category="security", severity="major"),
    ]
    assert rule_descriptor("security/S602", findings)["properties"] == {
        "tags": ["security"],
        "security-severity": "9.0",
    }


@pytest.mark.parametrize(("severity", "rank"), [("major", "7.0"), ("minor", "3.0")])
def test_a_security_rules_rank_follows_its_severity(severity: str, rank: str) -> None:
    described = rule_descriptor("reviewer/security", [reviewer("security", severity)])
    assert described["properties"] == {"tags": ["security"], "security-severity": rank}


def test_the_security_tag_comes_last_after_the_other_categories_sorted() -> None:
    findings = [
        finding("linter", "S105", category="maintainability"),
        finding("linter", "S105", category="configuration"),
        finding("linter", "S105", category="security"),
    ]
    assert rule_descriptor("linter/S105", findings)["properties"] == {
        "tags": ["configuration", "maintainability", "security"],
        "security-severity": "7.0",
    }


def test_a_rule_that_is_not_a_security_rule_has_no_rank_and_no_security_tag() -> None:
    # a category of security alone does not file a sensor's non-bandit rule under security
    blind = finding("security", "BLE001", category="security", severity="critical")
    assert rule_descriptor("security/BLE001", [blind])["properties"] == {"tags": []}
    described = rule_descriptor("linter/F401", [finding(severity="critical")])
    assert described["properties"] == {"tags": ["maintainability"]}


def test_one_security_finding_makes_its_whole_rule_a_security_rule() -> None:
    long_line = finding("linter", "E501", severity="minor", text="E501 line too long")
    with_a_secret = long_line.model_copy(update={"checks": ["linter", "secret-scan"]})
    assert rule_descriptor("linter/E501", [long_line])["properties"] == {
        "tags": ["maintainability"]
    }
    assert rule_descriptor("linter/E501", [long_line, with_a_secret])["properties"] == {
        "tags": ["maintainability", "security"],
        "security-severity": "3.0",
    }
