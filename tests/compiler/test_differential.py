"""Differential conformance: this compiler and upstream's reference compiler, on the
same seeded mutations of the engine export's ``.claude`` (``AIDLC_UPSTREAM``), both accept
or both reject, and where both accept they write byte-identical stage-graph.json and
scope-grid.json.

Upstream runs for real (``../shared/bin/aidlc-upstream DIR graph compile``, bun from
npm on first use); if it cannot run (exit 127) these tests fail. Both compilers start
from the same pinned ``stage-graph.json`` (see ``differential.py``). The few inputs on
which they differ on purpose are listed in DOCUMENTED, each with its reason in
docs/compiler.md ("Differential conformance"); each is recognised by its exact
evidence, so any other disagreement fails with the mutation named.
Run with ``-rP`` to see the agreement counts (each family prints its own).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tests.compiler.differential import Outcome, make_project, run_both
from tests.compiler.mutations import Mutation, all_mutations

pytestmark = pytest.mark.engine  # runs upstream's engine (tests/engine_export.py)

FAMILIES = all_mutations()


def _ours_alone_rejects(*evidence: str) -> Callable[[Mutation, Outcome, Outcome], bool]:
    return lambda m, ours, up: (
        up.accepted and not ours.accepted and all(e in ours.message for e in evidence)
    )


def _only_names_differ(m: Mutation, ours: Outcome, up: Outcome) -> bool:
    if not (ours.accepted and up.accepted):
        return False
    if ours.outputs["scope-grid.json"] != up.outputs["scope-grid.json"]:
        return False
    mine, theirs = (json.loads(o.outputs["stage-graph.json"]) for o in (ours, up))
    for node in (*mine, *theirs):
        node.pop("name")
    return mine == theirs


# Deliberate differences, each explained in docs/compiler.md under the same name.
DOCUMENTED: dict[str, Callable[[Mutation, Outcome, Outcome], bool]] = {
    "agent-team is reserved": _ours_alone_rejects("mode: mode agent-team is reserved"),
    "for_each names an upstream artifact": _ours_alone_rejects(
        "for_each: artifact", "is not produced by any upstream stage"
    ),
    "for_each is kebab-case": _ours_alone_rejects("for_each: must be lowercase kebab-case"),
    "the folder is the phase": _ours_alone_rejects("phase: '", "does not match its folder"),
    "YAML types": _ours_alone_rejects("number: must be a string, got 9.9"),
    "consumed artifacts have one producer": _ours_alone_rejects("has two producers"),
    "display names are derived": lambda m, ours, up: (
        ("name given" in m.name or "api-audit" in m.name) and _only_names_differ(m, ours, up)
    ),
}


@dataclass
class Compared:
    mutation: Mutation
    ours: Outcome
    upstream: Outcome

    @property
    def agree(self) -> bool:
        if self.ours.accepted != self.upstream.accepted:
            return False
        return self.ours.outputs == self.upstream.outputs

    def documented_as(self) -> str | None:
        found = [
            name
            for name, fits in DOCUMENTED.items()
            if fits(self.mutation, self.ours, self.upstream)
        ]
        return found[0] if found else None

    def report(self) -> str:
        def side(o: Outcome) -> str:
            if not o.accepted:
                return f"rejects: {o.message.strip()}"
            return "accepts"

        bytes_note = ""
        if self.ours.accepted and self.upstream.accepted:
            theirs = self.upstream.outputs
            differing = [n for n, data in self.ours.outputs.items() if data != theirs[n]]
            bytes_note = f" (outputs differ: {', '.join(differing)})"
        return (
            f"- {self.mutation.name}{bytes_note}\n"
            f"    ours:     {side(self.ours)}\n"
            f"    upstream: {side(self.upstream)}"
        )


def compare(mutation: Mutation, harness, out) -> Compared:
    try:
        mutation.apply(harness)
        return Compared(mutation, *run_both(harness, out))
    finally:
        harness.restore()


def test_at_least_two_hundred_seeded_mutations_are_compared():
    names = [m.name for ms in FAMILIES.values() for m in ms]
    assert len(names) >= 200
    assert len(set(names)) == len(names), "each mutation is named once"
    assert [m.name for ms in all_mutations().values() for m in ms] == names, "seeded"


def test_the_unmutated_reference_compiles_identically(tmp_path):
    harness = make_project(tmp_path)
    ours, upstream = run_both(harness, tmp_path / "out")
    assert ours.accepted and upstream.accepted, (ours.message, upstream.message)
    assert ours.outputs == upstream.outputs


@pytest.mark.parametrize("family", list(FAMILIES))
def test_both_compilers_agree_on_every_mutation(family, tmp_path):
    harness = make_project(tmp_path)
    results = [compare(m, harness, tmp_path / "out") for m in FAMILIES[family]]
    agreed = [r for r in results if r.agree]
    documented = {r.mutation.name: r.documented_as() for r in results if not r.agree}
    unexplained = [r for r in results if not r.agree and documented[r.mutation.name] is None]
    print(
        f"\ndifferential {family}: {len(agreed)}/{len(results)} agree, "
        f"{len(documented) - len(unexplained)} documented divergences, "
        f"{len(unexplained)} unexplained"
    )
    for name, why in sorted(documented.items()):
        if why:
            print(f"  documented ({why}): {name}")
    assert not unexplained, "the compilers disagree:\n" + "\n".join(r.report() for r in unexplained)
