"""Build hook: the plugin's definitions go into the wheel as package data.

The top-level ``stages/ agents/ knowledge/ sensors/ scopes/`` folders (and their compiled
``tools/data/``) stay the single source in git. ``build_py`` copies them into the built
package as ``aidlc_review/_plugin/``, where ``aidlc_review.harness.layout.plugin_root`` finds them
with ``importlib.resources``. An editable install reads them from the checkout instead.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DEFINITIONS = ("stages", "agents", "knowledge", "sensors", "scopes", "tools/data")
HERE = Path(__file__).resolve().parent


class BuildWithDefinitions(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "aidlc_review" / "_plugin"
        for folder in DEFINITIONS:
            source = HERE / folder
            if not source.is_dir():
                raise SystemExit(f"{source}: the plugin's definitions are missing")
            shutil.copytree(source, target / folder, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithDefinitions})
