"""The exception tree and the exit codes, in one place.

0 ok, 1 checks failed or drift, 2 invalid input or usage, 3 internal error.
A failing sensor or a NOT-READY verdict is a *result*, never an exception.
"""

from __future__ import annotations

from typing import NamedTuple

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INVALID = 2
EXIT_INTERNAL = 3


class Diagnostic(NamedTuple):
    """One breadcrumb: ``path:line: key.path: message``.

    Ordered by (path, line, key, message) so collected errors sort stably.
    (A NamedTuple, not a dataclass: the CLI's fast path should not import dataclasses.)
    """

    path: str
    line: int
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


class AidlcError(Exception):
    """Base of every error this package raises on purpose."""

    exit_code = EXIT_INTERNAL


class InvalidInput(AidlcError):
    """Bad input from the user: one message, exit code 2."""

    exit_code = EXIT_INVALID


class ValidationFailed(InvalidInput):
    """Many diagnostics collected over a whole harness (or document), reported at once."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(set(diagnostics))
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class UsageError(InvalidInput):
    """A command line that cannot be acted on."""


class LockBusy(AidlcError):
    """Another run holds the lock for the same unit or pipeline."""

    exit_code = EXIT_INVALID
