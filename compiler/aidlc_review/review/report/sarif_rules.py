"""The SARIF rule of a finding: its ID, whether it is a security rule, and its help page.

GitHub code scanning ranks a rule as a security alert (Critical/High/Medium/Low) from its
``security-severity`` and files it under security only with the ``security`` tag, so both
go on security rules alone: a secret, the security lens's bandit rules (ruff's ``S``
codes), the dependency audit (known vulnerabilities), the runtime's quoted secret and a
reviewer finding of category ``security``. An unused import is a warning or an error,
never a High security alert.
"""

from __future__ import annotations

from collections.abc import Callable

from aidlc_review.review.record.models import Finding
from aidlc_review.sensors.descriptors import docs_page, is_security_rule

# Where this plugin's own checks are documented: the repository README's ``<owner>``
# stands for this address (one place to change for a fork).
PLUGIN_DOCS = "https://github.com/awslabs/aidlc-code-review/blob/main/"
SECURITY_SEVERITY = {"critical": "9.0", "major": "7.0", "minor": "3.0"}

_SECURITY_RULES = frozenset({"secret-quoted", "dependencies/audit"})


def rule_id(finding: Finding) -> str:
    """``linter/F401``, ``secret-scan/AWS Access Key``, ``reviewer/error-handling``."""
    owner = finding.check or finding.source
    rule = finding.rule or finding.category
    return rule if rule.startswith(owner + "/") else f"{owner}/{rule}"


def is_security(finding: Finding) -> bool:
    checks = {finding.check, *finding.checks}
    return (
        "secret-scan" in checks
        or (finding.rule or "") in _SECURITY_RULES
        or any(is_security_rule(check, finding.rule) for check in checks)
        or (finding.source == "reviewer" and finding.category == "security")
    )


def _plugin_page(page: str) -> Callable[[Finding], str]:
    return lambda _finding: PLUGIN_DOCS + page


# who reported a finding -> its rule's help page when no tool descriptor has ``docs`` for
# it; a sensor not listed: its page in sensors/
HELP_PAGES: dict[str, Callable[[Finding], str]] = {
    "reviewer": _plugin_page("docs/severity.md"),
    "runtime": _plugin_page("docs/runtime.md"),
}


def help_uri(finding: Finding) -> str:
    return _help(finding)[1]


def _help(finding: Finding) -> tuple[str, str]:
    """(the tool's docs URL or "", the rule's help page)."""
    described = docs_page(finding.check, finding.rule, finding.finding)
    if described:
        return described
    owner = finding.check or finding.source
    page = HELP_PAGES.get(owner) or _plugin_page(f"sensors/aidlc-{owner}.md")
    return "", page(finding)


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
    docs, uri = _help(first)
    owner = first.check or first.source
    code = rule.removeprefix(owner + "/")
    page_name = uri.rsplit("/", 1)[-1] if docs and uri != docs else ""
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
