"""Where a code host shows a finding: its lines, line 1 of its file, or the unit's manifest.

GitHub code scanning drops a SARIF result without a file and a start line, and a workflow
annotation without a file lands on the run page, far from the code. So every open finding
gets a place: the lines it was reported at; line 1 of its file when it names a file but no
line (a dependency lock file, a file-wide coverage figure); the unit's source manifest (the
file that claims the unit's source) when it concerns no one file (a broken test run that
the diff could not place, a reviewer that was unavailable).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from aidlc_review.review.findings.grouping import parse_location
from aidlc_review.review.record.models import Finding, FindingsDocument


@dataclass(frozen=True)
class Place:
    path: str
    line: int
    end_line: int
    message: str | None
    # the place's rank among its finding's places: what an identity may use (a line may not)
    ordinal: int


def unit_anchor(doc: FindingsDocument) -> str | None:
    """The unit's source manifest, repository-relative as the receipt records it; None when
    the document has no receipt or the manifest lies outside the workspace."""
    manifest = doc.receipt.manifest if doc.receipt else ""
    return manifest if _relative(manifest) else None


def places_of(finding: Finding, anchor: str | None) -> list[Place]:
    """The finding's places in line order (empty only with no path and no anchor)."""
    legacy = parse_location(finding.location)  # a document written before ``locations``
    lines = finding.locations or ([legacy] if legacy else [])
    if finding.path and lines:
        return [
            Place(finding.path, p.line, p.end_line or p.line, p.message, n)
            for n, p in enumerate(lines)
        ]
    where = finding.path or anchor
    return [Place(where, 1, 1, None, 0)] if where else []


def _relative(path: str) -> bool:
    pure = PurePosixPath(path)
    return bool(path) and not pure.is_absolute() and ".." not in pure.parts and ":" not in path
