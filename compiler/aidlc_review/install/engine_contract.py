"""Which engine a project runs, and whether install is verified with it.

What the engine is and accepts is read in one place, ``harness.engine.read_dialect`` (its
``AIDLC_VERSION``, the stage keys its schema lists, its review vocabulary): this module only
judges that reading. Install lowers for what the schema accepts (after 2.6.18 a stage with a
``reviewer`` may name its ``review_artifact``, a Markdown produces entry, and a schema that
knows the key gets it). The plugin is verified against the engines in ``VERIFIED``; a newer
one is refused unless forced, and whatever install writes is judged by upstream's own tools
(``transaction``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from aidlc_review.errors import EXIT_FAILED, InvalidInput
from aidlc_review.harness import listing
from aidlc_review.harness.definitions.dialect import Dialect
from aidlc_review.harness.engine import read_dialect
from aidlc_review.upstream import names
from aidlc_review.upstream.version import VERSION_FILE

# major.minor of the engines install was verified with (../shared/README.md: 2.5.5, 2.6.18)
VERIFIED = ((2, 5), (2, 6))
REVIEW_ARTIFACT = "review_artifact"
_NUMBERS = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?")


class EngineNotVerified(InvalidInput):
    """The project's engine is newer than (or unknown to) the verified ones: refused."""

    exit_code = EXIT_FAILED


@dataclass(frozen=True)
class EngineContract:
    present: bool
    version: str | None  # None: no AIDLC_VERSION could be read
    stage_keys: frozenset[str] | None  # None: the schema could not be read

    @classmethod
    def read(cls, harness: Path) -> EngineContract:
        return cls.of(read_dialect(harness), (harness / listing.ENGINE_MARKER).is_file())

    @classmethod
    def of(cls, dialect: Dialect, present: bool) -> EngineContract:
        version = dialect.engine if dialect.engine not in (None, "unknown") else None
        return cls(present, version, dialect.stage_keys)

    @property
    def numbers(self) -> tuple[int, ...] | None:
        """The version as numbers, e.g. (2, 6, 18); None when it is not one."""
        found = _NUMBERS.match(self.version or "")
        if found is None:
            return None
        return tuple(int(part) for part in (self.version or "").split(".") if part.isdigit())

    @property
    def review_artifact(self) -> bool:
        """Whether the schema knows ``review_artifact`` (upstream after 2.6.18)."""
        return self.stage_keys is not None and REVIEW_ARTIFACT in self.stage_keys

    def unverified(self) -> str | None:
        """Why this engine is outside the verified range; None when it is inside."""
        if not self.present:
            return None  # definitions without upstream's tools: nothing of theirs to break
        verified = ", ".join(f"{major}.{minor}.x" for major, minor in VERIFIED)
        if self.version is None:
            return (
                "upstream's engine version cannot be read "
                f"(no {names.VERSION_CONSTANT} in {VERSION_FILE})"
            )
        found = _NUMBERS.match(self.version)
        if found is None:
            return f"upstream's engine version {self.version!r} is not one install understands"
        if (int(found.group(1)), int(found.group(2))) > max(VERIFIED):
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
