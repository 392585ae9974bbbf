"""Mutations of what engines write differently (the harness's dialect): a stage's review
class and summary confirmation, a scope's review cap, an agent's turn cap.

Engine 2.6 takes ``review_class: adversarial|advisory`` (and writes ``adversarial`` into the
node of a reviewer that names none), ``summary_confirmation: required|if-present`` and
``review_cap: none|advisory|adversarial``; engine 2.5 knows none of these stage keys and
refuses them. The same mutations run on either export: both compilers must judge them alike.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from aidlc_review.harness.definitions.dialect import SOURCE
from aidlc_review.harness.engine import read_dialect
from tests.compiler.differential import UPSTREAM, Frontmatter, Harness
from tests.compiler.mutations.base import REF, Mutation, drop_keys, set_key

REVIEW_WORDS = ("adversarial", "advisory", "blocking", "none")
SUMMARY_VALUES: tuple[object, ...] = ("required", "if-present", True, "always")


def _set_in_file(path: Path, key: str, value: object) -> Callable[[Harness], None]:
    def change(h: Harness) -> None:
        target = h.root / path
        fm = Frontmatter.parse(target.read_text())
        fm.set(key, value)
        h.write(target, fm.render())

    return change


def review_classes(rng: random.Random) -> list[Mutation]:
    with_reviewer = [s for s in REF.slugs if "reviewer" in REF.nodes[s]]
    without = [s for s in REF.slugs if "reviewer" not in REF.nodes[s]]
    found = []
    for slug in rng.sample(with_reviewer, 2):
        found += [
            Mutation(f"{slug}: review_class {word}", set_key(slug, "review_class", word))
            for word in REVIEW_WORDS
        ]
        found.append(Mutation(f"{slug}: review_class left out", drop_keys(slug, "review_class")))
    for slug in rng.sample(without, 2):
        found.append(
            Mutation(
                f"{slug}: review_class advisory without a reviewer",
                set_key(slug, "review_class", "advisory"),
            )
        )
    return found


def summary_confirmations(rng: random.Random) -> list[Mutation]:
    found = []
    for slug in rng.sample(REF.slugs, 3):
        found += [
            Mutation(
                f"{slug}: summary_confirmation {value}",
                set_key(slug, "summary_confirmation", value),
            )
            for value in SUMMARY_VALUES
        ]
        found.append(
            Mutation(
                f"{slug}: summary_confirmation left out", drop_keys(slug, "summary_confirmation")
            )
        )
    return found


def caps_and_turns(rng: random.Random) -> list[Mutation]:
    spoken = read_dialect(UPSTREAM)
    caps = list(spoken.review_caps or ())
    # A cap the engine does not take is refused by the engine only where it reads caps
    # (2.6 on); engine 2.5 reads none, and there the cap is the plugin's own key.
    if spoken.review_caps != SOURCE.review_caps:
        caps += ["blocking", "sometimes"]
    found = []
    for scope in rng.sample(REF.scopes, 2):
        path = Path("scopes") / f"aidlc-{scope}.md"
        found += [
            Mutation(f"scope {scope}: review_cap {cap}", _set_in_file(path, "review_cap", cap))
            for cap in caps
        ]
    for agent in rng.sample(REF.agents, 2):
        path = Path("agents") / f"{agent}.md"
        found.append(Mutation(f"agent {agent}: maxTurns 40", _set_in_file(path, "maxTurns", 40)))
    return found
