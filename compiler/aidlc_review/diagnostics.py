"""One breadcrumb of a validation error: ``path:line: key.path: message``."""

from __future__ import annotations

from typing import NamedTuple


class Diagnostic(NamedTuple):
    """One breadcrumb: ``path:line: key.path: message``.

    Ordered by (path, line, key, message) so collected errors sort stably. It lives apart
    from ``errors`` because a NamedTuple needs ``typing``, which ``compile --check``'s fast
    path (it imports ``errors``) does without.
    """

    path: str
    line: int
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"
