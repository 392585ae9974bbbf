"""What the mutation families share: the Mutation record, the pristine reference
harness to choose targets from, and small edits of one stage's frontmatter."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from tests.compiler.differential import UPSTREAM, Frontmatter, Harness

GHOST_AGENT = "aidlc-ghost-agent"


@dataclass(frozen=True)
class Mutation:
    name: str
    apply: Callable[[Harness], None]
    renumbers: bool = False


class Reference:
    """What the pristine harness holds, for choosing targets."""

    def __init__(self) -> None:
        graph = json.loads((UPSTREAM / "tools/data/stage-graph.json").read_text())
        self.nodes = {node["slug"]: node for node in graph}
        self.slugs = sorted(self.nodes)
        self.agents = sorted(p.stem for p in (UPSTREAM / "agents").glob("*.md"))
        self.sensors = sorted(p.stem.removeprefix("aidlc-") for p in UPSTREAM.glob("sensors/*.md"))
        self.scopes = sorted(p.stem.removeprefix("aidlc-") for p in UPSTREAM.glob("scopes/*.md"))

    def order(self, slug: str) -> tuple[int, int]:
        phase, index = self.nodes[slug]["number"].split(".")
        return int(phase), int(index)

    def phase_members(self, phase: str) -> list[str]:
        members = [s for s in self.slugs if self.nodes[s]["phase"] == phase]
        return sorted(members, key=self.order)

    def frontmatter(self, slug: str) -> Frontmatter:
        (path,) = UPSTREAM.glob(f"aidlc-common/stages/*/{slug}.md")
        return Frontmatter.parse(path.read_text())


REF = Reference()


def set_key(slug: str, key: str, value: object) -> Callable[[Harness], None]:
    return set_keys(slug, {key: value})


def set_keys(slug: str, fields: dict[str, object]) -> Callable[[Harness], None]:
    """Set several keys at once (a key set to None is left out)."""

    def change(fm: Frontmatter) -> None:
        for key, value in fields.items():
            if value is not None:
                fm.set(key, value)

    return lambda h: h.edit(slug, change)


def drop_keys(slug: str, *keys: str) -> Callable[[Harness], None]:
    def change(fm: Frontmatter) -> None:
        for key in keys:
            fm.drop(key)

    return lambda h: h.edit(slug, change)


def edit_list(slug: str, key: str, change: Callable[[list], list]) -> Callable[[Harness], None]:
    return lambda h: h.edit(slug, lambda fm: fm.set(key, change(list(fm.get(key) or []))))
