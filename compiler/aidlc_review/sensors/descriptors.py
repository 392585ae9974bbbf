"""What the shipped tool descriptors say, for the runtime outside the sensors.

The sensor manifests (``sensors/aidlc-<id>.md``, ``runner.tools``) describe each tool
once: its argv, its config, its suppressions, and here the rules that name a defect other
tools see too (``defects``), where its rules are documented (``docs``) and which of them
are security rules (``security_rules``). The review asks these questions and never names
a tool itself.
"""

from __future__ import annotations

import functools
import re

from aidlc_review.harness.definitions.sensor import SensorManifest, ToolSpec
from aidlc_review.sensors.globs import expand_braces
from aidlc_review.sensors.manifests import load_sensor_manifests


@functools.cache
def shipped_manifests() -> tuple[SensorManifest, ...]:
    """The plugin's own sensor manifests, read once per process."""
    return tuple(load_sensor_manifests(None))


def shipped_tools() -> list[tuple[str, ToolSpec]]:
    """Every (sensor id, tool descriptor) the plugin ships."""
    return [(m.id, spec) for m in shipped_manifests() if m.runner for spec in m.runner.tools]


@functools.cache
def defect_table() -> dict[str, str]:
    """A finding's rule (as the finding holds it) -> its defect class, from every tool."""
    table: dict[str, str] = {}
    for _sensor, spec in shipped_tools():
        for code, defect in spec.defects.items():
            table[spec.finding_rule(code)] = defect
    return table


def tool_of(check: str | None, rule: str | None) -> ToolSpec | None:
    """The descriptor of the tool whose finding this is: within its sensor, the described
    tool its ``tool:`` prefix names, else the runner's own tool (no ``format``)."""
    specs = [spec for sensor, spec in shipped_tools() if sensor == check]
    prefix = (rule or "").split(":", 1)[0] if ":" in (rule or "") else None
    for spec in specs:
        if spec.format is not None and spec.tool == prefix:
            return spec
    own = [spec for spec in specs if spec.format is None]
    return own[0] if own else None


def tool_code(spec: ToolSpec, rule: str | None) -> str:
    """The tool's own code of a finding's rule (without the ``tool:`` prefix)."""
    return (rule or "").removeprefix(spec.tool + ":") if spec.format else (rule or "")


def is_security_rule(check: str | None, rule: str | None) -> bool:
    """Whether the tool that reported the rule calls it a security rule."""
    spec = tool_of(check, rule)
    if spec is None or not spec.security_rules:
        return False
    code = tool_code(spec, rule).rsplit("/", 1)[-1]
    return re.fullmatch(spec.security_rules, code) is not None


def docs_page(check: str | None, rule: str | None, message: str) -> tuple[str, str] | None:
    """(the tool's docs URL, the rule's own page when the message quotes one under it, else
    the docs URL); None when the tool has no docs."""
    spec = tool_of(check, rule)
    if spec is None or not spec.docs:
        return None
    quoted = re.search(r"\((" + re.escape(spec.docs) + r"[a-z0-9-]+)\)", message)
    return spec.docs, quoted.group(1) if quoted else spec.docs


def root_config_names() -> list[str]:
    """The literal file names the tools' ``config`` globs watch (``**/{ruff.toml,.ruff.toml}``
    gives both; a name with a wildcard is left out)."""
    names: set[str] = set()
    for _sensor, spec in shipped_tools():
        for config in spec.config:
            last = config.files.rsplit("/", 1)[-1]
            names.update(n for n in expand_braces(last) if not any(c in n for c in "*?["))
    return sorted(names)


def cache_names() -> list[str]:
    """What the tools leave in the workspace while checking (``caches``)."""
    return sorted({name for _sensor, spec in shipped_tools() for name in spec.caches})


def where_tests_are() -> tuple[str, ...]:
    """Where the project's tests are: the ``tests`` globs of every sensor with a test
    runner (``runs``), in the manifests' order, once each."""
    found: list[str] = []
    for manifest in shipped_manifests():
        runner = manifest.runner
        if runner is not None and any(spec.runs for spec in runner.tools):
            found += [str(glob) for glob in runner.options.get("tests", [])]
    return tuple(dict.fromkeys(found))


def all_test_runners() -> list[ToolSpec]:
    """Every tool a test command runs (``runs``), in the manifests' order."""
    return [spec for _sensor, spec in shipped_tools() if spec.runs]


def own_test_runners(tools: list[ToolSpec] | None = None) -> list[ToolSpec]:
    """The test runners the coverage runner's own tool measures (no ``format``: their report
    is read by the runner itself), of ``tools`` or of the shipped manifests."""
    specs = all_test_runners() if tools is None else [spec for spec in tools if spec.runs]
    return [spec for spec in specs if spec.format is None]


def testing_packages() -> list[str]:
    """The Python distributions a test command runs with: in each sensor with a test runner
    its own tool measures (no ``format``), those runners' ``package``, then its own tools'."""
    found: list[str] = []
    for manifest in shipped_manifests():
        tools = list(manifest.runner.tools) if manifest.runner else []
        runners = own_test_runners(tools)
        if runners:
            own = [spec for spec in tools if spec.format is None and spec not in runners]
            found += [spec.package for spec in [*runners, *own] if spec.package]
    return list(dict.fromkeys(found))


def runner_programs(spec: ToolSpec) -> tuple[str, ...]:
    """The programs a test command names the runner by (``runs`` of one word)."""
    return tuple(entry for entry in spec.runs if len(entry.split()) == 1)


def runner_module(spec: ToolSpec) -> str | None:
    """The module an interpreter runs the runner as (``python -m <module>`` in ``runs``)."""
    for entry in spec.runs:
        words = entry.split()
        if len(words) == 3 and words[0].startswith("python") and words[1] == "-m":
            return words[2]
    return None


def runner_config_names(spec: ToolSpec) -> list[tuple[str, str | None]]:
    """(file name at the workspace's top, the section in it or None) where the runner's
    configuration lives, from its ``config`` globs."""
    found: list[tuple[str, str | None]] = []
    for config in spec.config:
        for name in expand_braces(config.files.rsplit("/", 1)[-1]):
            for section in expand_braces(config.section) if config.section else [None]:
                if not any(c in name for c in "*?[") and (name, section) not in found:
                    found.append((name, section))
    return found
