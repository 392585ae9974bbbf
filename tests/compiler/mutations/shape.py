"""Mutations of the harness's shape: scopes, requires_stage edges, the stage set,
and the sensor, agent and scope files."""

from __future__ import annotations

import random

from tests.compiler.differential import Frontmatter, Harness
from tests.compiler.mutations.base import REF, Mutation, edit_list, set_key


def scopes(rng: random.Random) -> list[Mutation]:
    found = []
    for slug in rng.sample(REF.slugs, 2):
        scope = rng.choice(REF.scopes)
        found += [
            Mutation(
                f"{slug}: scope {scope} toggled",
                edit_list(
                    slug,
                    "scopes",
                    lambda xs, s=scope: [x for x in xs if x != s] if s in xs else [*xs, s],
                ),
            ),
            Mutation(
                f"{slug}: scope mvp-lite", edit_list(slug, "scopes", lambda xs: [*xs, "mvp-lite"])
            ),
            Mutation(f"{slug}: no scopes", set_key(slug, "scopes", [])),
            Mutation(f"{slug}: scopes sorted", edit_list(slug, "scopes", sorted)),
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
                    edit_list(
                        high, "requires_stage", lambda xs, d=low: [*xs, d] if d not in xs else xs
                    ),
                    renumbers=True,
                )
            )
            found.append(
                Mutation(
                    f"{low} requires {high} (against the numbering)",
                    edit_list(low, "requires_stage", lambda xs, d=high: [*xs, d]),
                    renumbers=True,
                )
            )
        for slug in rng.sample([m for m in members if REF.nodes[m]["requires_stage"]], 1):
            found.append(
                Mutation(
                    f"{slug}: requires_stage without its last edge",
                    edit_list(slug, "requires_stage", lambda xs: xs[:-1]),
                    renumbers=True,
                )
            )
            found.append(
                Mutation(
                    f"{slug}: requires itself",
                    edit_list(slug, "requires_stage", lambda xs, s=slug: [*xs, s]),
                )
            )
    for slug in rng.sample(REF.slugs, 2):
        found.append(
            Mutation(
                f"{slug}: requires a ghost",
                edit_list(slug, "requires_stage", lambda xs: [*xs, "ghost"]),
            )
        )
        found.append(
            Mutation(
                f"{slug}: requires state-init (an earlier phase)",
                edit_list(slug, "requires_stage", _also_state_init),
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
            Mutation(f"{slug}: phase says {phase}", set_key(slug, "phase", phase), renumbers=True)
        )
        found.append(Mutation(f"{slug}: phase unknown", set_key(slug, "phase", "maintenance")))
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
