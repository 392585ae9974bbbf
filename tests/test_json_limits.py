"""Untrusted JSON is bounded: nesting deeper than 64 levels and keys named twice are refused.

A document nested thousands deep makes a recursive parser hit the interpreter's recursion
limit (exit 3); a key named twice lets two readers of one file see different documents.
Both are bad input, named by file and JSON path (exit 2), and nothing is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from aidlc_review.cli.main import main
from aidlc_review.errors import ValidationFailed
from aidlc_review.review.inputs.paths import RecordPaths
from aidlc_review.typed_load import parse_json
from tests.review.workspace import CLEAN, make_workspace, manifest_path, review_args

UNIT = "u1-orders"
TOO_DEEP = "nested deeper than 64 levels"  # the documented limit (typed_load.MAX_JSON_DEPTH)


class Loose(BaseModel):
    model_config = ConfigDict(extra="allow")


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_a_document_64_levels_deep_is_read_and_one_level_more_is_refused() -> None:
    at_limit = parse_json(Loose, f'{{"a": {nested(63)}}}'.encode(), "doc.json")
    assert at_limit.model_dump() == {"a": json.loads(nested(63))}
    with pytest.raises(ValidationFailed) as caught:
        parse_json(Loose, f'{{"a": {nested(64)}}}'.encode(), "doc.json")
    assert str(caught.value) == f"doc.json: $.a{'[0]' * 63}: {TOO_DEEP}"


def test_brackets_inside_strings_do_not_count_and_keys_name_the_path() -> None:
    text = '{"x": "' + "[" * 500 + '\\"{", "deep \\"key\\"": [1, 2, {"k": ' + nested(70) + "}]}"
    with pytest.raises(ValidationFailed) as caught:
        parse_json(Loose, text.encode(), "doc.json")
    assert str(caught.value) == (f'doc.json: $["deep \\"key\\""][2].k{"[0]" * 61}: {TOO_DEEP}')
    strings_only = '{"x": "' + "[" * 100_000 + '"}'
    assert parse_json(Loose, strings_only.encode(), "doc.json").model_dump() == {"x": "[" * 100_000}


def test_a_key_named_twice_is_refused_where_it_is() -> None:
    text = b'{"a": 1, "b": [{"path": "x", "path": "y"}], "a": 2}'
    with pytest.raises(ValidationFailed) as caught:
        parse_json(Loose, text, "doc.json")
    assert str(caught.value).splitlines() == [
        'doc.json: $: duplicate key "a"',
        'doc.json: $.b[0]: duplicate key "path"',
    ]


def test_a_source_manifest_50000_deep_is_exit_2_naming_its_path(tmp_path: Path, capsys) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/orders.py": CLEAN})
    manifest = manifest_path(ws)
    manifest.write_text(
        '{"stage": "code-generation", "version": 1, "writes": [' + nested(50_000) + "]}"
    )
    before = files_of(ws)
    assert main(review_args(ws)) == 2
    captured = capsys.readouterr()
    assert captured.err == f"{manifest}: $.writes{'[0]' * 63}: {TOO_DEEP}\n"
    assert "Traceback" not in captured.out + captured.err
    assert files_of(ws) == before


def test_a_reviewed_unit_whose_manifest_becomes_50000_deep_is_never_fresh(
    tmp_path: Path, capsys
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/orders.py": CLEAN})
    assert main(review_args(ws)) == 0
    manifest = manifest_path(ws)
    manifest.write_text(
        '{"stage": "code-generation", "version": 1, "writes": [' + nested(50_000) + "]}"
    )
    capsys.readouterr()
    assert main(["review", "verify", "--workspace", str(ws), "--unit", UNIT]) == 1
    shown = f"aidlc-docs/construction/{UNIT}/code-generation/source-manifest.json"
    assert capsys.readouterr().out == (
        f"stale: {shown}: claims cannot be checked: "
        f"{manifest}: $.writes{'[0]' * 63}: {TOO_DEEP}\n"
        f"stale: {shown}: source manifest changed since the receipt\n"
    )


def test_a_findings_document_100000_deep_is_exit_2_under_review_summary(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the summary's workspace (default .)
    found = tmp_path / "artifacts" / "findings-u1" / "code-review-findings.json"
    found.parent.mkdir(parents=True)
    found.write_text('{"version": 1, "passes": [' + nested(100_000) + "]}")
    markdown, sarif = tmp_path / "summary.md", tmp_path / "merged.sarif"
    argv = ["review", "summary", "--from", str(tmp_path / "artifacts")]
    assert main([*argv, "--markdown", str(markdown), "--sarif", str(sarif)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"{found}: $.passes{'[0]' * 63}: {TOO_DEEP}\n"
    assert captured.out == ""
    assert not markdown.exists() and not sarif.exists()


def test_a_reviewed_unit_whose_findings_become_50000_deep_is_refused_not_crashed(
    tmp_path: Path, capsys
) -> None:
    ws = make_workspace(tmp_path / "ws", {"src/orders.py": CLEAN})
    assert main(review_args(ws)) == 0
    findings = RecordPaths.resolve(ws, UNIT).findings
    findings.write_text('{"version": 1, "passes": [' + nested(50_000) + "]}")
    capsys.readouterr()
    code = main(["review", "verify", "--workspace", str(ws), "--unit", UNIT])
    captured = capsys.readouterr()
    assert code in (1, 2)
    assert "internal error" not in captured.err and "Traceback" not in captured.err
