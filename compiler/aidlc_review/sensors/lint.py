"""linter: the workspace's rule checker on the claimed files, violations mapped to findings.

The runner's own tool (the linter manifest's first, ``runner_format`` its report) runs with
the workspace's configuration unchanged, check-only, its cache kept out of the workspace and
its inline suppressions ignored (its descriptor's argv says how): only the suppressions that
stood at the unit's base are honoured (``suppressions``); what one the change added hides is
reported as hidden by it. A finding quotes the tool's message with its rule code and the
rule's page; its severity is the rule's in ``rule_severity`` (the security lens gives it the
same). Every claimed ``.py`` file is also compiled by CPython (``python_compile``): one it
cannot compile is a major ``syntax-error`` finding, unless the tool already reported that
defect. Every other linter the workspace configures (eslint...) runs through its descriptor
(``sensors.described``).
"""

from __future__ import annotations

from aidlc_review.sensors.context import SensorContext, run_file_local, select_tool
from aidlc_review.sensors.described import run_with_described
from aidlc_review.sensors.own_tool import config_names, overrides_of, read_batch, rule_findings
from aidlc_review.sensors.python_compile import PARSER, compile_finding
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.suppressions import Suppressions
from aidlc_review.sensors.tools import shown_command


def run(ctx: SensorContext) -> CheckResult:
    """The runner's own tool on the claimed files it takes; every other linter the workspace
    configures through its descriptor, on the files it takes."""
    return run_with_described(ctx, _own)


def _own(ctx: SensorContext) -> CheckResult:
    tool = select_tool(ctx)
    marks = Suppressions(ctx.workspace, ctx.settings, tool.spec.suppressions)

    def check(batch: list[str]) -> dict[str, list[CheckFinding]]:
        hits = read_batch(ctx, tool, batch)
        found = marks.judge(rule_findings(ctx, tool.spec, hits, batch))
        for path in batch:
            failure = compile_finding(ctx, path, found.get(path, []))
            if failure is not None:
                found.setdefault(path, []).append(failure)
        return found

    # cached with the tool's findings: the compile check's answer depends on the interpreter
    # too, their severities on the workspace's overrides
    key = (tool.spec.model_dump(), tool.version, PARSER, overrides_of(ctx).key())
    configs = config_names(tool.spec)
    findings = run_file_local(ctx, key, tool.spec.tool, configs, check, marks.key)
    return judged(
        ctx.name,
        findings,
        shown_command(tool.argv(), ctx.files),
        tool=tool.spec.tool,
        tool_version=tool.version,
    )
