"""A runner's own tool run on a batch of claimed files, its report read by its format's parser.

A runner's own tool (``ToolSpec.format`` None: the linter's and the security lens's rule
checker, the Python formatters) is checked per file and cached (``context.run_file_local``).
Its descriptor says all the runtime needs to run and read it: ``argv``, ``env``, the exit
codes of a check that ran to the end, what it says when it checked none of the files, the
files that configure it, and ``runner_format``, the format of its report
(``sensors.formats``). Its findings keep the tool's own rule codes (``F401``): the ledger's
stable ids and the severity table (``rule_severity``: one severity per code, shared by the
linter and the security lens, with the workspace's overrides) are keyed by them.
"""

from __future__ import annotations

import ast
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aidlc_review.harness.definitions.sensor import ToolSpec
from aidlc_review.sensors.context import NothingChecked, SensorContext, SensorError, Tool
from aidlc_review.sensors.formats import BOTH_STREAMS, TEXT_FORMATS, Hit, UnreadableReport
from aidlc_review.sensors.globs import expand_braces
from aidlc_review.sensors.results import CheckFinding, make_finding
from aidlc_review.sensors.rule_severity import Overrides
from aidlc_review.sensors.tools import ToolRun, last_line
from aidlc_review.severity import BLOCKING

FRESH_DIR = "{fresh_dir}"
# the defect class of a rule that says "possible hard-coded password" (``defects``)
SECRET = "hardcoded-secret"
# shorter than this, or without a letter or digit, a string is no credential: "<", "--", ""
CREDENTIAL_LENGTH = 8
NOT_A_CREDENTIAL = " (the value is too short or has no letter or digit to be a credential)"


def overrides_of(ctx: SensorContext) -> Overrides:
    """The workspace's severity overrides the review passed in ``settings["severity"]``."""
    return Overrides.from_settings(ctx.settings.get("severity"))


def command_of(spec: ToolSpec) -> str:
    """How errors name the tool's run: its name and the words before its first option
    (``ruff check``, ``ruff format``, ``black``)."""
    words = [spec.tool]
    for word in spec.argv[1:]:
        if word.startswith("-"):
            break
        words.append(word)
    return " ".join(words)


def config_names(spec: ToolSpec) -> list[str]:
    """The file names whose content changes the tool's judgment (in a file's folder and
    above: part of a cached result's key): those its ``detect`` and its ``config`` name."""
    names = {entry.partition(":")[0].rsplit("/", 1)[-1] for entry in spec.detect}
    for config in spec.config:
        names.update(expand_braces(config.files.rsplit("/", 1)[-1]))
    return sorted(n for n in names if not any(c in n for c in "*?["))


@contextmanager
def tool_env(ctx: SensorContext, spec: ToolSpec) -> Iterator[dict[str, str] | None]:
    """The descriptor's ``env`` for one check, each ``{fresh_dir}`` an empty folder in the
    sensor's scratch space, removed afterwards."""
    if not spec.env:
        yield None
        return
    fresh = Path(tempfile.mkdtemp(prefix=f"{spec.tool}-", dir=ctx.scratch))
    try:
        yield {key: value.replace(FRESH_DIR, str(fresh)) for key, value in spec.env.items()}
    finally:
        shutil.rmtree(fresh, ignore_errors=True)


def refuse_unchecked(spec: ToolSpec, run: ToolRun) -> None:
    """Raise ``NothingChecked`` when the tool says it checked none of the files given."""
    if not spec.checked_none:
        return
    said = [line.strip() for line in run.stderr.splitlines() if spec.checked_none in line]
    if said:
        raise NothingChecked(f"{spec.tool} checked none of the claimed files ({said[0]})")


