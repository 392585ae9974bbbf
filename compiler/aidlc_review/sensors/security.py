"""security: the security rules of the runner's rule checker on every claimed file, and the
review's own rules for the languages its lenses describe (eslint on JavaScript and TypeScript).

The linter sensor honours the workspace's rule selection; this one does not. Its tool's argv
(the security manifest's descriptor) reads no configuration file and selects the rules
itself, so a workspace that selects only ``E`` still hears about SQL built by concatenation;
the runner's option ``argv_must_hold`` names the flags that make it so, and a descriptor
without them is an error, never a narrower check. An inline suppression counts only if it
stood at the unit's base (``suppressions``): one the change added is reported as hiding what
it hides, at that finding's severity. Severities are the linter's (``rule_severity``): in
test files an ``assert`` or a fixture password is not reported, and the workspace tunes the
rest in ``[tool.aidlc-review.severity]``. A lens (``own_config``) runs the project's installed
tool with the configuration file the plugin ships, naming it with ``--config``: the project's
configuration cannot narrow those rules either.
"""

from __future__ import annotations

from aidlc_review.sensors.context import SensorContext, SensorError, run_file_local, select_tool
from aidlc_review.sensors.described import run_with_described
from aidlc_review.sensors.own_tool import config_names, overrides_of, read_batch, rule_findings
from aidlc_review.sensors.results import CheckFinding, CheckResult, judged
from aidlc_review.sensors.suppressions import Suppressions
from aidlc_review.sensors.tools import shown_command


def run(ctx: SensorContext) -> CheckResult:
    """The runner's own tool on the claimed files it takes; every lens the descriptor
    describes (eslint with the review's own rules) on theirs."""
    return run_with_described(ctx, _own)


def _own(ctx: SensorContext) -> CheckResult:
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
