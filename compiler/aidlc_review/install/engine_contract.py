"""Which engine a project runs: its version, and the stage keys its schema accepts.

Upstream's version is ``AIDLC_VERSION`` in ``tools/aidlc-version.ts``; its stage schema
lists the keys a stage may have in ``REQUIRED_FIELDS`` and ``OPTIONAL_FIELDS`` of
``tools/aidlc-stage-schema.ts`` (any other key fails compile and doctor). Install lowers
for what that schema accepts: from 2.6 on a stage with a ``reviewer`` must name its
``review_artifact`` (a Markdown produces entry), and a schema that knows the key gets it.
The plugin is verified against the engines in ``VERIFIED``; a newer one is refused unless
forced, and whatever install writes is judged by upstream's own tools (``transaction``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from aidlc_review.errors import EXIT_FAILED, InvalidInput

VERSION_FILE = "tools/aidlc-version.ts"
SCHEMA_FILE = "tools/aidlc-stage-schema.ts"
ENGINE_MARKER = "tools/aidlc-graph.ts"
VERIFIED = (2, 5)  # major.minor of the engines install was verified with (../shared: 2.5.5)
REVIEW_ARTIFACT = "review_artifact"
_VERSION = re.compile(r'\bAIDLC_VERSION\s*=\s*"([^"]*)"')
_NUMBERS = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?")
T = TypeVar("T")


class EngineNotVerified(InvalidInput):
    """The project's engine is newer than (or unknown to) the verified ones: refused."""

    exit_code = EXIT_FAILED


@dataclass(frozen=True)
class EngineContract:
    present: bool
    version: str | None
    stage_keys: frozenset[str] | None  # None: the schema could not be read

    @classmethod
    def read(cls, harness: Path) -> EngineContract:
        present = (harness / ENGINE_MARKER).is_file()
        version = _read(harness / VERSION_FILE, _version)
        keys = _read(harness / SCHEMA_FILE, _stage_keys)
        return cls(present, version, keys)

    @property
    def review_artifact(self) -> bool:
        """Whether the schema knows ``review_artifact`` (upstream 2.6 and later)."""
        return self.stage_keys is not None and REVIEW_ARTIFACT in self.stage_keys

    def unverified(self) -> str | None:
        """Why this engine is outside the verified range; None when it is inside."""
        if not self.present:
            return None  # definitions without upstream's tools: nothing of theirs to break
        verified = ".".join(map(str, VERIFIED)) + ".x"
        if self.version is None:
            return f"upstream's engine version cannot be read (no AIDLC_VERSION in {VERSION_FILE})"
        found = _NUMBERS.match(self.version)
        if found is None:
            return f"upstream's engine version {self.version!r} is not one install understands"
        if (int(found.group(1)), int(found.group(2))) > VERIFIED:
            return (
                f"upstream's engine is {self.version}, newer than the engines this plugin is "
                f"verified with ({verified})"
            )
        return None


def refuse_unverified(harness: Path, force: bool) -> EngineContract:
    """The harness's engine contract; refused when it is outside the verified range."""
    contract = EngineContract.read(harness)
    reason = contract.unverified()
    if reason is not None and not force:
        raise EngineNotVerified(
            f"{harness / VERSION_FILE}: {reason}; refusing to install. `aidlc-review install "
            "--force` installs anyway: upstream's compile and doctor still judge the result, "
            "and it is rolled back byte for byte if they object"
        )
    return contract


def _read(path: Path, parse: Callable[[str], T | None]) -> T | None:
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def _version(source: str) -> str | None:
    found = _VERSION.search(source)
    return found.group(1) if found else None


def _stage_keys(source: str) -> frozenset[str] | None:
    keys: set[str] = set()
    for name in ("REQUIRED_FIELDS", "OPTIONAL_FIELDS"):
        block = re.search(rf"const {name} = \[(.*?)\]", source, re.S)
        if block is None:
            return None
        keys |= set(re.findall(r'"([a-z_]+)"', block.group(1)))
    return frozenset(keys)
