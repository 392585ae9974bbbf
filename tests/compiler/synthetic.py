"""A synthetic harness of N stages: wide, deep and deterministic (for tests and bench/)."""

from __future__ import annotations

import random
from pathlib import Path

PHASES = ("initialization", "ideation", "inception", "construction", "operation")
SCOPES = ("enterprise", "feature", "mvp", "poc", "bugfix")
AGENTS = ("aidlc-alpha-agent", "aidlc-beta-agent", "aidlc-gamma-agent")


def write_synthetic(root: Path, count: int = 300, seed: int = 7) -> Path:
    rng = random.Random(seed)
    for agent in AGENTS:
        _write(
            root / "agents" / f"{agent}.md", f"---\nname: {agent}\ndescription: synthetic\n---\n"
        )
    for scope in SCOPES:
        _write(
            root / "scopes" / f"aidlc-{scope}.md",
            f"---\nname: {scope}\ndepth: Standard\ndescription: synthetic\n---\n",
        )
    _write(
        root / "sensors" / "aidlc-shape.md",
        "---\nid: shape\nkind: deterministic\ncommand: aidlc-review sensors fire shape\n"
        "default_severity: advisory\ndescription: synthetic\ncategory: document-shape\n"
        'matches: "**/*.md"\ntimeout_seconds: 5\n---\n',
    )
    slugs: list[tuple[str, str]] = []
    for index in range(count):
        phase = PHASES[min(index * len(PHASES) // count, len(PHASES) - 1)]
        slug = f"stage-{index:03d}"
        earlier = [s for s, _ in slugs]
        requires = sorted(rng.sample(earlier, k=min(len(earlier), rng.randint(0, 3))))
        consumes = [f"artifact-{s}" for s in requires]
        _write(root / "stages" / phase / f"{slug}.md", _stage(slug, phase, requires, consumes, rng))
        slugs.append((slug, phase))
    return root


def _stage(
    slug: str, phase: str, requires: list[str], consumes: list[str], rng: random.Random
) -> str:
    lines = [
        "---",
        f"slug: {slug}",
        f"phase: {phase}",
        "execution: ALWAYS",
        "condition: synthetic",
        f"lead_agent: {rng.choice(AGENTS)}",
        "support_agents: []",
        "mode: inline",
        "produces:",
        f"  - artifact-{slug}",
        "consumes:" if consumes else "consumes: []",
    ]
    for artifact in consumes:
        lines += [f"  - artifact: {artifact}", f"    required: {str(rng.random() < 0.5).lower()}"]
    lines += [
        "requires_stage:" if requires else "requires_stage: []",
        *[f"  - {r}" for r in requires],
    ]
    scopes = [f"  - {s}" for s in SCOPES if rng.random() < 0.6]
    lines += ["sensors:", "  - shape", "scopes:" if scopes else "scopes: []", *scopes]
    lines += ["inputs: synthetic", "outputs: synthetic", "---", "", f"# {slug}", ""]
    return "\n".join(lines)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
