"""The SARIF rule of a finding: its ID, whether it is a security rule, and its help page.

GitHub code scanning ranks a rule as a security alert (Critical/High/Medium/Low) from its
``security-severity`` and files it under security only with the ``security`` tag, so both
go on security rules alone: a secret, the security lens's bandit rules (ruff's ``S``
codes), the dependency audit (known vulnerabilities), the runtime's quoted secret and a
reviewer finding of category ``security``. An unused import is a warning or an error,
never a High security alert.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from aidlc_review.review.record.models import Finding

# Where this plugin's own checks are documented: the repository README's ``<owner>``
# stands for this address (one place to change for a fork).
PLUGIN_DOCS = "https://github.com/awslabs/aidlc-code-review/blob/main/"
RUFF_RULES = "https://docs.astral.sh/ruff/rules/"
MYPY_CODES = "https://mypy.readthedocs.io/en/stable/error_codes.html"
DETECT_SECRETS = "https://github.com/Yelp/detect-secrets/blob/master/README.md"
SECURITY_SEVERITY = {"critical": "9.0", "major": "7.0", "minor": "3.0"}

_BANDIT = re.compile(r"S[0-9]{3}")
# ruff prints its own page for a rule (``.../rules/unused-import``); the sensor keeps it
_RUFF_PAGE = re.compile(r"\((https://docs\.astral\.sh/ruff/rules/[a-z0-9-]+)\)")
_SECURITY_RULES = frozenset({"secret-quoted", "dependencies/audit"})


def rule_id(finding: Finding) -> str:
    """``linter/F401``, ``secret-scan/AWS Access Key``, ``reviewer/error-handling``."""
    owner = finding.check or finding.source
    rule = finding.rule or finding.category
    return rule if rule.startswith(owner + "/") else f"{owner}/{rule}"


def is_security(finding: Finding) -> bool:
    checks = {finding.check, *finding.checks}
    code = (finding.rule or "").rsplit("/", 1)[-1]
    return (
        "secret-scan" in checks
        or (finding.rule or "") in _SECURITY_RULES
        or (bool(checks & {"security", "linter"}) and _BANDIT.fullmatch(code) is not None)
        or (finding.source == "reviewer" and finding.category == "security")
    )


def _ruff_page(finding: Finding) -> str:
    found = _RUFF_PAGE.search(finding.finding)
    return found.group(1) if found else RUFF_RULES


def _plugin_page(page: str) -> Callable[[Finding], str]:
    return lambda _finding: PLUGIN_DOCS + page


# who reported a finding -> its rule's help page; a sensor not listed: its page in sensors/
HELP_PAGES: dict[str, Callable[[Finding], str]] = {
    "linter": _ruff_page,
    "security": _ruff_page,
    "type-check": lambda _finding: MYPY_CODES,
    "secret-scan": lambda _finding: DETECT_SECRETS,
    "reviewer": _plugin_page("docs/severity.md"),
    "runtime": _plugin_page("docs/runtime.md"),
}


def help_uri(finding: Finding) -> str:
    owner = finding.check or finding.source
    page = HELP_PAGES.get(owner) or _plugin_page(f"sensors/aidlc-{owner}.md")
    return page(finding)


def rule_descriptor(rule: str, findings: list[Finding]) -> dict[str, object]:
    """One ``reportingDescriptor``, from every open finding of the rule."""
    first = findings[0]
    security = any(is_security(f) for f in findings)
    categories = {f.category for f in findings} - {"security"}
    tags = sorted(categories) + (["security"] if security else [])
    properties: dict[str, object] = {"tags": tags}
    if security:
        worst = max(float(SECURITY_SEVERITY[f.severity]) for f in findings)
        properties["security-severity"] = f"{worst:.1f}"
    uri = help_uri(first)
    owner = first.check or first.source
    code = rule.removeprefix(owner + "/")
    page_name = uri.rsplit("/", 1)[-1] if uri.startswith(RUFF_RULES) else ""
    title = f"{code} {page_name}" if page_name else code
    return {
        "id": rule,
        "name": rule.replace("/", "-").replace(" ", "-"),
        "shortDescription": {"text": f"{title} ({owner})"},
        "fullDescription": {"text": f"{owner} reports {title}; its help page says what it means."},
        "helpUri": uri,
        "help": {"text": f"{title}: see {uri}"},
        "properties": properties,
    }
