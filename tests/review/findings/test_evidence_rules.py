"""Spec of ``review.findings.evidence``: a reviewer's finding blocks only when the code it
quotes stands near the lines it cites; otherwise it is kept as *unverified*, derived from
the bytes every time."""

from __future__ import annotations

from pathlib import Path

from aidlc_review.review.findings.evidence import backed, checked_evidence, reading
from aidlc_review.review.record.models import Finding

CODE = (
    "def mean(values: list[float]) -> float:\n"
    "    count = len(values)\n"
    "    return sum(values) / count\n"
)


def reviewer(evidence: str, location: str | None = "3", status: str = "open", **more) -> Finding:
    return Finding(
        id="CR-001", severity="major", category="error-handling", path="src/calc.py",
        location=location, finding="mean() divides by zero", evidence=evidence,
        recommendation="guard it", status=status, source="reviewer", fingerprint="f",
        first_seen=1, attempt=1, **more,
    )  # fmt: skip


def test_a_quote_inside_prose_is_found_near_the_cited_line():
    assert backed(reviewer("count = len(values) is 0 for []"), CODE)
    assert backed(reviewer("Lines 2 and 3: `count = len(values)`; `sum(values) / count`"), CODE)


def test_a_backtick_quote_must_stand_whole_and_whitespace_does_not_matter():
    assert backed(reviewer("`return   sum(values)/count`".replace("/", " / ")), CODE)
    assert not backed(reviewer("`return sum(values) / total_count`"), CODE)


def test_evidence_the_code_does_not_hold_is_not_backed():
    assert not backed(reviewer("subprocess.run(cmd, shell=True) with user input"), CODE)
    assert not backed(reviewer("see the function"), CODE)
    assert not backed(reviewer("count = len(values)"), None), "a file that is not there"


def test_the_quote_must_stand_near_the_cited_lines():
    far = CODE + "\n" * 20 + "def other():\n    return 1\n"
    assert not backed(reviewer("`count = len(values)`", location="25"), far)
    assert backed(reviewer("`count = len(values)`", location=None), far), "no line: the file"


def test_the_status_is_derived_from_the_bytes_both_ways(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src/calc.py").write_text(CODE)
    invented = reviewer("eval(user_input) on line 3")
    real_but_marked = reviewer("`count = len(values)`", status="unverified")
    resolved = reviewer("nothing", status="resolved")

    found = checked_evidence([invented, real_but_marked, resolved], reading(tmp_path))

    assert [f.status for f in found] == ["unverified", "open", "resolved"]
    assert not found[0].blocking and found[1].blocking


def test_a_path_outside_the_workspace_reads_as_nothing(tmp_path: Path):
    read = reading(tmp_path / "ws")
    assert read("../../etc/passwd") is None and read("") is None
