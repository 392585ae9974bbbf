"""The exception tree and the exit codes, in one place.

0 ok, 1 checks failed or drift, 2 invalid input or usage, 3 internal error.
A failing sensor or a NOT-READY verdict is a *result*, never an exception.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself is not imported: see diagnostics.py
if TYPE_CHECKING:
    from aidlc_review.diagnostics import Diagnostic

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INVALID = 2
EXIT_INTERNAL = 3


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
