"""Mutations of one stage's fields: scalar values, modes and support agents, reviewers,
per-unit keys, and list entries (produces, consumes, sensors)."""

from __future__ import annotations

import random

from tests.compiler.mutations.base import (
    GHOST_AGENT,
    REF,
    Mutation,
    drop_keys,
    edit_list,
    set_key,
    set_keys,
)


def scalar_fields(rng: random.Random) -> list[Mutation]:
    found = []
    for slug in rng.sample(REF.slugs, 2):
        node = REF.nodes[slug]
        flipped = "CONDITIONAL" if node["execution"] == "ALWAYS" else "ALWAYS"
        found += [
            Mutation(f"{slug}: execution {flipped}", set_key(slug, "execution", flipped)),
            Mutation(f"{slug}: execution sometimes", set_key(slug, "execution", "SOMETIMES")),
            Mutation(f"{slug}: condition reworded", set_key(slug, "condition", "Runs when asked.")),
            Mutation(
                f"{slug}: inputs reworded", set_key(slug, "inputs", "the intent, nothing else")
            ),
            Mutation(f"{slug}: outputs reworded", set_key(slug, "outputs", "one summary document")),
            Mutation(f"{slug}: no condition", drop_keys(slug, "condition")),
            Mutation(f"{slug}: no outputs", drop_keys(slug, "outputs")),
        ]
    for slug in rng.sample(REF.slugs, 3):
        other = rng.choice(REF.agents)
        found += [
            Mutation(f"{slug}: lead_agent {other}", set_key(slug, "lead_agent", other)),
            Mutation(f"{slug}: lead_agent unknown", set_key(slug, "lead_agent", GHOST_AGENT)),
            Mutation(
                f"{slug}: lead_agent orchestrator", set_key(slug, "lead_agent", "orchestrator")
            ),
        ]
    for slug in rng.sample(REF.slugs, 2):
        found += [
            Mutation(f"{slug}: slug differs from file", set_key(slug, "slug", f"{slug}-renamed")),
            Mutation(f"{slug}: slug not kebab", set_key(slug, "slug", slug.replace("-", "_"))),
            Mutation(f"{slug}: unknown key", set_key(slug, "owner", "team-a")),
            Mutation(f"{slug}: reserved key retry", set_key(slug, "retry", 2)),
            Mutation(f"{slug}: old bundle key", set_key(slug, "bundle", "acme")),
        ]
    return found


def modes_and_support(rng: random.Random) -> list[Mutation]:
    found = []
    for slug in rng.sample(REF.slugs, 2):
        helper = rng.choice([a for a in REF.agents if a != REF.nodes[slug]["lead_agent"]])
        for mode in ("inline", "subagent", "pipeline", "mob", "agent-team"):
            found.append(Mutation(f"{slug}: mode {mode}", set_key(slug, "mode", mode)))
            for support in ([], [helper]):
                label = f"support {helper}" if support else "no support agents"
                found.append(
                    Mutation(
                        f"{slug}: mode {mode}, {label}",
                        set_keys(slug, {"mode": mode, "support_agents": support}),
                    )
                )
        found.append(Mutation(f"{slug}: mode swarm", set_key(slug, "mode", "swarm")))
        found.append(
            Mutation(
                f"{slug}: support agent unknown",
                edit_list(slug, "support_agents", lambda xs: [*xs, GHOST_AGENT]),
            )
        )
    return found


def reviewers(rng: random.Random) -> list[Mutation]:
    found = []
    with_reviewer = [s for s in REF.slugs if "reviewer" in REF.nodes[s]]
    without = [s for s in REF.slugs if "reviewer" not in REF.nodes[s]]
    for slug in rng.sample(without, 2):
        agent = rng.choice(REF.agents)
        found += [
            Mutation(f"{slug}: reviewer {agent}", set_key(slug, "reviewer", agent)),
            Mutation(f"{slug}: reviewer unknown", set_key(slug, "reviewer", GHOST_AGENT)),
            Mutation(
                f"{slug}: iterations without reviewer", set_key(slug, "reviewer_max_iterations", 3)
            ),
        ]
        for n in (1, 3, 11):
            found.append(
                Mutation(
                    f"{slug}: reviewer with {n} iterations",
                    set_keys(slug, {"reviewer": agent, "reviewer_max_iterations": n}),
                )
            )
    for slug in rng.sample(with_reviewer, 2):
        found += [
            Mutation(
                f"{slug}: reviewer removed", drop_keys(slug, "reviewer", "reviewer_max_iterations")
            ),
            Mutation(f"{slug}: iterations left alone", drop_keys(slug, "reviewer")),
            Mutation(f"{slug}: iterations 0", set_key(slug, "reviewer_max_iterations", 0)),
            Mutation(f"{slug}: iterations two", set_key(slug, "reviewer_max_iterations", "two")),
            Mutation(f"{slug}: iterations 5", set_key(slug, "reviewer_max_iterations", 5)),
        ]
    return found


