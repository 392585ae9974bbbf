"""What upstream's engine calls things: its tools, its record layout, its worktrees.

The one place those names are spelled, so a newer engine that renames one is one edit here
(``features.py`` reads what the engine present offers; ``intents.py`` reads its state;
``tools.py`` runs its generators). The hook's command grammar (``hooks.engine_commands``)
and ``bolt land`` take the names from here.

Measured on 2.5.5 and 2.6.18 (DESIGN.md §8):

- tools: ``<harness>/tools/aidlc-<noun>.ts`` run by bun, and the dispatcher ``aidlc.ts``;
- records: ``aidlc/spaces/<space>/intents/<intent>/`` (``STATE_FILE`` and ``audit/`` in it);
  a per-unit stage's records under ``construction/<unit>/<stage>/``, and, in a scope
  without units, 2.5's literal ``construction/{unit-name}/<stage>/`` (2.6: ``construction/
  <stage>/``);
- Bolt worktrees: ``.aidlc/worktrees/bolt-<unit>`` on branch ``bolt-<unit>``.
"""

from __future__ import annotations

RUNNER = "bun"
LOG_TOOL = "aidlc-log.ts"
ORCHESTRATE_TOOL = "aidlc-orchestrate.ts"
AUDIT_TOOL = "aidlc-audit.ts"
WORKTREE_TOOL = "aidlc-worktree.ts"
SWARM_TOOL = "aidlc-swarm.ts"
STATE_TOOL = "aidlc-state.ts"
DISPATCHER_TOOLS = frozenset({"aidlc.ts", "aidlc"})
STATE_FILE = "aidlc-state.md"
SPACES = "aidlc/spaces"
UNIT_PLACEHOLDER = "{unit-name}"  # UNIT_NAME_PLACEHOLDER in upstream's aidlc-orchestrate.ts
WORKTREES = ".aidlc/worktrees"


def bolt_branch(unit: str) -> str:
    """The branch (and worktree folder name) of upstream's Bolt for ``unit``."""
    return f"bolt-{unit}"
