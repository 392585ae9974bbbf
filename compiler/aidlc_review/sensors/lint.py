"""linter: ``ruff check`` with JSON output on the claimed files, violations mapped to findings.

A finding quotes ruff's message with its rule code and ruff's URL for the rule; its
severity is the rule's in ``rule_severity`` (the security lens gives it the same). Every
claimed ``.py`` file is also compiled by CPython (``python_compile``): one it cannot
compile is a major ``syntax-error`` finding, unless ruff already reported that defect.

The workspace's ruff configuration applies unchanged; ``--no-fix`` keeps the
source untouched and ruff's cache is kept out of the workspace. ruff runs with
``--ignore-noqa``: only the ``# noqa`` comments that stood at the unit's base are
honoured (``suppressions``); what one the change added hides is reported as hidden by it.
"""

from __future__ import annotations

from aidlc_review.sensors.context import (
    SensorContext,
    ruff_argv,
    run_file_local,
    select_tool,
)
from aidlc_review.sensors.described import run_with_described
from aidlc_review.sensors.python_compile import PARSER, compile_finding
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.ruff_check import check_batch, overrides_of
from aidlc_review.sensors.suppressions import Suppressions
from aidlc_review.sensors.tools import shown_command

CONFIG_FILES = ["pyproject.toml", "ruff.toml", ".ruff.toml"]


def run(ctx: SensorContext) -> CheckResult:
    """ruff on the claimed Python files; every other linter the workspace configures
    (eslint...) through its descriptor (``sensors.described``) on the files it takes."""
    return run_with_described(ctx, _ruff)


def _ruff(ctx: SensorContext) -> CheckResult:
    tool = select_tool(ctx)
    argv = ruff_argv(tool)
    marks = Suppressions(ctx.workspace, ctx.settings, tool.spec.suppressions)

    def check(batch: list[str]) -> dict[str, list[CheckFinding]]:
        found = marks.judge(check_batch(ctx, argv, batch))
        for path in batch:
            failure = compile_finding(ctx, path, found.get(path, []))
            if failure is not None:
                found.setdefault(path, []).append(failure)
        return found

    # cached with ruff's findings: the compile check's answer depends on the interpreter too,
    # their severities on the workspace's overrides
    key = (tool.spec.model_dump(), tool.version, PARSER, overrides_of(ctx).key())
    findings = run_file_local(ctx, key, tool.spec.tool, CONFIG_FILES, check, marks.key)
    return judged(
        ctx.name,
        findings,
        shown_command(argv, ctx.files),
        tool=tool.spec.tool,
        tool_version=tool.version,
    )
