"""``run.engine.renderer_loading``: while a pass's sensors run, the report's renderer loads
on a thread, once the sensors say their first line; the lines pass through unchanged, and
a renderer that cannot load leaves the real render to say why."""

from __future__ import annotations

import pytest

from aidlc_review.review.report import markdown, render
from aidlc_review.review.run.engine import renderer_loading


@pytest.fixture(autouse=True)
def _not_loaded() -> None:
    render.environment.cache_clear()  # as a new process starts


def test_the_renderer_loads_only_once_the_sensors_said_their_first_line() -> None:
    lines: list[str] = []
    with renderer_loading(lines.append) as said:
        assert render.environment.cache_info().currsize == 0  # nothing yet: tools starting
        said("type-check: 6 claimed file(s) match")
        said("type-check: passed")
    assert lines == ["type-check: 6 claimed file(s) match", "type-check: passed"]
    assert render.environment.cache_info().currsize == 1
    assert markdown.REPORT_TEMPLATE in render.environment().list_templates()


def test_sensors_that_say_nothing_still_end_with_the_renderer_loaded() -> None:
    with renderer_loading(lambda _: None):
        pass
    assert render.environment.cache_info().currsize == 1


def test_a_renderer_that_cannot_load_is_left_to_the_render_that_matters(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(markdown, "REPORT_TEMPLATE", "no-such-template.md.j2")
    with renderer_loading(lambda _: None) as said:
        said("formatter: passed")
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "Exception" not in captured.err
