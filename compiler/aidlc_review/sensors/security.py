"""security: the security rules of the runner's rule checker on every claimed file.

The linter sensor honours the workspace's rule selection; this one does not. Its tool's argv
(the security manifest's descriptor) reads no configuration file and selects the rules
itself, so a workspace that selects only ``E`` still hears about SQL built by concatenation;
the runner's option ``argv_must_hold`` names the flags that make it so, and a descriptor
without them is an error, never a narrower check. An inline suppression counts only if it
stood at the unit's base (``suppressions``): one the change added is reported as hiding what
it hides, at that finding's severity. Severities are the linter's (``rule_severity``): in
test files an ``assert`` or a fixture password is not reported, and the workspace tunes the
rest in ``[tool.aidlc-review.severity]``.
"""

from __future__ import annotations

from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    nothing_to_check,
    run_file_local,
    select_tool,
)
from aidlc_review.sensors.own_tool import config_names, overrides_of, read_batch, rule_findings
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.suppressions import Suppressions
from aidlc_review.sensors.tools import shown_command


def run(ctx: SensorContext) -> CheckResult:
    if not ctx.files:
        return nothing_to_check(ctx)
    tool = select_tool(ctx)
    argv = tool.argv()
    for flag in ctx.option("argv_must_hold", []):
        if flag not in argv:
            raise SensorError(f"the {ctx.name} sensor's {tool.spec.tool} argv must include {flag}")

    marks = Suppressions(ctx.workspace, ctx.settings, tool.spec.suppressions)

    def check(batch: list[str]) -> dict[str, list[CheckFinding]]:
        return marks.judge(rule_findings(ctx, tool.spec, read_batch(ctx, tool, batch), batch))

    # its descriptor names no configuration file (it reads none): none is in the cache key
    key = (tool.spec.model_dump(), tool.version, overrides_of(ctx).key())
    configs = config_names(tool.spec)
    findings = run_file_local(ctx, key, tool.spec.tool, configs, check, marks.key)
    return judged(
        ctx.name,
        findings,
        shown_command(argv, ctx.files),
        tool=tool.spec.tool,
        tool_version=tool.version,
    )
