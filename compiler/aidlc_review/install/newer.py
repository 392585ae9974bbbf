"""What install lowers to for the contract changes upstream made after 2.6.18 (DESIGN §8).

Each change is detected from the engine's own schema and tools (``EngineFeatures``,
``EngineContract``), never from its version number, and lowered here:

- the schema knows ``review_artifact`` (2.7 on: required with ``reviewer``): code-review
  declares ``review_artifact: code-review``;
- the schema no longer lists ``reviewer_max_iterations`` while the logger computes budgets
  itself: the plugin's budget is not written into the stage (the ledger keeps it);
- the logger hands a reviewer one review slot: code-review's body gains the step that writes
  code review's own report and findings before the engine's review is requested;
- the engine validates each unit's ``source-manifest.json`` and upstream's own
  code-generation asks for it (the same schema as the plugin's): code-generation's
  contribution no longer asks for a second one, it points at that one.

- the engine keeps a unit's records under ``construction/units/<unit>/`` (its own
  code-generation stage says so): the installed texts name that folder wherever they name a
  unit's records, and the runtime finds them there through the door
  (``upstream.names.unit_records``).
- the engine has upstream's ``pr-integration`` stage (3.6 on: a unit's PR, its evidence
  dossier enumerating the stage's resolved ``consumes``, core ones first and plugin-added
  ones after): it requires ``code-review`` as it requires ``code-generation`` and consumes
  code review's report after its own consumes, so the PR carries the review. Upstream's
  plugin seam merges ``adds.consumes`` but only logs ``adds.requires_stage`` (deferred), and
  this plugin is installed by ``aidlc-review install``, not by a compose hook: both go in as
  build-and-test's consume does, whole lines the ledger records and uninstall takes out.

What install cannot lower is refused before anything is written, naming what was found: a
stage key the schema requires or couples to ``reviewer`` that the installed stage cannot
carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aidlc_review.errors import EXIT_FAILED, InvalidInput
from aidlc_review.install import blocks
from aidlc_review.install.engine_contract import REVIEW_ARTIFACT, EngineContract
from aidlc_review.install.ledger import Insertion
from aidlc_review.install.lower import REVIEW_ARTIFACT as REVIEW_REPORT  # code-review's produces
from aidlc_review.upstream import names
from aidlc_review.upstream.features import SCHEMA, EngineFeatures

BUDGET_KEY = "reviewer_max_iterations"
# every key the installed code-review stage carries (lower.lower_review_stage)
REVIEW_STAGE_KEYS = frozenset(
    {
        "slug", "phase", "execution", "condition", "lead_agent", "support_agents", "mode",
        "produces", "consumes", "requires_stage", "inputs", "outputs", "reviewer",
        BUDGET_KEY, REVIEW_ARTIFACT, "sensors", "scopes", "summary_confirmation",
    }
)  # fmt: skip
MANIFEST_STEP_START = "Code review reads exactly the files this stage claims"
MANIFEST_STEP_END = "It is a side file, not a\n`produces` artifact."


class EngineContractUnknown(InvalidInput):
    """The engine carries a contract change install cannot lower: refused, nothing written."""

    exit_code = EXIT_FAILED


@dataclass(frozen=True)
class Lowering:
    review_artifact: bool  # declare review_artifact: code-review
    write_budget: bool  # write the plugin's gated budget as reviewer_max_iterations
    review_slot: bool  # the reviewer writes one record at the slot the logger hands out
    engine_manifest: bool  # the engine validates the source-manifest.json its stage asks for
    unit_records: bool = False  # a unit's records under construction/units/<unit>/
    pr_integration: bool = False  # upstream's per-unit PR stage: it carries the code review

    @classmethod
    def read(cls, harness: Path) -> Lowering:
        contract = EngineContract.read(harness)
        features = EngineFeatures.read(harness)
        refuse_unknown(harness, contract, features)
        keys = contract.stage_keys
        return cls(
            review_artifact=contract.review_artifact,
            write_budget=keys is None or BUDGET_KEY in keys or not features.logger_budget,
            review_slot=features.review_slot,
            engine_manifest=features.engine_source_manifest,
            unit_records=features.units_record_dir,
            pr_integration=features.pr_integration,
        )


def refuse_unknown(harness: Path, contract: EngineContract, features: EngineFeatures) -> None:
    """Refuse an engine whose contract install cannot lower, naming what it found."""
    found: list[str] = []
    required = features.required_stage_keys or frozenset()
    coupled = features.reviewer_requires
    unknown = sorted((required | coupled) - REVIEW_STAGE_KEYS)
    if unknown:
        found.append(
            f"its stage schema ({SCHEMA}) requires {', '.join(unknown)} of code-review, "
            "which install does not know how to fill"
        )
    if REVIEW_ARTIFACT in coupled and not contract.review_artifact:
        found.append(f"its stage schema requires {REVIEW_ARTIFACT} but does not list the key")
    if found:
        raise EngineContractUnknown(
            f"{harness}: upstream's engine{_version(contract)} carries a contract this plugin "
            f"cannot lower: {'; '.join(found)}. Refusing to install (even with --force); "
            "nothing was written"
        )


def _version(contract: EngineContract) -> str:
    return f" {contract.version}" if contract.version else ""


def manifest_step(prose: str) -> str:
    """code-generation's step for an engine that writes the unit's manifest itself: it no
    longer asks for one, and names the engine's as the one code review reads."""
    start = prose.find(MANIFEST_STEP_START)
    end = prose.find(MANIFEST_STEP_END)
    if start < 0 or end < start:
        raise InvalidInput(
            "stages/contributions/construction/code-generation.md: the step asking for "
            "source-manifest.json is not where install looks for it "
            f"({MANIFEST_STEP_START!r} ... {MANIFEST_STEP_END!r})"
        )
    engine_step = (
        "Code review reads exactly the files this stage claims, in the\n"
        "`source-manifest.json` this engine's own Code Generation step has you write\n"
        "(its strict schema, in the folder of this directive's `produces` paths) and\n"
        "validates before it records any review. Write it once, as that step says; do\n"
        "not write a second one: code review reads the same file."
    )
    return prose[:start] + engine_step + prose[end + len(MANIFEST_STEP_END) :]


