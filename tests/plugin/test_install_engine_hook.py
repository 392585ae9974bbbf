"""The engine gate's seam, installed: one PreToolUse entry in ``settings.json`` (whole lines,
recorded in the ledger) and its ``.ts`` shim, both gone again after uninstall. Upstream's own
engine judges the same install in tests/upstream/test_gated_enforcement.py."""

from __future__ import annotations

import json

from aidlc_review.cli.main import main
from aidlc_review.harness.layout import PROJECT_ROOT
from tests.plugin.test_install import changed_lines
from tests.plugin.trees import copy_upstream, snapshot

SETTINGS = PROJECT_ROOT.parent / "shared/aidlc-upstream/.claude/settings.json"
SHIM = "hooks/aidlc-review-engine-gate.ts"
ENTRY = {
    "matcher": "Bash",
    "hooks": [
        {
            "type": "command",
            "command": 'bun "$CLAUDE_PROJECT_DIR/.claude/hooks/aidlc-review-engine-gate.ts"',
            "timeout": 300,
        }
    ],
}


def claude_harness(tmp_path):
    root = copy_upstream(tmp_path)
    (root / "settings.json").write_bytes(SETTINGS.read_bytes())
    return root


def install(root) -> int:
    return main(["install", "--harness", str(root)])


def test_the_gate_is_the_first_pre_tool_use_hook_and_nothing_else_changes(tmp_path):
    root = claude_harness(tmp_path)
    before = json.loads(SETTINGS.read_text())

    assert install(root) == 0

    after = json.loads((root / "settings.json").read_text())
    assert after["hooks"]["PreToolUse"] == [ENTRY, *before["hooks"]["PreToolUse"]]
    after["hooks"]["PreToolUse"].pop(0)
    assert after == before
    lines = changed_lines(SETTINGS.read_bytes(), (root / "settings.json").read_bytes())
    assert lines[0] == "      {" and lines[-1] == "      },"  # whole lines, one block
    shim = (root / SHIM).read_text()
    assert '["hook", "engine-gate", "--workspace", project]' in shim
    ledger = json.loads((root / "tools/data/plugin-aidlc-review.json").read_text())
    assert SHIM in {a["path"] for a in ledger["added"]}
    [inserted] = [i for i in ledger["inserted"] if i["path"] == "settings.json"]
    assert (inserted["kind"], inserted["key"]) == ("json-lines", "hooks.PreToolUse")


def test_uninstall_takes_out_exactly_those_bytes_and_reinstall_changes_nothing(tmp_path):
    root = claude_harness(tmp_path)
    pristine = snapshot(root)
    assert install(root) == 0
    installed = snapshot(root)

    assert install(root) == 0
    assert snapshot(root) == installed

    assert main(["uninstall", "--harness", str(root)]) == 0
    assert snapshot(root) == pristine


def test_an_edited_entry_stops_uninstall_with_its_name(tmp_path, capsys):
    root = claude_harness(tmp_path)
    assert install(root) == 0
    settings = root / "settings.json"
    settings.write_text(settings.read_text().replace('"timeout": 300', '"timeout": 30'))
    before = snapshot(root)
    capsys.readouterr()

    assert main(["uninstall", "--harness", str(root)]) == 2

    assert capsys.readouterr().err == (
        f"{settings}: the engine gate hook the plugin added is no longer there as it was "
        "written; put it back or remove the rest of the plugin by hand\n"
    )
    assert snapshot(root) == before


def test_settings_without_a_pre_tool_use_list_are_refused_untouched(tmp_path, capsys):
    root = claude_harness(tmp_path)
    (root / "settings.json").write_text('{\n  "hooks": {}\n}\n')
    before = snapshot(root)

    assert install(root) == 2

    assert capsys.readouterr().err == (
        'settings.json: no non-empty "PreToolUse" hook list (one entry per line, as upstream '
        "ships it) to add the code-review engine gate to\n"
    )
    assert snapshot(root) == before


def test_a_harness_without_settings_gets_no_hook(tmp_path):
    root = copy_upstream(tmp_path)

    assert install(root) == 0

    assert not (root / SHIM).exists() and not (root / "settings.json").exists()
