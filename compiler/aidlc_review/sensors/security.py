"""security: ruff's bandit rules and swallowed-exception rules on every claimed Python file.

The linter sensor honours the workspace's rule selection; this one does not. ruff runs
``--isolated`` (no configuration file is read) with the manifest's own ``--select``, so a
workspace that selects only ``E`` still hears about SQL built by concatenation. A
``# noqa: S608`` counts only if it stood at the unit's base (``suppressions``): one the
change added is reported as hiding what it hides, at that finding's severity. Severities are
the linter's (``rule_severity``): in test files an ``assert`` or a fixture password is not
reported, and the workspace tunes the rest in ``[tool.aidlc-review.severity]``.
"""

from __future__ import annotations

from aidlc_review.sensors.context import (
    SensorContext,
    SensorError,
    nothing_to_check,
    ruff_argv,
    run_file_local,
    select_tool,
)
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.ruff_check import check_batch, overrides_of
from aidlc_review.sensors.suppressions import Suppressions
from aidlc_review.sensors.tools import shown_command


def run(ctx: SensorContext) -> CheckResult:
    if not ctx.files:
        return nothing_to_check(ctx)
    tool = select_tool(ctx)
    argv = ruff_argv(tool)
    if "--isolated" not in argv:
        raise SensorError("the security sensor's ruff argv must include --isolated")

    marks = Suppressions(ctx.workspace, ctx.settings, tool.spec.suppressions)

    def check(batch: list[str]) -> dict[str, list[CheckFinding]]:
        return marks.judge(check_batch(ctx, argv, batch))

    # no configuration file is read (--isolated), so none belongs in the cache key
    key = (tool.spec.model_dump(), tool.version, overrides_of(ctx).key())
    findings = run_file_local(ctx, key, tool.spec.tool, [], check, marks.key)
    return judged(
        ctx.name,
        findings,
        shown_command(argv, ctx.files),
        tool=tool.spec.tool,
        tool_version=tool.version,
    )
