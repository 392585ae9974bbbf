"""The engine gate's seam: one Claude Code PreToolUse hook in upstream's ``settings.json``.

Upstream registers its own hooks there (``bun "$CLAUDE_PROJECT_DIR/.claude/hooks/
aidlc-*.ts"``), and its doctor checks that every ``aidlc-*.ts`` the file names exists in
``hooks/``. Install adds one entry the same way, first in the ``PreToolUse`` list,
matching ``Bash``, and a ``.ts`` shim in ``hooks/`` that forwards the hook's stdin to
``aidlc-review hook engine-gate`` (argv, no shell). The entry goes in as whole lines
right after the list's opening line and is recorded in the ledger, so uninstall takes
out exactly those bytes. A harness without ``settings.json`` is not Claude Code's: it
gets no hook.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final

from aidlc_review.errors import InvalidInput
from aidlc_review.install.ledger import Insertion, Ledger

SETTINGS = "settings.json"
SHIM = "hooks/aidlc-review-engine-gate.ts"
KIND: Final = "json-lines"
KEY = "hooks.PreToolUse"
TIMEOUT_SECONDS = 300  # a cold verification re-runs the unit's checks
_LIST = re.compile(r'^([ \t]*)"PreToolUse"[ \t]*:[ \t]*\[[ \t]*\n([ \t]*)\{', re.M)


def hook_entry(harness_dir: str) -> dict[str, Any]:
    command = f'bun "$CLAUDE_PROJECT_DIR/{harness_dir}/{SHIM}"'
    hook = {"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}
    return {"matcher": "Bash", "hooks": [hook]}


def contributed(core: dict[str, str], harness_dir: str) -> tuple[dict[str, str], list[Insertion]]:
    """``settings.json`` with the hook added and the shim, plus the ledger's insertion."""
    if SETTINGS not in core:
        return {}, []
    text, block = add_hook(core[SETTINGS], harness_dir)
    insertion = Insertion(path=SETTINGS, kind=KIND, key=KEY, text=block)
    return {SETTINGS: text, SHIM: shim_text(harness_dir)}, [insertion]


def add_hook(settings: str, harness_dir: str) -> tuple[str, str]:
    """``settings`` with the entry as the first PreToolUse hook, and the lines added."""
    found = _LIST.search(settings)
    if found is None:
        raise InvalidInput(
            f'{SETTINGS}: no non-empty "PreToolUse" hook list (one entry per line, as '
            "upstream ships it) to add the code-review engine gate to"
        )
    indent = found.group(2)
    dumped = json.dumps(hook_entry(harness_dir), indent=2, ensure_ascii=False)
    block = "".join(f"{indent}{line}\n" for line in dumped.splitlines())
    block = block[:-1] + ",\n"
    at = found.start(2)
    after = settings[:at] + block + settings[at:]
    _check_added(settings, after, harness_dir)
    return after, block


def _check_added(before: str, after: str, harness_dir: str) -> None:
    try:
        old, new = json.loads(before), json.loads(after)
    except ValueError as exc:
        raise InvalidInput(f"{SETTINGS}: not valid JSON: {exc}") from None
    expected = old
    hooks = expected.get("hooks") if isinstance(expected, dict) else None
    if not isinstance(hooks, dict) or not isinstance(hooks.get("PreToolUse"), list):
        raise InvalidInput(f'{SETTINGS}: "PreToolUse" is not the list under "hooks"')
    hooks["PreToolUse"] = [hook_entry(harness_dir), *hooks["PreToolUse"]]
    if new != expected:
        raise InvalidInput(f"{SETTINGS}: adding the engine gate would change more than it")


def pristine(harness: Path, ledger: Ledger | None, strict: bool) -> dict[str, str]:
    """``settings.json`` as it was before the plugin (its entry taken out), if there is one."""
    path = harness / SETTINGS
    if not path.is_file():
        return {}
    text = path.read_bytes().decode("utf-8")
    for ins in ledger.inserted if ledger else []:
        if ins.path != SETTINGS or ins.kind != KIND:
            continue
        if ins.text in text:
            text = text.replace(ins.text, "", 1)
        elif strict:
            raise InvalidInput(
                f"{path}: the engine gate hook the plugin added is no longer there as it was "
                "written; put it back or remove the rest of the plugin by hand"
            )
    return {SETTINGS: text}


def shim_text(harness_dir: str) -> str:
    return _SHIM.replace("@HARNESS_DIR@", json.dumps(harness_dir))


_SHIM = r"""// PreToolUse hook of the aidlc-review plugin (added by `aidlc-review install`,
// removed by `aidlc-review uninstall`; do not edit).
//
// Claude Code runs it before every Bash command with the hook's JSON on stdin. It
// forwards that JSON to `aidlc-review hook engine-gate` (argv, no shell), which exits 2
// with the reason on stderr to refuse: a command that would record code-review's
// reviewer receipts (only aidlc-review records them), or approve code-review while a
// unit's review does not verify READY and fresh. When aidlc-review cannot run, commands
// of upstream's engine that could do either are refused too, and everything else runs.
import { spawnSync } from "node:child_process";

const HARNESS_DIR = @HARNESS_DIR@;
const TOOL = /aidlc-(?:log|orchestrate|audit)\.ts/;
const DISPATCHED = /\baidlc(?:\.ts)?["']?\s+(?:log|orchestrate|audit|report)\b/;

const input = await Bun.stdin.text();
const project = process.env.CLAUDE_PROJECT_DIR || process.cwd();
const run = spawnSync(
  process.env.AIDLC_REVIEW_BIN || "aidlc-review",
  ["hook", "engine-gate", "--workspace", project],
  { cwd: project, input, encoding: "utf-8" },
);
if (!run.error && (run.status === 0 || run.status === 2)) {
  process.stdout.write(run.stdout ?? "");
  process.stderr.write(run.stderr ?? "");
  process.exit(run.status);
}
let command = "";
try {
  command = String(JSON.parse(input)?.tool_input?.command ?? "");
} catch {
  command = "";
}
if (TOOL.test(command) || DISPATCHED.test(command)) {
  const why = run.error ? run.error.message : `exit ${run.status}: ${(run.stderr ?? "").trim()}`;
  process.stderr.write(
    `aidlc-review (the code-review plugin's engine gate) could not check this command (${why}). ` +
      "Put aidlc-review on PATH (or set AIDLC_REVIEW_BIN) and retry, or remove the plugin " +
      `with \`aidlc-review uninstall --harness ${HARNESS_DIR}\`.\n`,
  );
  process.exit(2);
}
process.exit(0);
"""
