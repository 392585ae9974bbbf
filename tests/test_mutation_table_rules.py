"""Spec of bench/mutation/run_mutation.py's bookkeeping (no mutmut run here): the plan in
pyproject.toml names real files, scores count equivalents, the table keeps its prose."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "mutation" / "run_mutation.py"


def _load():
    spec = importlib.util.spec_from_file_location("run_mutation", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_mutation"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


run = _load()
GROUPING = "aidlc_review.review.findings.grouping"


def test_the_plan_names_existing_modules_each_with_existing_spec_tests() -> None:
    plan = run.read_plan(ROOT / "pyproject.toml")
    assert "compiler/aidlc_review/review/findings/grouping.py" in plan.specs
    for module, tests in plan.specs.items():
        assert (ROOT / module).is_file() and tests, module
        assert all(Path(t).name.startswith("test_") for t in tests)
    assert "spec_tests" not in plan.config and "not_pure" not in plan.config


def test_a_plan_naming_a_missing_file_is_refused_naming_the_file_and_key(tmp_path: Path) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[tool.mutmut.spec_tests]\n"compiler/aidlc_review/gone.py" = ["tests/test_x.py"]\n'
    )
    with pytest.raises(SystemExit) as raised:
        run.read_plan(pyproject)
    assert str(raised.value) == (
        f"{pyproject}: [tool.mutmut] spec_tests: no file compiler/aidlc_review/gone.py"
    )


def test_a_mutant_is_named_by_its_function_without_the_module_path() -> None:
    assert run._short(f"{GROUPING}.x__one__mutmut_18") == "x__one__mutmut_18"
    assert run.function_of(f"{GROUPING}.x__one__mutmut_18") == "_one"
    assert run.function_of("m.x_filter_mode__mutmut_4") == "filter_mode"
    assert (
        run.function_of("aidlc_review.review.findings.change_filter.xǁChangeǁowns__mutmut_3")
        == "owns"
    )


def test_the_score_counts_kills_and_listed_equivalents_and_nothing_else() -> None:
    statuses = {
        f"{GROUPING}.x_a__mutmut_1": "killed",
        f"{GROUPING}.x_a__mutmut_2": "timeout",
        f"{GROUPING}.x_a__mutmut_3": "survived",
        f"{GROUPING}.x_a__mutmut_4": "no tests",
    }
    score = run.Score("grouping.py", statuses, frozenset({"x_a__mutmut_3"}), 1.0, {})
    assert (score.killed, score.score) == (2, 75.0)
    assert score.unexplained == [f"{GROUPING}.x_a__mutmut_4"]
    assert run.Score("m", {}, frozenset(), 0.0, {}).score == 0.0


def test_the_table_has_one_row_per_module_and_replaces_only_itself(tmp_path: Path) -> None:
    statuses = {"m.x_a__mutmut_1": "killed", "m.x_a__mutmut_2": "survived"}
    score = run.Score("compiler/m.py", statuses, frozenset(), 3.0, {"io": 5})
    table = run.render([score])
    assert "| `compiler/m.py` | 2 | 1 | 1 | 0 | 50.0% |" in table.splitlines()
    assert "Left out of `m.py` (I/O edges, `not_pure`): `io` 5." in table
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{run.MARKER_START}\nold\n{run.MARKER_END}\noutro\n")
    run.write_table(readme, table)
    assert readme.read_text() == f"intro\n{run.MARKER_START}\n{table}\n{run.MARKER_END}\noutro\n"