def read_batch(
    ctx: SensorContext, tool: Tool, batch: list[str], env: dict[str, str] | None = None
) -> list[Hit]:
    """The tool's report on ``batch`` (file names after ``--``), read by its format's parser.
    An exit code outside ``exit_codes``, an unreadable report, or a failing exit code with
    nothing in the report is an error: could not verify."""
    spec = tool.spec
    run = ctx.run([*tool.argv(), "--", *batch], env)
    refuse_unchecked(spec, run)
    command = command_of(spec)
    if run.returncode not in spec.exit_codes:
        said = last_line(run.stderr or run.stdout)
        raise SensorError(f"{command} exited {run.returncode}: {said}")
    parse = TEXT_FORMATS.get(spec.runner_format or "")
    if parse is None:
        raise SensorError(f"{spec.tool}: no parser for the format {spec.runner_format!r}")
    both = spec.runner_format in BOTH_STREAMS
    try:
        hits = parse(f"{run.stdout}\n{run.stderr}" if both else run.stdout)
    except UnreadableReport as exc:
        raise exc.by(command) from None
    if run.returncode != 0 and not hits:
        said = last_line(run.stderr or run.stdout)
        raise SensorError(f"{command} exited {run.returncode} and named no file: {said}")
    return hits


def relative(ctx: SensorContext, name: str) -> str:
    """A reported path, relative to the workspace (the tools print absolute ones)."""
    root, alt = str(ctx.workspace.resolve()) + "/", str(ctx.workspace) + "/"
    return name.removeprefix(root).removeprefix(alt)


def rule_findings(
    ctx: SensorContext, spec: ToolSpec, hits: list[Hit], batch: list[str]
) -> dict[str, list[CheckFinding]]:
    """The hits on the claimed files of ``batch`` as findings, per file: each at its rule's
    one severity (``rule_severity``, with the workspace's overrides); the others dropped."""
    overrides = overrides_of(ctx)
    wanted = set(batch)
    found: dict[str, list[CheckFinding]] = {}
    for hit in hits:
        path = relative(ctx, hit.path)
        if path in wanted:  # only claimed files count
            finding = _finding(ctx, spec, overrides, path, hit)
            if finding is not None:
                found.setdefault(path, []).append(finding)
    return found


def _finding(
    ctx: SensorContext, spec: ToolSpec, overrides: Overrides, path: str, hit: Hit
) -> CheckFinding | None:
    code = spec.finding_rule(hit.rule)
    level = overrides.resolve(code, path)
    if level == "off":
        return None
    message = f"{code} {hit.message}".strip()
    if spec.defects.get(code) == SECRET and level in BLOCKING:
        if not _may_be_credential(ctx, path, hit):
            level, message = "minor", message + NOT_A_CREDENTIAL
    if ctx.manifest.severity_class == "advisory":
        level = "minor"  # an advisory sensor never blocks on its findings
    return make_finding(ctx.name, level, ctx.manifest.category, path, hit.line, message, code)


def _may_be_credential(ctx: SensorContext, path: str, hit: Hit) -> bool:
    """Whether the string the tool points at could be a password (unreadable: assume it could).

    The range is the literal (``password = "..."``) or ``name=literal`` (a keyword argument);
    both parse as the arguments of a call. The value is looked at here and never leaves this
    function."""
    source = _segment(ctx.workspace / path, hit.span)
    try:
        call = ast.parse(f"_({source})", mode="eval").body
    except (SyntaxError, ValueError):
        return True
    values = [*getattr(call, "args", []), *(k.value for k in getattr(call, "keywords", []))]
    strings = [v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    if len(strings) != 1:
        return True
    value = strings[0]
    return len(value) >= CREDENTIAL_LENGTH and any(char.isalnum() for char in value)


def _segment(path: Path, span: tuple[int, int, int, int] | None) -> str:
    """The source text of ``span`` (1-based rows and columns, the end column exclusive)."""
    if span is None:
        return ""
    row, column, end_row, end_column = span
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        chosen = lines[row - 1 : end_row]
        chosen[-1] = chosen[-1][: end_column - 1]
        chosen[0] = chosen[0][column - 1 :]
    except (OSError, UnicodeDecodeError, IndexError):
        return ""
    return "\n".join(chosen)
