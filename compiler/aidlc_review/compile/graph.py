"""The stage graph. networkx stays behind this one class.

Edges run from a required stage to the stage that requires it. Queries are
domain questions (who produces an artifact, which stages run in a scope, the
display numbers), never raw graph calls.
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from aidlc_review.harness.definitions.stage import PHASES, Stage


class StageGraph:
    """``pinned``: slug -> number from an existing ``stage-graph.json``. As in the reference
    compiler, a stage already numbered keeps its number and a new one takes the next free
    index of its phase, so adding a stage never renumbers the others."""

    def __init__(self, stages: Iterable[Stage], pinned: dict[str, str] | None = None):
        self._pinned = dict(pinned or {})
        self._stages: dict[str, Stage] = {}
        self._graph = nx.DiGraph()
        for stage in stages:
            self._stages.setdefault(stage.slug, stage)
            self._graph.add_node(stage.slug)
        for stage in self._stages.values():
            for required in stage.requires_stage:
                if required in self._stages:
                    self._graph.add_edge(required, stage.slug)

    def __contains__(self, slug: object) -> bool:
        return slug in self._stages

    def stage(self, slug: str) -> Stage:
        return self._stages[slug]

    @property
    def slugs(self) -> list[str]:
        return list(self._stages)

    def cycles(self) -> list[list[str]]:
        """Each cycle once, rotated to start at its smallest slug, in sorted order."""
        found = []
        for cycle in nx.simple_cycles(self._graph):
            start = cycle.index(min(cycle))
            found.append(cycle[start:] + cycle[:start])
        return sorted(found)

    def ancestors(self, slug: str) -> set[str]:
        return set(nx.ancestors(self._graph, slug))

    def numbers(self) -> dict[str, str]:
        """``<phase-index>.<n>``: lexicographic topological order within each phase, or the
        pinned number; a new stage beside pinned ones takes its phase's next free index.

        Raises ``nx.NetworkXUnfeasible`` on a cycle; validation reports cycles first.
        """
        if self._pinned:
            return self._pinned_numbers()
        numbers: dict[str, str] = {}
        for index, phase in enumerate(PHASES):
            members = [s for s, stage in self._stages.items() if stage.phase == phase]
            sub = self._graph.subgraph(members)
            for n, slug in enumerate(nx.lexicographical_topological_sort(sub), start=1):
                numbers[slug] = f"{index}.{n}"
        return numbers

    def _pinned_numbers(self) -> dict[str, str]:
        highest: dict[int, int] = {}
        for number in self._pinned.values():
            prefix, index = (int(part) for part in number.split("."))
            highest[prefix] = max(highest.get(prefix, 0), index)
        numbers: dict[str, str] = {}
        for slug in sorted(self._stages, key=lambda s: (PHASES.index(self._stages[s].phase), s)):
            if slug in self._pinned:
                numbers[slug] = self._pinned[slug]
                continue
            prefix = PHASES.index(self._stages[slug].phase)
            highest[prefix] = highest.get(prefix, 0) + 1
            numbers[slug] = f"{prefix}.{highest[prefix]}"
        return numbers

    def misordered_edges(self) -> list[tuple[str, str]]:
        """``(required, stage)`` edges whose required stage does not come first by number."""
        numbers = self.numbers()

        def key(slug: str) -> tuple[int, int]:
            phase, n = numbers[slug].split(".")
            return int(phase), int(n)

        return sorted((a, b) for a, b in self._graph.edges if key(a) >= key(b))

    def ordered(self) -> list[Stage]:
        """Stages in display-number order."""
        numbers = self.numbers()

        def key(slug: str) -> tuple[int, int]:
            phase, n = numbers[slug].split(".")
            return int(phase), int(n)

        return [self._stages[slug] for slug in sorted(self._stages, key=key)]

    def topo(self) -> list[str]:
        return [stage.slug for stage in self.ordered()]

    def producers_of(self, artifact: str) -> list[str]:
        return [
            s.slug
            for s in self.ordered()
            if artifact in s.produces or artifact in (s.optional_produces or [])
        ]

    def consumers_of(self, artifact: str) -> list[str]:
        return [s.slug for s in self.ordered() if any(c.artifact == artifact for c in s.consumes)]

    def executes(self, slug: str, scope: str) -> bool:
        return scope in self._stages[slug].scopes

    def scope_stages(self, scope: str) -> list[Stage]:
        return [s for s in self.ordered() if scope in s.scopes]

    def reviewer_of(self, slug: str) -> Stage | None:
        """The stage whose ``reviews`` names ``slug`` (at most one; validation enforces it)."""
        for stage in self._stages.values():
            if stage.reviews == slug:
                return stage
        return None
