"""The units file: shapes accepted, batches by dependency level, every problem named."""

from __future__ import annotations

import subprocess

import pytest

from aidlc_review.bolt.units import load_units
from aidlc_review.errors import ValidationFailed


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_units_are_batched_by_dependency_level(tmp_path):
    path = write(
        tmp_path,
        "units.yaml",
        (
            "- name: api\n  depends_on: [auth, store]\n"
            "- name: store\n"
            "- name: auth\n"
            "- name: ui\n  depends_on: [api]\n"
        ),
    )
    plan = load_units(path)
    assert plan.batches == (("auth", "store"), ("api",), ("ui",))
    assert plan.unit("api").depends_on == ("auth", "store")


def test_a_mapping_with_units_and_json_are_accepted(tmp_path):
    path = write(
        tmp_path,
        "units.json",
        '{"units": [{"name": "a", "depends_on": []}, {"name": "b", "depends_on": ["a"]}]}',
    )
    assert load_units(path).batches == (("a",), ("b",))
    tabbed = write(tmp_path, "tabs.json", '[\n\t{"name": "a"}\n]\n')
    assert load_units(tabbed).batches == (("a",),)


def test_an_empty_file_means_no_units(tmp_path):
    assert load_units(write(tmp_path, "units.yaml", "[]\n")).batches == ()
    assert load_units(write(tmp_path, "none.yaml", "units: []\n")).units == ()


def test_unknown_names_and_duplicates_are_all_reported_with_lines(tmp_path):
    path = write(
        tmp_path,
        "units.yaml",
        (
            "- name: auth\n"
            "- name: api\n  depends_on: [auht, store]\n"
            "- name: auth\n"
            "- name: ui\n  needs: [api]\n"
        ),
    )
    with pytest.raises(ValidationFailed) as caught:
        load_units(path)
    assert str(caught.value).splitlines() == [
        f"{path}:3: $[1].depends_on[0]: unknown unit 'auht' (did you mean 'auth'?)",
        f"{path}:3: $[1].depends_on[1]: unknown unit 'store'",
        f"{path}:4: $[2].name: duplicate unit 'auth' (first at $[0])",
        f"{path}:6: $[3].needs: unknown key",
    ]


def test_a_cycle_is_refused_and_shown(tmp_path):
    path = write(
        tmp_path,
        "units.yaml",
        (
            "- name: a\n  depends_on: [c]\n"
            "- name: b\n  depends_on: [a]\n"
            "- name: c\n  depends_on: [b]\n"
            "- name: d\n"
        ),
    )
    with pytest.raises(ValidationFailed) as caught:
        load_units(path)
    assert str(caught.value) == f"{path}:1: $: dependency cycle: a --> c --> b --> a"


def test_bad_names_self_dependencies_and_shapes(tmp_path):
    path = write(
        tmp_path,
        "units.yaml",
        (
            "- name: ../x\n"
            "- name: a\n  depends_on: [a]\n"
            "- 42\n"
            "- name: b\n  depends_on: c\n"
            "- depends_on: [a]\n"
        ),
    )
    with pytest.raises(ValidationFailed) as caught:
        load_units(path)
    assert str(caught.value).splitlines() == [
        f"{path}:1: $[0].name: must be a name of letters, digits, '.', '_' or '-', got \"../x\"",
        f"{path}:3: $[1].depends_on[0]: a unit cannot depend on itself",
        f"{path}:4: $[2]: must be a mapping, got 42",
        f'{path}:6: $[3].depends_on: must be a list, got "c"',
        f"{path}:7: $[4].name: is required",
    ]


def test_not_yaml_and_not_a_list(tmp_path):
    broken = write(tmp_path, "broken.yaml", "- name: a\n  depends_on: [b\n")
    with pytest.raises(ValidationFailed) as caught:
        load_units(broken)
    assert str(caught.value).startswith(f"{broken}:3: invalid YAML/JSON: ")
    scalar = write(tmp_path, "scalar.yaml", "just text\n")
    with pytest.raises(ValidationFailed) as caught:
        load_units(scalar)
    assert str(caught.value) == (
        f"{scalar}:1: $: must be a list of units or a mapping with 'units', got \"just text\""
    )
    extra = write(tmp_path, "extra.yaml", "units: []\nunits_of_work: []\n")
    with pytest.raises(ValidationFailed) as caught:
        load_units(extra)
    assert str(caught.value) == f"{extra}:2: $.units_of_work: unknown key"


def test_names_git_cannot_use_in_a_branch_are_refused_before_the_run(tmp_path):
    path = write(tmp_path, "units.yaml", "- name: x..y\n- name: ok.v2\n- name: z.lock\n- end.\n")
    with pytest.raises(ValidationFailed) as caught:
        load_units(path)
    why = "cannot be part of a git branch name (no '..', no trailing '.' or '.lock')"
    assert str(caught.value).splitlines() == [
        f'{path}:1: $[0].name: {why}, got "x..y"',
        f'{path}:3: $[2].name: {why}, got "z.lock"',
        f'{path}:4: $[3].name: {why}, got "end."',
    ]


@pytest.mark.parametrize(
    "name", ["x..y", "z.lock", "end.", "a.b", "v1.2-rc_3", "x.lock.y", "lock", "a-", "B_", "a...b"]
)
def test_a_unit_name_is_accepted_exactly_when_git_accepts_its_branch(tmp_path, name):
    branch_ok = (
        subprocess.run(
            ["git", "check-ref-format", "--branch", f"bolt-12345678_{name}"],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )
    path = write(tmp_path, "units.yaml", f"- name: {name}\n")
    try:
        load_units(path)
        accepted = True
    except ValidationFailed:
        accepted = False
    assert accepted == branch_ok


def test_names_that_differ_only_in_case_are_duplicates(tmp_path):
    # branches and worktree folders of 'Auth' and 'auth' collide on case-insensitive disks
    path = write(tmp_path, "units.yaml", "- name: auth\n- name: Auth\n")
    with pytest.raises(ValidationFailed) as caught:
        load_units(path)
    assert str(caught.value).splitlines() == [
        f"{path}:2: $[1].name: duplicate unit 'Auth' "
        "(first at $[0], 'auth'; names differ only in case)",
    ]


def test_misspelt_keys_and_wrong_types_name_their_line_and_the_key_meant(tmp_path):
    path = write(
        tmp_path,
        "units.yaml",
        "units:\n  - name: a\n    depend_on: [b]\n  - name: b\n    depends_on: [a, 7]\n",
    )
    with pytest.raises(ValidationFailed) as caught:
        load_units(path)
    assert str(caught.value).splitlines() == [
        f"{path}:3: $.units[0].depend_on: unknown key (did you mean 'depends_on'?)",
        f"{path}:5: $.units[1].depends_on[1]: must be a string, got 7",
    ]
    top = write(tmp_path, "top.yaml", "unit:\n  - a\n")
    with pytest.raises(ValidationFailed) as caught:
        load_units(top)
    assert str(caught.value) == f"{top}:1: $.unit: unknown key (did you mean 'units'?)"


def test_a_unit_name_ending_in_a_newline_is_refused(tmp_path):
    """A regex's ``$`` also matches before a final newline: the name must match whole."""
    path = write(tmp_path, "units.yaml", '- name: "u1\\n"\n')
    with pytest.raises(ValidationFailed) as caught:
        load_units(path)
    assert "$[0].name: must be a name of letters, digits" in str(caught.value)
