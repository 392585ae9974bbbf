"""Seeded, deterministic mutations of upstream's reference harness.

Each family draws its targets from ``random.Random(seed)`` over the sorted stage,
agent, sensor and scope names of ``../shared/aidlc-upstream/.claude``, so the same
seed always yields the same mutations. A mutation only edits files through a
``Harness`` (which restores them); ``renumbers`` marks the ones that change the
stage set or the ``requires_stage`` edges, the only inputs whose numbering the two
compilers decide differently (see docs/compiler.md, "Differential conformance").
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass

from tests.compiler.differential import UPSTREAM, Frontmatter, Harness

SEED = 20261201
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


def _set(slug: str, key: str, value: object) -> Callable[[Harness], None]:
    return lambda h: h.edit(slug, lambda fm: fm.set(key, value))


def _drop(slug: str, key: str) -> Callable[[Harness], None]:
    return lambda h: h.edit(slug, lambda fm: fm.drop(key))


def _edit_list(slug: str, key: str, change: Callable[[list], list]) -> Callable[[Harness], None]:
    return lambda h: h.edit(slug, lambda fm: fm.set(key, change(list(fm.get(key) or []))))


def scalar_fields(rng: random.Random) -> list[Mutation]:
    found = []
    for slug in rng.sample(REF.slugs, 2):
        node = REF.nodes[slug]
        flipped = "CONDITIONAL" if node["execution"] == "ALWAYS" else "ALWAYS"
        found += [
            Mutation(f"{slug}: execution {flipped}", _set(slug, "execution", flipped)),
            Mutation(f"{slug}: execution sometimes", _set(slug, "execution", "SOMETIMES")),
            Mutation(f"{slug}: condition reworded", _set(slug, "condition", "Runs when asked.")),
            Mutation(f"{slug}: inputs reworded", _set(slug, "inputs", "the intent, nothing else")),
            Mutation(f"{slug}: outputs reworded", _set(slug, "outputs", "one summary document")),
            Mutation(f"{slug}: no condition", _drop(slug, "condition")),
            Mutation(f"{slug}: no outputs", _drop(slug, "outputs")),
        ]
    for slug in rng.sample(REF.slugs, 3):
        other = rng.choice(REF.agents)
        found += [
            Mutation(f"{slug}: lead_agent {other}", _set(slug, "lead_agent", other)),
            Mutation(f"{slug}: lead_agent unknown", _set(slug, "lead_agent", GHOST_AGENT)),
            Mutation(f"{slug}: lead_agent orchestrator", _set(slug, "lead_agent", "orchestrator")),
        ]
    for slug in rng.sample(REF.slugs, 2):
        found += [
            Mutation(f"{slug}: slug differs from file", _set(slug, "slug", f"{slug}-renamed")),
            Mutation(f"{slug}: slug not kebab", _set(slug, "slug", slug.replace("-", "_"))),
            Mutation(f"{slug}: unknown key", _set(slug, "owner", "team-a")),
            Mutation(f"{slug}: reserved key retry", _set(slug, "retry", 2)),
            Mutation(f"{slug}: old bundle key", _set(slug, "bundle", "acme")),
        ]
    return found


def modes_and_support(rng: random.Random) -> list[Mutation]:
    found = []
    for slug in rng.sample(REF.slugs, 2):
        helper = rng.choice([a for a in REF.agents if a != REF.nodes[slug]["lead_agent"]])
        for mode in ("inline", "subagent", "pipeline", "mob", "agent-team"):
            found.append(Mutation(f"{slug}: mode {mode}", _set(slug, "mode", mode)))
            found.append(
                Mutation(
                    f"{slug}: mode {mode}, no support agents",
                    lambda h, s=slug, m=mode: h.edit(
                        s, lambda fm: (fm.set("mode", m), fm.set("support_agents", []))
                    ),
                )
            )
            found.append(
                Mutation(
                    f"{slug}: mode {mode}, support {helper}",
                    lambda h, s=slug, m=mode, a=helper: h.edit(
                        s, lambda fm: (fm.set("mode", m), fm.set("support_agents", [a]))
                    ),
                )
            )
        found.append(Mutation(f"{slug}: mode swarm", _set(slug, "mode", "swarm")))
        found.append(
            Mutation(
                f"{slug}: support agent unknown",
                _edit_list(slug, "support_agents", lambda xs: [*xs, GHOST_AGENT]),
            )
        )
    return found


def reviewers(rng: random.Random) -> list[Mutation]:
    found = []
    with_reviewer = [s for s in REF.slugs if "reviewer" in REF.nodes[s]]
    without = [s for s in REF.slugs if "reviewer" not in REF.nodes[s]]
    for slug in rng.sample(without, 2):
        agent = rng.choice(REF.agents)

        def add(h: Harness, s: str = slug, a: str = agent, n: object = None) -> None:
            h.edit(
                s, lambda fm: (fm.set("reviewer", a), n and fm.set("reviewer_max_iterations", n))
            )

        found += [
            Mutation(f"{slug}: reviewer {agent}", add),
            Mutation(f"{slug}: reviewer unknown", _set(slug, "reviewer", GHOST_AGENT)),
            Mutation(
                f"{slug}: iterations without reviewer", _set(slug, "reviewer_max_iterations", 3)
            ),
        ]
        for n in (1, 3, 11):
            found.append(
                Mutation(
                    f"{slug}: reviewer with {n} iterations",
                    lambda h, s=slug, a=agent, n=n: add(h, s, a, n),
                )
            )
    for slug in rng.sample(with_reviewer, 2):
        found += [
            Mutation(
                f"{slug}: reviewer removed",
                lambda h, s=slug: h.edit(
                    s, lambda fm: (fm.drop("reviewer"), fm.drop("reviewer_max_iterations"))
                ),
            ),
            Mutation(f"{slug}: iterations left alone", _drop(slug, "reviewer")),
            Mutation(f"{slug}: iterations 0", _set(slug, "reviewer_max_iterations", 0)),
            Mutation(f"{slug}: iterations two", _set(slug, "reviewer_max_iterations", "two")),
            Mutation(f"{slug}: iterations 5", _set(slug, "reviewer_max_iterations", 5)),
        ]
    return found


def per_unit_fields(rng: random.Random) -> list[Mutation]:
    found = []
    downstream = [s for s in REF.slugs if REF.order(s) > REF.order("units-generation")]
    upstream_of_units = [s for s in REF.slugs if REF.order(s) < REF.order("units-generation")]
    for slug in rng.sample(REF.slugs, 2):
        found += [
            Mutation(f"{slug}: workspace_requires true", _set(slug, "workspace_requires", True)),
            Mutation(f"{slug}: workspace_requires false", _set(slug, "workspace_requires", False)),
            Mutation(f"{slug}: workspace_requires yes", _set(slug, "workspace_requires", "yes")),
            Mutation(f"{slug}: no workspace_requires", _drop(slug, "workspace_requires")),
        ]
    for slug in rng.sample(downstream, 2):
        found.append(Mutation(f"{slug}: no for_each", _drop(slug, "for_each")))
        found.append(
            Mutation(f"{slug}: for_each unit-of-work", _set(slug, "for_each", "unit-of-work"))
        )
    for slug in rng.sample(upstream_of_units, 2):
        found.append(
            Mutation(
                f"{slug}: for_each before its producer",
                _set(slug, "for_each", "unit-of-work"),
            )
        )
    for slug in rng.sample([s for s in REF.slugs if REF.nodes[s]["produces"]], 1):
        produced = REF.nodes[slug]["produces"]
        found += [
            Mutation(f"{slug}: for_each Not_Kebab", _set(slug, "for_each", "Not_Kebab")),
            Mutation(
                f"{slug}: optional_produces", _set(slug, "optional_produces", ["extra-notes"])
            ),
            Mutation(f"{slug}: optional_produces Bad", _set(slug, "optional_produces", ["Bad"])),
            Mutation(f"{slug}: required_sections", _set(slug, "required_sections", ["Summary"])),
            Mutation(f"{slug}: when", _set(slug, "when", {"producer-in-plan": produced[0]})),
            Mutation(f"{slug}: when unknown", _set(slug, "when", {"producer-in-scope": "x"})),
            Mutation(f"{slug}: plugin acme", _set(slug, "plugin", "acme")),
            Mutation(f"{slug}: plugin aidlc", _set(slug, "plugin", "aidlc")),
            Mutation(f"{slug}: number '2.5'", _set(slug, "number", '"2.5"')),
            Mutation(f"{slug}: number 9.9 (a YAML float)", _set(slug, "number", "9.9")),
            Mutation(f"{slug}: name given", _set(slug, "name", "Given Name")),
            Mutation(
                f"{slug}: produces_kinds",
                _set(slug, "produces_kinds", {produced[0]: ["service", "ui"]}),
            ),
            Mutation(
                f"{slug}: produces_kinds unknown kind",
                _set(slug, "produces_kinds", {produced[0]: ["robot"]}),
            ),
            Mutation(
                f"{slug}: produces_kinds orphan key",
                _set(slug, "produces_kinds", {"not-produced": ["service"]}),
            ),
        ]
    return found


def list_entries(rng: random.Random) -> list[Mutation]:
    found = []
    producers = [s for s in REF.slugs if REF.nodes[s]["produces"]]
    for slug in rng.sample(producers, 2):
        produced = REF.nodes[slug]["produces"]
        consumed = REF.frontmatter(slug).get("consumes") or []
        found += [
            Mutation(
                f"{slug}: produces one more",
                _edit_list(slug, "produces", lambda xs: [*xs, "notes"]),
            ),
            Mutation(
                f"{slug}: produces reversed", _edit_list(slug, "produces", lambda xs: xs[::-1])
            ),
            Mutation(
                f"{slug}: produces without {produced[-1]}",
                _edit_list(slug, "produces", lambda xs: xs[:-1]),
            ),
            Mutation(
                f"{slug}: consumes requirements",
                _edit_list(
                    slug,
                    "consumes",
                    lambda xs: [*xs, {"artifact": "requirements", "required": False}],
                ),
            ),
            Mutation(
                f"{slug}: consumes brownfield-only",
                _edit_list(
                    slug,
                    "consumes",
                    lambda xs: [
                        *xs,
                        {"artifact": "notes", "required": False, "conditional_on": "brownfield"},
                    ],
                ),
            ),
            Mutation(
                f"{slug}: consumes conditional_on always",
                _edit_list(
                    slug,
                    "consumes",
                    lambda xs: [
                        *xs,
                        {"artifact": "x", "required": True, "conditional_on": "always"},
                    ],
                ),
            ),
            Mutation(
                f"{slug}: consumes Bad_Artifact",
                _edit_list(
                    slug, "consumes", lambda xs: [*xs, {"artifact": "Bad_A", "required": True}]
                ),
            ),
        ]
        if consumed:
            found += [
                Mutation(
                    f"{slug}: consumes without the first",
                    _edit_list(slug, "consumes", lambda xs: xs[1:]),
                ),
                Mutation(
                    f"{slug}: consumes required flipped",
                    _edit_list(
                        slug,
                        "consumes",
                        lambda xs: [{**xs[0], "required": not xs[0]["required"]}, *xs[1:]],
                    ),
                ),
            ]
    for slug in rng.sample(REF.slugs, 2):
        sensor = rng.choice(REF.sensors)
        found += [
            Mutation(
                f"{slug}: sensor {sensor}",
                _edit_list(slug, "sensors", lambda xs, s=sensor: [*[x for x in xs if x != s], s]),
            ),
            Mutation(
                f"{slug}: sensor unknown", _edit_list(slug, "sensors", lambda xs: [*xs, "ghost"])
            ),
            Mutation(f"{slug}: no sensors", _set(slug, "sensors", [])),
            Mutation(f"{slug}: sensors key dropped", _drop(slug, "sensors")),
        ]
    return found


def scopes(rng: random.Random) -> list[Mutation]:
    found = []
    for slug in rng.sample(REF.slugs, 2):
        scope = rng.choice(REF.scopes)
        found += [
            Mutation(
                f"{slug}: scope {scope} toggled",
                _edit_list(
                    slug,
                    "scopes",
                    lambda xs, s=scope: [x for x in xs if x != s] if s in xs else [*xs, s],
                ),
            ),
            Mutation(
                f"{slug}: scope mvp-lite", _edit_list(slug, "scopes", lambda xs: [*xs, "mvp-lite"])
            ),
            Mutation(f"{slug}: no scopes", _set(slug, "scopes", [])),
            Mutation(f"{slug}: scopes sorted", _edit_list(slug, "scopes", sorted)),
        ]
    removed = set(rng.sample(REF.scopes, 3))
    for scope in REF.scopes:
        users = [s for s in REF.slugs if scope in (REF.nodes[s].get("scopes") or [])]
        non_init = [s for s in users if REF.nodes[s]["phase"] != "initialization"]

        def drop_everywhere(h: Harness, sc: str = scope, ss: list[str] = non_init) -> None:
            for s in ss:
                h.edit(s, lambda fm: fm.set("scopes", [x for x in fm.get("scopes") if x != sc]))

        found.append(
            Mutation(f"scope {scope} dropped from every non-initialization stage", drop_everywhere)
        )
        if scope not in removed:
            continue
        found.append(
            Mutation(
                f"scope {scope}: scope file removed",
                lambda h, sc=scope: h.remove(h.root / "scopes" / f"aidlc-{sc}.md"),
            )
        )
    return found


def edges(rng: random.Random) -> list[Mutation]:
    found = []
    for phase in ("ideation", "inception", "construction", "operation"):
        members = REF.phase_members(phase)
        for _ in range(2):
            low, high = sorted(rng.sample(members, 2), key=REF.order)
            found.append(
                Mutation(
                    f"{high} requires {low} (along the numbering)",
                    _edit_list(
                        high, "requires_stage", lambda xs, d=low: [*xs, d] if d not in xs else xs
                    ),
                    renumbers=True,
                )
            )
            found.append(
                Mutation(
                    f"{low} requires {high} (against the numbering)",
                    _edit_list(low, "requires_stage", lambda xs, d=high: [*xs, d]),
                    renumbers=True,
                )
            )
        for slug in rng.sample([m for m in members if REF.nodes[m]["requires_stage"]], 1):
            found.append(
                Mutation(
                    f"{slug}: requires_stage without its last edge",
                    _edit_list(slug, "requires_stage", lambda xs: xs[:-1]),
                    renumbers=True,
                )
            )
            found.append(
                Mutation(
                    f"{slug}: requires itself",
                    _edit_list(slug, "requires_stage", lambda xs, s=slug: [*xs, s]),
                )
            )
    for slug in rng.sample(REF.slugs, 2):
        found.append(
            Mutation(
                f"{slug}: requires a ghost",
                _edit_list(slug, "requires_stage", lambda xs: [*xs, "ghost"]),
            )
        )
        found.append(
            Mutation(
                f"{slug}: requires state-init (an earlier phase)",
                _edit_list(slug, "requires_stage", _also_state_init),
                renumbers=True,
            )
        )
    return found


def _also_state_init(xs: list[str]) -> list[str]:
    return xs if "state-init" in xs else [*xs, "state-init"]


def _new_stage(h: Harness, slug: str, phase: str, requires: list[str], produces: str) -> None:
    template = REF.frontmatter(REF.phase_members(phase)[-1])
    fm = Frontmatter.parse(template.render())
    fm.set("slug", slug)
    fm.set("requires_stage", requires)
    fm.set("produces", [produces])
    fm.set("consumes", [])
    fm.drop("for_each")
    fm.drop("produces_kinds")
    fm.drop("optional_produces")
    fm.drop("reviewer")
    fm.drop("reviewer_max_iterations")
    h.write(h.stages_dir / phase / f"{slug}.md", fm.render())


def stage_set(rng: random.Random) -> list[Mutation]:
    found = []
    for n, phase in enumerate(("ideation", "inception", "construction", "operation")):
        last = REF.phase_members(phase)[-1]
        for slug in (f"mutation-check-{n}", f"api-audit-{n}"):
            found.append(
                Mutation(
                    f"new stage {slug} after {last}",
                    lambda h, s=slug, p=phase, r=[last]: _new_stage(h, s, p, r, f"{s}-report"),
                    renumbers=True,
                )
            )
        found.append(
            Mutation(
                f"new stage aaa-first-{n} in {phase}, no requirements",
                lambda h, s=f"aaa-first-{n}", p=phase: _new_stage(h, s, p, [], f"{s}-report"),
                renumbers=True,
            )
        )
        found.append(
            Mutation(
                f"new stage in {phase} producing what {last} produces",
                lambda h, s=f"copycat-{n}", p=phase, r=[last]: _new_stage(
                    h, s, p, r, REF.nodes[r[0]]["produces"][0]
                ),
                renumbers=True,
            )
        )
    for slug in rng.sample(REF.slugs, 3):
        found.append(
            Mutation(
                f"stage {slug} removed", lambda h, s=slug: h.remove(h.stage_path(s)), renumbers=True
            )
        )
        found.append(
            Mutation(
                f"stage {slug} duplicated under another file name",
                lambda h, s=slug: h.write(
                    h.stage_path(s).with_name(f"{s}-copy.md"), h.stage_path(s).read_text()
                ),
            )
        )
    for slug in rng.sample(REF.slugs, 2):
        node = REF.nodes[slug]
        phase = "operation" if node["phase"] != "operation" else "ideation"
        found.append(
            Mutation(f"{slug}: phase says {phase}", _set(slug, "phase", phase), renumbers=True)
        )
        found.append(Mutation(f"{slug}: phase unknown", _set(slug, "phase", "maintenance")))
    return found


def other_files(rng: random.Random) -> list[Mutation]:
    found = []
    for sensor in REF.sensors:
        path = f"sensors/aidlc-{sensor}.md"
        found += [
            Mutation(f"sensor {sensor}: manifest removed", lambda h, p=path: h.remove(h.root / p)),
            Mutation(
                f"sensor {sensor}: matches changed",
                lambda h, p=path: h.write(
                    h.root / p,
                    "\n".join(
                        'matches: "**/*.md"' if line.startswith("matches:") else line
                        for line in (h.root / p).read_text().split("\n")
                    ),
                ),
            ),
        ]
    for agent in rng.sample(REF.agents, 2):
        found.append(
            Mutation(
                f"agent {agent}: file removed",
                lambda h, a=agent: h.remove(h.root / "agents" / f"{a}.md"),
            )
        )
    found.append(
        Mutation(
            "scope file added: aidlc-hotfix",
            lambda h: h.write(
                h.root / "scopes/aidlc-hotfix.md",
                (h.root / "scopes/aidlc-bugfix.md").read_text().replace("bugfix", "hotfix"),
            ),
        )
    )
    return found


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
)


def all_mutations() -> dict[str, list[Mutation]]:
    """Every family's mutations, each family drawn from its own seeded generator."""
    return {
        family.__name__: family(random.Random(f"{SEED}:{family.__name__}")) for family in FAMILIES
    }
