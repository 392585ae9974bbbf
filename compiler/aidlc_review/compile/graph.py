"""The stage graph. networkx stays behind this one class.

Edges run from a required stage to the stage that requires it. Queries are
domain questions (who produces an artifact, which stages run in a scope, the
display numbers), never raw graph calls.

networkx is imported only to list every cycle of an invalid harness: importing it
costs about 100 ms, two thirds of a whole cold compile without it, and a valid harness
never needs it. Whether there is a cycle at all, and the display numbers (a lexicographic
topological order, as networkx's ``lexicographical_topological_sort`` gives it), are the
standard library's ``graphlib`` questions; the stages upstream of one are a walk over
``requires_stage``.
"""

from __future__ import annotations

import functools
import graphlib
import heapq
from collections.abc import Iterable
from typing import TYPE_CHECKING

from aidlc_review.harness.definitions.stage import PHASES, Stage

if TYPE_CHECKING:
    import networkx as nx


class StageGraph:
    """``pinned``: slug -> number from an existing ``stage-graph.json``. As in the reference
    compiler, a stage already numbered keeps its number and a new one takes the next free
    index of its phase, so adding a stage never renumbers the others."""

    def __init__(self, stages: Iterable[Stage], pinned: dict[str, str] | None = None):
        self._pinned = dict(pinned or {})
        self._stages: dict[str, Stage] = {}
        for stage in stages:
            self._stages.setdefault(stage.slug, stage)
        # slug -> the known stages it requires, in the order it names them
        self._requires = {
            slug: [r for r in dict.fromkeys(stage.requires_stage) if r in self._stages]
            for slug, stage in self._stages.items()
        }

    @functools.cached_property
    def _nx(self) -> nx.DiGraph:
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self._stages)
        graph.add_edges_from((r, slug) for slug, rs in self._requires.items() for r in rs)
        return graph

    def __contains__(self, slug: object) -> bool:
        return slug in self._stages

    def stage(self, slug: str) -> Stage:
        return self._stages[slug]

    @property
    def slugs(self) -> list[str]:
        return list(self._stages)

    def cycles(self) -> list[list[str]]:
        """Each cycle once, rotated to start at its smallest slug, in sorted order."""
        try:
            graphlib.TopologicalSorter(self._requires).prepare()
        except graphlib.CycleError:
            pass
        else:
            return []
        import networkx as nx

        found = []
        for cycle in nx.simple_cycles(self._nx):
            start = cycle.index(min(cycle))
            found.append(cycle[start:] + cycle[:start])
        return sorted(found)

    def ancestors(self, slug: str) -> set[str]:
        """Every stage ``slug`` requires, directly or through others."""
        found: set[str] = set()
        waiting = list(self._requires[slug])
        while waiting:
            required = waiting.pop()
            if required not in found:
                found.add(required)
                waiting.extend(self._requires[required])
        found.discard(slug)  # on a cycle through it: a stage is not its own upstream
        return found

    def numbers(self) -> dict[str, str]:
        """``<phase-index>.<n>``: lexicographic topological order within each phase, or the
        pinned number; a new stage beside pinned ones takes its phase's next free index.

        Raises ``graphlib.CycleError`` on a cycle; validation reports cycles first.
        """
        return dict(self._numbers)

    @functools.cached_property
    def _numbers(self) -> dict[str, str]:
        """Computed once: ``ordered`` and every query built on it ask again and again."""
        if self._pinned:
            return self._pinned_numbers()
        numbers: dict[str, str] = {}
        for index, phase in enumerate(PHASES):
            members = {s for s, stage in self._stages.items() if stage.phase == phase}
            within = {s: [r for r in self._requires[s] if r in members] for s in members}
            for n, slug in enumerate(_lexicographic_order(within), start=1):
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

        edges = ((r, slug) for slug, rs in self._requires.items() for r in rs)
        return sorted((a, b) for a, b in edges if key(a) >= key(b))

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


def _lexicographic_order(requires: dict[str, list[str]]) -> list[str]:
    """A topological order that always takes the smallest stage whose requirements are
    placed (Kahn's algorithm with a heap, as networkx's lexicographical sort)."""
    sorter = graphlib.TopologicalSorter(requires)
    sorter.prepare()
    ready = list(sorter.get_ready())
    heapq.heapify(ready)
    order = []
    while ready:
        slug = heapq.heappop(ready)
        order.append(slug)
        sorter.done(slug)
        for freed in sorter.get_ready():
            heapq.heappush(ready, freed)
    return order
