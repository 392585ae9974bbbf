"""What an engine offers is read from its own tools: the verb that starts an intent and
whether its graph compiles gate deferral (no table of versions)."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.upstream.features import EngineFeatures


def _engine(root: Path, utility: str, graph: str = "") -> Path:
    tools = root / ".claude" / "tools"
    tools.mkdir(parents=True)
    (tools / "aidlc-utility.ts").write_text(utility)
    (tools / "aidlc-graph.ts").write_text(graph)
    return root / ".claude"


def test_an_engine_that_dispatches_intent_create_is_asked_with_it(tmp_path):
    harness = _engine(tmp_path, 'switch (sub) {\n    case "intent-create":\n')

    features = EngineFeatures.read(harness)

    assert features.birth_args("bugfix", "fix it", "a b") == [
        "intent-create", "--scope", "bugfix", "--arguments", "fix it", "--label", "a b",
    ]  # fmt: skip
    assert not features.gate_deferral


def test_an_engine_that_dispatches_intent_birth_is_asked_with_that(tmp_path):
    harness = _engine(
        tmp_path, '    case "intent-birth":\n', 'const FIELD_ORDER = [\n  "completion_gate",\n'
    )

    features = EngineFeatures.read(harness)

    assert features.birth == "intent-birth"
    assert features.gate_deferral


def test_an_engine_naming_neither_gets_the_newest_verb(tmp_path):
    assert EngineFeatures.read(_engine(tmp_path, "")).birth == "intent-create"
