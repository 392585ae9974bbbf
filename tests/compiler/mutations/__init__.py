"""Seeded, deterministic mutations of upstream's reference harness.

Each family draws its targets from ``random.Random(seed)`` over the sorted stage,
agent, sensor and scope names of ``../shared/aidlc-upstream/.claude``, so the same
seed always yields the same mutations. A mutation only edits files through a
``Harness`` (which restores them); ``renumbers`` marks the ones that change the
stage set or the ``requires_stage`` edges, where the numbering rules (pinned numbers,
next free index, edges pointing down) decide the outcome.
"""

from __future__ import annotations

import random

from tests.compiler.mutations.base import Mutation
from tests.compiler.mutations.dialect import caps_and_turns, review_classes, summary_confirmations
from tests.compiler.mutations.fields import (
    list_entries,
    modes_and_support,
    per_unit_fields,
    reviewers,
    scalar_fields,
)
from tests.compiler.mutations.shape import edges, other_files, scopes, stage_set

SEED = 20261201
FAMILIES = (
    scalar_fields,
    modes_and_support,
    reviewers,
    per_unit_fields,
    list_entries,
    scopes,
    edges,
    stage_set,
    other_files,
    review_classes,
    summary_confirmations,
    caps_and_turns,
)


def all_mutations() -> dict[str, list[Mutation]]:
    """Every family's mutations, each family drawn from its own seeded generator."""
    return {
        family.__name__: family(random.Random(f"{SEED}:{family.__name__}")) for family in FAMILIES
    }
