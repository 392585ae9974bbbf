"""Reading the workspace's settings reads the descriptors' severity table only when the
settings override a rule: a workspace without ``[tool.aidlc-review.severity]`` rules never
pays for parsing the sensor manifests, and floors still hold when it has them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aidlc_review.errors import ValidationFailed
from aidlc_review.review.inputs.workspace_settings import read_settings

READ = (
    "import sys\n"
    "from pathlib import Path\n"
    "from aidlc_review.review.inputs.workspace_settings import read_settings\n"
    "read_settings(Path(sys.argv[1]))\n"
    "print('aidlc_review.sensors.descriptors' in sys.modules, 'ruamel.yaml' in sys.modules)\n"
)


def _manifests_read(workspace: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", READ, str(workspace)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_settings_without_rule_overrides_parse_no_sensor_manifest(tmp_path: Path) -> None:
    settings = '[tool.aidlc-review]\ntest-command = "pytest -q"\n'
    settings += '[tool.aidlc-review.severity]\ntest-files = ["checks/test_*.py"]\n'
    (tmp_path / "pyproject.toml").write_text(settings)
    assert _manifests_read(tmp_path) == "False False\n"


def test_settings_with_a_rule_override_read_the_table_and_keep_its_floors(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.aidlc-review.severity]\nrules = { S101 = "major" }\n'
    )
    assert _manifests_read(tmp_path) == "True True\n"
    (tmp_path / "pyproject.toml").write_text(
        '[tool.aidlc-review.severity]\nrules = { S608 = "minor" }\n'
    )
    with pytest.raises(ValidationFailed, match="'minor' is below the floor: injection"):
        read_settings(tmp_path)
