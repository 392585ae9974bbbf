"""What the engine present in a project can do, read from its own tools (feature detection).

No table of versions: each feature is read where the engine spells it, so an engine this
plugin has not seen is asked what it offers. The dialect of its files (stage keys, review
vocabulary, ``AIDLC_VERSION``) is read by ``harness.engine``; what it *does* is read here:

- ``birth``: the utility verb that starts an intent, ``intent-create`` (2.6) or
  ``intent-birth`` (2.5), the one ``aidlc-utility.ts`` dispatches on;
- ``gate_deferral``: whether its graph compiles ``completion_gate`` (the proposed upstream
  patch, ``docs/upstream-gate-deferral.patch``, or an engine that took it).

The contract changes upstream made after 2.6.18, each read where upstream's newer files
spell it (confirmed against awslabs/aidlc-workflows ``core/``: docs/upstream-newer.md names
the files and commits), for what install lowers to:

- ``review_slot``: ``aidlc-log.ts review`` returns ``requestId`` and ``reviewFile``, the one
  file the reviewer writes (``let reviewFile`` in the logger; stage-protocol-reviewer.md
  §12a): the marker is the word ``reviewFile`` in the logger;
- ``engine_source_manifest``: the engine validates each unit's ``source-manifest.json``
  before it records a review (the logger calls ``readUnitSourceManifest``; its refusal names
  ``.../source-manifest.json``), and upstream's own code-generation writes it;
- ``units_record_dir``: a unit's records live under ``construction/units/<unit>/`` rather
  than ``construction/<unit>/`` (the engine's own code-generation stage resolves
  ``<record>/construction/units/<directive.unit>/code-generation/``; a tool joining
  ``"construction", "units"`` is read as the same, inferred);
- ``logger_budget``: its logger computes a review's budget itself (``aidlc-log.ts`` reads
  ``reviewer_max_iterations`` / the review class; 2.6.18 already does);
- ``pr_integration``: the engine has upstream's per-unit ``pr-integration`` stage (3.6 on),
  which composes a unit's PR and its evidence dossier from its resolved ``consumes``: its own
  stage file ``aidlc-common/stages/construction/pr-integration.md`` with that slug.

And what a stage must carry, from ``aidlc-stage-schema.ts``: ``required_stage_keys``
(``REQUIRED_FIELDS``) and ``reviewer_requires``, the keys its validator says a ``reviewer``
needs (upstream's: ``errors.push("reviewer requires review_artifact")``): a key install does
not know how to fill is a contract it cannot lower.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

UTILITY = "tools/aidlc-utility.ts"
GRAPH = "tools/aidlc-graph.ts"
LOGGER = "tools/aidlc-log.ts"
LIB = "tools/aidlc-lib.ts"
# the tools that run a review request or a stage's completion: where the engine names the
# source manifest it validates
COMPLETION_TOOLS = (LOGGER, "tools/aidlc-state.ts", "tools/aidlc-orchestrate.ts", LIB)
# the engine's own code-generation stage: where it says where a unit's records are
GENERATION_STAGE = "aidlc-common/stages/construction/code-generation.md"
# upstream's PR stage (3.6 on): it builds a unit's PR body from its resolved consumes
PR_STAGE = "aidlc-common/stages/construction/pr-integration.md"
PR_SLUG = re.compile(r"\A---\n(?:(?!---\n).*\n)*?slug: pr-integration\n")
BIRTH_VERBS = ("intent-create", "intent-birth")  # newest first
SOURCE_MANIFEST = re.compile(r"source-manifest\.json|\breadUnitSourceManifest\b")
REVIEW_SLOT = re.compile(r"\breviewFile\b")
UNITS_DIR = re.compile(r"""construction(?:/|["'`],\s*["'`])units\b""")
LOGGER_BUDGET = re.compile(r"\breviewer_max_iterations\b|\breview_cap\b")
SCHEMA = "tools/aidlc-stage-schema.ts"
REQUIRED = re.compile(r"\bREQUIRED_FIELDS\s*=\s*\[([^\]]*)\]")
REVIEWER_REQUIRES = re.compile(r"[\"'`]reviewer requires ([a-z_]+)[\"'`]")  # upstream's spelling


@dataclass(frozen=True)
class EngineFeatures:
    birth: str
    gate_deferral: bool
    review_slot: bool = False
    engine_source_manifest: bool = False
    units_record_dir: bool = False
    logger_budget: bool = False
    pr_integration: bool = False
    required_stage_keys: frozenset[str] | None = None  # None: the schema does not list them
    reviewer_requires: frozenset[str] = frozenset()

    @classmethod
    def read(cls, harness: Path) -> EngineFeatures:
        utility = _read(harness / UTILITY)
        logger = _read(harness / LOGGER)
        schema = _read(harness / SCHEMA)
        required = REQUIRED.search(schema)
        return cls(
            birth=next(
                (verb for verb in BIRTH_VERBS if re.search(rf'case "{verb}"', utility)),
                BIRTH_VERBS[0],
            ),
            gate_deferral='"completion_gate"' in _read(harness / GRAPH),
            review_slot=REVIEW_SLOT.search(logger) is not None,
            engine_source_manifest=any(
                SOURCE_MANIFEST.search(_read(harness / tool)) for tool in COMPLETION_TOOLS
            ),
            units_record_dir=any(
                UNITS_DIR.search(_read(harness / where)) for where in (GENERATION_STAGE, LIB)
            ),
            logger_budget=LOGGER_BUDGET.search(logger) is not None,
            pr_integration=PR_SLUG.match(_read(harness / PR_STAGE)) is not None,
            required_stage_keys=(
                frozenset(re.findall(r'"([^"]+)"', required.group(1))) if required else None
            ),
            reviewer_requires=frozenset(REVIEWER_REQUIRES.findall(schema)),
        )

    def unit_record_dir(self, unit: str) -> str:
        """A unit's folder, relative to the intent record, as this engine lays it out."""
        return f"construction/units/{unit}" if self.units_record_dir else f"construction/{unit}"

    def birth_args(self, scope: str, arguments: str, label: str) -> list[str]:
        """``aidlc-utility.ts`` arguments that start an intent of ``scope``."""
        return [self.birth, "--scope", scope, "--arguments", arguments, "--label", label]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
