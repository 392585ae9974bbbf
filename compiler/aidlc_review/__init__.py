"""aidlc-code-review: a source-bound code-review stage for AI-DLC harnesses.

Kept import-free on purpose: the CLI's fast paths (``compile --check`` on an
unchanged harness) must not pay for pydantic, ruamel.yaml or networkx.
"""

__version__ = "0.1.0"
