"""doctor's facts as the text a person reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aidlc_review.doctor.readiness import render_readiness
from aidlc_review.harness.review_plan import broken_message


def render_doctor(facts: dict[str, Any]) -> str:
    lines = [
        f"aidlc-review {facts['aidlc_review']} (python {facts['python']})",
        f"definitions: {facts['definitions']['path']} (from the {facts['definitions']['from']})",
    ]
    harness = facts["harness"]
    lines.append(f"harness: {harness['path']}: {harness['kind']}")
    if "aidlc_version" in harness:
        lines.append(
            f"  AI-DLC {harness['aidlc_version'] or 'unknown'}, "
            f"{harness['engine_tools']} engine tool(s), "
            f"plugin {harness['plugin_version'] or 'not installed'}"
        )
    if harness.get("install_broken"):
        lines.append("  " + broken_message(Path(harness["path"]), harness["install_broken"]))
    for name, tool in facts["tools"].items():
        where = f" ({tool['path']})" if tool["path"] else ""
        lines.append(f"{name}: {tool['version']}{where}")
    record = facts["record"]
    if record["path"] is None:
        lines.append(f"record: none ({record['problem']})")
    else:
        lines.append(f"record: {record['path']} ({record['kind']})")
    lines += render_readiness(facts["workspace"])
    return "\n".join(lines) + "\n"
