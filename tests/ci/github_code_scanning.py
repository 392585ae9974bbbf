"""GitHub's documented rules for a SARIF upload to code scanning, as a checker.

From "SARIF support for code scanning" (docs.github.com, code-security reference) and the
GitHub rules (GH1001-GH1005) of Microsoft's SARIF multitool, which encode the same page:
- a run names its tool (``tool.driver.name``); one upload holds at most one run per tool
  and category (the category is ``automationDetails.id`` up to its last ``/``);
- a rule has ``id``, ``shortDescription.text``, ``fullDescription.text`` and ``help.text``;
  ``security-severity`` is a score from 0.0 to 10.0 for security queries, those whose
  ``properties.tags`` include ``security``;
- a result has ``message.text``, a ``ruleId`` naming a rule, ``partialFingerprints`` and
  1 to 10 ``locations``, each a ``physicalLocation`` whose ``artifactLocation.uri`` is a
  relative path (or a ``file:`` URI) and whose ``region.startLine`` is at least 1:
  code scanning does not show a result without them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from aidlc_review.harness.layout import PROJECT_ROOT

# the OASIS schema, vendored with its source and licence noted (tests/fixtures/sarif/README.md)
SARIF_SCHEMA = PROJECT_ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"


def violations(log: dict[str, Any]) -> list[str]:
    found: list[str] = []
    categories: set[tuple[str, str]] = set()
    for r, run in enumerate(log["runs"]):
        driver = run["tool"]["driver"]
        if not driver.get("name"):
            found.append(f"runs[{r}].tool.driver.name: missing")
        run_id = run.get("automationDetails", {}).get("id", "")
        category = (driver.get("name"), run_id.rpartition("/")[0])
        if category in categories:
            found.append(f"runs[{r}]: a second run of tool and category {category}")
        categories.add(category)
        rules = {rule["id"]: rule for rule in driver.get("rules", [])}
        for i, rule in enumerate(driver.get("rules", [])):
            found += _rule_violations(f"runs[{r}].tool.driver.rules[{i}]", rule)
        for i, result in enumerate(run["results"]):
            found += _result_violations(f"runs[{r}].results[{i}]", result, rules)
    return found


def _rule_violations(where: str, rule: dict[str, Any]) -> list[str]:
    found = [
        f"{where}.{key}.text: missing"
        for key in ("shortDescription", "fullDescription", "help")
        if not rule.get(key, {}).get("text")
    ]
    properties = rule.get("properties", {})
    score = properties.get("security-severity")
    if score is not None:
        if "security" not in properties.get("tags", []):
            found.append(f"{where}: security-severity {score} on a rule not tagged security")
        if not isinstance(score, str) or not 0.0 <= float(score) <= 10.0:
            found.append(f"{where}: security-severity {score!r} is not a score of 0.0-10.0")
    return found


def _result_violations(where: str, result: dict[str, Any], rules: dict[str, Any]) -> list[str]:
    found = []
    if not result.get("message", {}).get("text"):
        found.append(f"{where}.message.text: missing")
    if result.get("ruleId") not in rules:
        found.append(f"{where}.ruleId: {result.get('ruleId')!r} names no rule")
    if not result.get("partialFingerprints"):
        found.append(f"{where}.partialFingerprints: missing")
    locations = result.get("locations", [])
    if not 1 <= len(locations) <= 10:
        found.append(f"{where}.locations: {len(locations)} location(s), 1 to 10 are shown")
    for n, location in enumerate(locations):
        physical = location.get("physicalLocation", {})
        uri = physical.get("artifactLocation", {}).get("uri", "")
        scheme = urlparse(uri).scheme
        if not uri or uri.startswith("/") or scheme not in ("", "file"):
            found.append(f"{where}.locations[{n}]: uri {uri!r} is not a relative path")
        if physical.get("region", {}).get("startLine", 0) < 1:
            found.append(f"{where}.locations[{n}].region.startLine: missing")
    return found
