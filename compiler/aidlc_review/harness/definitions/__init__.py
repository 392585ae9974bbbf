"""Definition models: stages, scopes, agents, sensor manifests.

Frozen pydantic models that reject unknown keys. This package imports nothing
else of ours (checked by tests/test_layering.py).
"""
