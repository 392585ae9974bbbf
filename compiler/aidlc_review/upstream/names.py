"""What upstream's engine calls things: its tools, its record layout, its worktrees.

The one place those names are spelled, so a newer engine that renames one is one edit here
(``features.py`` reads what the engine present offers; ``intents.py`` reads its state;
``tools.py`` runs its tools; ``commands.py`` is the hook's command grammar). The rest of the
package takes the names from here (``tests/upstream/test_one_door.py`` greps for strays).

Measured on 2.5.5 and 2.6.18 (DESIGN.md §8):

- tools: ``<harness>/tools/aidlc-<noun>.ts`` run by bun, and the dispatcher ``aidlc.ts``;
- records: ``aidlc/spaces/<space>/intents/<intent>/`` (``STATE_FILE`` and ``audit/`` in it);
  a per-unit stage's records under ``construction/<unit>/<stage>/``, and, in a scope
  without units, 2.5's literal ``construction/{unit-name}/<stage>/`` (2.6: ``construction/
  <stage>/``);
- Bolt worktrees: ``.aidlc/worktrees/bolt-<unit>`` on branch ``bolt-<unit>``.

Read in upstream's newer files (docs/upstream-newer.md), not run: its code-generation stage
keeps a unit's records under ``construction/units/<unit>/<stage>/`` (a stage-level run's
still under ``construction/<stage>/``). ``records.py`` resolves a unit's folder in either
layout (this module imports nothing: compile --check's fast path reads it).
"""

from __future__ import annotations

RUNNER = "bun"
HARNESS_DIR = ".claude"  # where upstream's Claude Code export puts its harness
TOOLS_DIR = "tools"
GRAPH_TOOL = "aidlc-graph.ts"  # its presence marks a harness as an engine's
UTILITY_TOOL = "aidlc-utility.ts"
RUNNER_GEN_TOOL = "aidlc-runner-gen.ts"
LIB_TOOL = "aidlc-lib.ts"
SCHEMA_TOOL = "aidlc-stage-schema.ts"
VERSION_TOOL = "aidlc-version.ts"
DISPATCHER_TOOL = "aidlc.ts"
LOG_TOOL = "aidlc-log.ts"
ORCHESTRATE_TOOL = "aidlc-orchestrate.ts"
AUDIT_TOOL = "aidlc-audit.ts"
WORKTREE_TOOL = "aidlc-worktree.ts"
SWARM_TOOL = "aidlc-swarm.ts"
STATE_TOOL = "aidlc-state.ts"
VERSION_CONSTANT = "AIDLC_VERSION"  # what VERSION_TOOL exports
DISPATCHER_TOOLS = frozenset({DISPATCHER_TOOL, "aidlc"})
STATE_FILE = "aidlc-state.md"
RECORDS = "aidlc"  # the engine's record tree in the project
SPACES = f"{RECORDS}/spaces"
ACTIVE_SPACE = f"{RECORDS}/active-space"  # cursor: the active space's name
INTENTS = "intents"  # <space>/intents/<intent>/
ACTIVE_INTENT = "active-intent"  # cursor in <space>/intents/: the active intent's name
UNIT_PLACEHOLDER = "{unit-name}"  # UNIT_NAME_PLACEHOLDER in upstream's aidlc-orchestrate.ts
CONSTRUCTION = "construction"  # the phase folder of an intent record
UNITS = "units"  # construction/units/<unit>/ in the newest engines (features.units_record_dir)
# how the plugin's shipped texts spell a unit's records, and the same for the newest layout
UNIT_RECORDS_TEXT = f"{CONSTRUCTION}/<unit>/"
UNITS_RECORDS_TEXT = f"{CONSTRUCTION}/{UNITS}/<unit>/"
WORKTREES = ".aidlc/worktrees"
BOLT_PREFIX = "bolt-"


def bolt_branch(unit: str) -> str:
    """The branch (and worktree folder name) of upstream's Bolt for ``unit``."""
    return f"{BOLT_PREFIX}{unit}"


def tool_path(tool: str, harness_dir: str = HARNESS_DIR) -> str:
    """One of upstream's tools, relative to the project: ``.claude/tools/aidlc-log.ts``."""
    return f"{harness_dir}/{TOOLS_DIR}/{tool}"


def tool_argv(tool: str, *args: str, harness_dir: str = HARNESS_DIR) -> list[str]:
    """The argv that runs one of upstream's tools in the project: ``bun <tool path> args``."""
    return [RUNNER, tool_path(tool, harness_dir), *args]


def command_text(tool: str, *args: str, harness_dir: str = HARNESS_DIR) -> str:
    """What a human or a conductor types to run one of upstream's tools (messages only: the
    plugin itself runs ``tool_argv`` without a shell)."""
    return " ".join(tool_argv(tool, *args, harness_dir=harness_dir))