REVIEW_SLOT_STEP = f"""
## Engine review record (this engine hands the reviewer one review slot)

This engine's `{names.LOG_TOOL} review` hands out one review file (`reviewFile`
in its JSON) and binds the request to the bytes of `code-review.md` as they
are when it is requested. `aidlc-review review` writes code review's own
report and findings (`code-review.md`, `code-review-findings.json` beside it)
before it requests the engine's review record, so the request binds the
finished report; it then writes the review at that slot (the verdict of
`code-review-findings.json` and its open findings) and records the verdict.
Nothing writes `code-review.md` after the request. Still never call `{names.LOG_TOOL} review`
for this stage by hand.
"""


def with_unit_records(text: str) -> str:
    """An installed text naming a unit's records where an engine with
    ``construction/units/<unit>/`` keeps them (the texts spell the folder one way)."""
    return text.replace(names.UNIT_RECORDS_TEXT, names.UNITS_RECORDS_TEXT)


def with_review_slot_step(stage_text: str) -> str:
    """The installed code-review stage, its body ending with the review-slot step."""
    return stage_text.rstrip("\n") + "\n" + REVIEW_SLOT_STEP


# what pr-integration gains, after its own entries: the unit's code review done first, and its
# report among the consumes its evidence dossier enumerates. Not required: the engine promotes
# pr-integration per intent in any scope, also where code review does not run (poc, express),
# and a required artifact no stage of the scope produces would starve it; where code review
# runs, ``requires_stage`` has it approved, its report written, before the PR is composed.
REVIEW_STAGE = "code-review"
PR_REQUIRES = [f"  - {REVIEW_STAGE}"]
PR_CONSUMES = [f"  - artifact: {REVIEW_REPORT}", "    required: false"]


def pr_integration_edit(text: str, display: str) -> tuple[str, list[Insertion]]:
    """upstream's pr-integration stage requiring code-review and consuming its report, the
    added lines recorded for uninstall (refused, naming the file, if it has no block lists)."""
    inserted: list[Insertion] = []
    for key, lines in (("requires_stage", PR_REQUIRES), ("consumes", PR_CONSUMES)):
        text = blocks.append_to_list_block(text, key, lines, display)
        added = "\n".join(lines) + "\n"
        inserted.append(Insertion(path=display, kind="list-lines", key=key, text=added))
    return text, inserted
