"""A valid harness compiles; the numbers, order and node shape follow the reference format."""

from __future__ import annotations

import json

from aidlc_review.cli.main import main
from tests.compiler.harness_factory import write_harness


def test_valid_harness_compiles_into_tools_data(tmp_path, capsys):
    root = write_harness(tmp_path / "h")
    assert main(["compile", "--harness", str(root)]) == 0
    graph = json.loads((root / "tools/data/stage-graph.json").read_text())
    assert [(n["number"], n["slug"]) for n in graph] == [
        ("0.1", "setup"),
        ("2.1", "plan-units"),
        ("3.1", "build"),
        ("3.2", "check"),
    ]
    grid = json.loads((root / "tools/data/scope-grid.json").read_text())
    assert grid["poc"]["stages"] == {
        "setup": "EXECUTE",
        "plan-units": "EXECUTE",
        "build": "EXECUTE",
        "check": "SKIP",
    }
    assert "compiled 4 stages" in capsys.readouterr().err


def test_node_keys_follow_reference_order_and_omit_absent_keys(tmp_path):
    root = write_harness(tmp_path / "h")
    main(["compile", "--harness", str(root)])
    check = json.loads((root / "tools/data/stage-graph.json").read_text())[3]
    assert list(check) == [
        "slug",
        "number",
        "name",
        "phase",
        "execution",
        "condition",
        "lead_agent",
        "support_agents",
        "mode",
        "for_each",
        "produces",
        "consumes",
        "requires_stage",
        "sensors",
        "scopes",
        "repair_agent",
        "reviews",
        "max_passes",
        "inputs",
        "outputs",
        "rules_in_context",
        "sensors_applicable",
    ]
    assert check["max_passes"] == {"gated": 2, "autonomous": 3}
    assert check["rules_in_context"][-1] == {
        "path": "aidlc/spaces/default/memory/phases/construction.md",
        "scope": "phase",
    }


def test_sensors_applicable_paths_sit_under_the_display_root(tmp_path):
    root = write_harness(tmp_path / "h")
    main(["compile", "--harness", str(root), "--display-root", ".kiro"])
    build = json.loads((root / "tools/data/stage-graph.json").read_text())[2]
    assert build["sensors_applicable"] == [
        {"id": "lint", "path": ".kiro/sensors/aidlc-lint.md", "matches": "**/*.py"}
    ]


def test_output_is_two_space_json_with_trailing_newline(tmp_path):
    root = write_harness(tmp_path / "h")
    main(["compile", "--harness", str(root)])
    text = (root / "tools/data/scope-grid.json").read_text()
    assert text.startswith('{\n  "feature": {\n    "stages": {\n')
    assert text.endswith("}\n") and not text.endswith("\n\n")


def test_crlf_and_bom_files_compile_like_plain_ones(tmp_path):
    plain = write_harness(tmp_path / "plain")
    odd = write_harness(tmp_path / "odd")
    path = odd / "stages/construction/build.md"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    main(["compile", "--harness", str(plain)])
    main(["compile", "--harness", str(odd)])
    for name in ("stage-graph.json", "scope-grid.json"):
        assert (plain / "tools/data" / name).read_bytes() == (
            odd / "tools/data" / name
        ).read_bytes()


def test_numbers_are_lexicographic_topological_within_a_phase(tmp_path):
    root = write_harness(tmp_path / "h")
    extra = (root / "stages/construction/build.md").read_text()
    # 'aaa-docs' has no in-phase dependency, so it sorts first; 'zz-after' must follow check.
    (root / "stages/construction/aaa-docs.md").write_text(
        extra.replace("slug: build", "slug: aaa-docs").replace("  - code-summary\n", "  - docs\n")
    )
    (root / "stages/construction/zz-after.md").write_text(
        extra.replace("slug: build", "slug: zz-after")
        .replace("  - code-summary\n", "  - after\n")
        .replace("  - plan-units\n", "  - check\n")
    )
    assert main(["compile", "--harness", str(root)]) == 0
    graph = json.loads((root / "tools/data/stage-graph.json").read_text())
    assert [n["slug"] for n in graph if n["phase"] == "construction"] == [
        "aaa-docs",
        "build",
        "check",
        "zz-after",
    ]
    assert [n["number"] for n in graph if n["phase"] == "construction"] == [
        "3.1",
        "3.2",
        "3.3",
        "3.4",
    ]


def test_a_synthetic_harness_of_300_stages_compiles_and_checks(tmp_path):
    from tests.compiler.synthetic import write_synthetic

    root = write_synthetic(tmp_path / "big", count=300)
    assert main(["compile", "--harness", str(root)]) == 0
    graph = json.loads((root / "tools/data/stage-graph.json").read_text())
    assert len(graph) == 300
    position = {node["slug"]: i for i, node in enumerate(graph)}
    for node in graph:  # every stage comes after the stages it requires
        assert all(position[r] < position[node["slug"]] for r in node["requires_stage"])
    assert main(["compile", "--harness", str(root), "--check"]) == 0
