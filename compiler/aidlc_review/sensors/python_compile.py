"""CPython's own answer for a claimed ``.py`` file: does it compile?

ruff has a parser of its own and accepts modules CPython refuses (5000 nested parentheses,
a null byte in a comment, ``return`` outside a function where the workspace selects no
pyflakes rule), so a module that cannot even be imported could pass the linter. The file is
compiled in this process, never executed: compiling runs no code of the file's.
"""

from __future__ import annotations

import platform
import re
import warnings
from dataclasses import dataclass

from aidlc_review.sensors.context import SensorContext
from aidlc_review.sensors.results import CheckFinding, make_finding
from aidlc_review.severity import SEVERITIES

RULE = "syntax-error"
# which parser answered: another interpreter may accept or refuse other syntax
PARSER = f"{platform.python_implementation()} {platform.python_version()}"
# ruff's findings that say the same thing: the file does not parse (or cannot be read), or
# pyflakes' statements CPython refuses at compile time (return/yield/break outside their
# block, a bad ``__future__`` import, ``except:`` not last)
SAME_DEFECT = frozenset(
    {"invalid-syntax", "syntax", "F404", "F407", "F701", "F702", "F704", "F706", "F707"}
    | {"PLE0115", "PLE0117", "PLE0118"}
)
_LINE_NUMBER = re.compile(r"\bline \d+")


@dataclass(frozen=True)
class CompileFailure:
    line: int | None
    reason: str

    @property
    def identity(self) -> str:
        """The reason without the line numbers some of CPython's messages quote, so the
        finding keeps its fingerprint when it only moves within its file."""
        return _LINE_NUMBER.sub("line N", self.reason)


def compile_failure(source: bytes, filename: str) -> CompileFailure | None:
    """Why CPython cannot compile ``source`` (its bytes, so a coding cookie applies), or None."""
    try:
        with warnings.catch_warnings():
            # a SyntaxWarning is not a failure, and a runner prints nothing
            warnings.simplefilter("ignore")
            compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError included
        return CompileFailure(exc.lineno or _null_byte_line(source), exc.msg or "invalid syntax")
    except (RecursionError, MemoryError, ValueError) as exc:  # ValueError: null bytes, decoding
        return CompileFailure(_null_byte_line(source), str(exc) or type(exc).__name__)
    return None


def compile_finding(
    ctx: SensorContext, path: str, reported: list[CheckFinding]
) -> CheckFinding | None:
    """A major finding when CPython cannot compile the claimed ``.py`` file ``path``, unless
    ruff's findings on it (``reported``) already say so at least as severely."""
    if not path.endswith(".py"):
        return None
    failure = compile_failure((ctx.workspace / path).read_bytes(), path)
    severity = "minor" if ctx.manifest.severity_class == "advisory" else "major"
    if failure is None or any(_says_so(f, severity) for f in reported):
        return None
    return make_finding(
        ctx.name,
        severity,
        ctx.manifest.category,
        path,
        failure.line,
        f"does not compile: {failure.reason}",
        RULE,
        identity=f"does not compile: {failure.identity}",
    )


def _says_so(finding: CheckFinding, severity: str) -> bool:
    rule = finding.rule or ""
    same = rule in SAME_DEFECT or rule.startswith("E9")
    return same and _rank(finding.severity) <= _rank(severity)


def _rank(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


def _null_byte_line(source: bytes) -> int | None:
    at = source.find(b"\0")
    return None if at < 0 else source.count(b"\n", 0, at) + 1
