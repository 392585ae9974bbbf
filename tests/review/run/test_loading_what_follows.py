"""``run.engine.loading_what_follows``: while a pass's tools run, what follows them loads on
a thread (the runners of the project's tests, the report's renderer), once the first tool
has started and not before; with no tool at all, as the sensors end. A renderer that
cannot load leaves the real render to say why."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from aidlc_review.review.report import markdown, render
from aidlc_review.review.run.engine import loading_what_follows
from aidlc_review.sensors import api, tools
from tests.sensors.support import project_manifest


@pytest.fixture(autouse=True)
def _not_loaded() -> None:
    render.environment.cache_clear()  # as a new process starts


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The runners ``load_runners`` was asked for, by manifest id."""
    asked: list[list[str]] = []
    monkeypatch.setattr(api, "load_runners", lambda ms: asked.append([m.id for m in ms]))
    return asked


def test_what_follows_loads_only_once_the_first_tool_has_started(
    tmp_path: Path, loaded: list[list[str]]
) -> None:
    sensors = [project_manifest(n) for n in ("type-check", "coverage")]
    with loading_what_follows(sensors):
        assert render.environment.cache_info().currsize == 0  # nothing yet: tools starting
        assert loaded == []
        tools.run_tool([sys.executable, "-c", ""], tmp_path, 30)
    assert loaded == [["type-check", "coverage"]]
    assert render.environment.cache_info().currsize == 1
    assert markdown.REPORT_TEMPLATE in render.environment().list_templates()


def test_sensors_that_start_no_tool_still_end_with_everything_loaded(
    loaded: list[list[str]],
) -> None:
    with loading_what_follows([project_manifest("coverage")]):
        pass
    assert loaded == [["coverage"]]
    assert render.environment.cache_info().currsize == 1


def test_a_renderer_that_cannot_load_is_left_to_the_render_that_matters(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(markdown, "REPORT_TEMPLATE", "no-such-template.md.j2")
    with loading_what_follows([]):
        pass
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "Exception" not in captured.err


def test_the_runners_are_imported_and_one_that_cannot_load_is_left_to_its_sensor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from aidlc_review.sensors import registry

    monkeypatch.setitem(registry.RUNNERS, "coverage", "aidlc_review.no_such_module:run")
    monkeypatch.delitem(sys.modules, "aidlc_review.sensors.lint", raising=False)
    api.load_runners([project_manifest("linter"), project_manifest("coverage")])
    assert "aidlc_review.sensors.lint" in sys.modules