def per_unit_fields(rng: random.Random) -> list[Mutation]:
    found = []
    downstream = [s for s in REF.slugs if REF.order(s) > REF.order("units-generation")]
    upstream_of_units = [s for s in REF.slugs if REF.order(s) < REF.order("units-generation")]
    for slug in rng.sample(REF.slugs, 2):
        found += [
            Mutation(f"{slug}: workspace_requires true", set_key(slug, "workspace_requires", True)),
            Mutation(
                f"{slug}: workspace_requires false", set_key(slug, "workspace_requires", False)
            ),
            Mutation(f"{slug}: workspace_requires yes", set_key(slug, "workspace_requires", "yes")),
            Mutation(f"{slug}: no workspace_requires", drop_keys(slug, "workspace_requires")),
        ]
    for slug in rng.sample(downstream, 2):
        found.append(Mutation(f"{slug}: no for_each", drop_keys(slug, "for_each")))
        found.append(
            Mutation(f"{slug}: for_each unit-of-work", set_key(slug, "for_each", "unit-of-work"))
        )
    for slug in rng.sample(upstream_of_units, 2):
        found.append(
            Mutation(
                f"{slug}: for_each before its producer",
                set_key(slug, "for_each", "unit-of-work"),
            )
        )
    for slug in rng.sample([s for s in REF.slugs if REF.nodes[s]["produces"]], 1):
        produced = REF.nodes[slug]["produces"]
        found += [
            Mutation(f"{slug}: for_each Not_Kebab", set_key(slug, "for_each", "Not_Kebab")),
            Mutation(
                f"{slug}: optional_produces", set_key(slug, "optional_produces", ["extra-notes"])
            ),
            Mutation(f"{slug}: optional_produces Bad", set_key(slug, "optional_produces", ["Bad"])),
            Mutation(f"{slug}: required_sections", set_key(slug, "required_sections", ["Summary"])),
            Mutation(f"{slug}: when", set_key(slug, "when", {"producer-in-plan": produced[0]})),
            Mutation(f"{slug}: when unknown", set_key(slug, "when", {"producer-in-scope": "x"})),
            Mutation(f"{slug}: plugin acme", set_key(slug, "plugin", "acme")),
            Mutation(f"{slug}: plugin aidlc", set_key(slug, "plugin", "aidlc")),
            Mutation(f"{slug}: number '2.5'", set_key(slug, "number", '"2.5"')),
            Mutation(f"{slug}: number 9.9 (a YAML float)", set_key(slug, "number", "9.9")),
            Mutation(f"{slug}: name given", set_key(slug, "name", "Given Name")),
            Mutation(
                f"{slug}: produces_kinds",
                set_key(slug, "produces_kinds", {produced[0]: ["service", "ui"]}),
            ),
            Mutation(
                f"{slug}: produces_kinds unknown kind",
                set_key(slug, "produces_kinds", {produced[0]: ["robot"]}),
            ),
            Mutation(
                f"{slug}: produces_kinds orphan key",
                set_key(slug, "produces_kinds", {"not-produced": ["service"]}),
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
                edit_list(slug, "produces", lambda xs: [*xs, "notes"]),
            ),
            Mutation(
                f"{slug}: produces reversed", edit_list(slug, "produces", lambda xs: xs[::-1])
            ),
            Mutation(
                f"{slug}: produces without {produced[-1]}",
                edit_list(slug, "produces", lambda xs: xs[:-1]),
            ),
            Mutation(
                f"{slug}: consumes requirements",
                edit_list(
                    slug,
                    "consumes",
                    lambda xs: [*xs, {"artifact": "requirements", "required": False}],
                ),
            ),
            Mutation(
                f"{slug}: consumes brownfield-only",
                edit_list(
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
                edit_list(
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
                edit_list(
                    slug, "consumes", lambda xs: [*xs, {"artifact": "Bad_A", "required": True}]
                ),
            ),
        ]
        if consumed:
            found += [
                Mutation(
                    f"{slug}: consumes without the first",
                    edit_list(slug, "consumes", lambda xs: xs[1:]),
                ),
                Mutation(
                    f"{slug}: consumes required flipped",
                    edit_list(
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
                edit_list(slug, "sensors", lambda xs, s=sensor: [*[x for x in xs if x != s], s]),
            ),
            Mutation(
                f"{slug}: sensor unknown", edit_list(slug, "sensors", lambda xs: [*xs, "ghost"])
            ),
            Mutation(f"{slug}: no sensors", set_key(slug, "sensors", [])),
            Mutation(f"{slug}: sensors key dropped", drop_keys(slug, "sensors")),
        ]
    return found
