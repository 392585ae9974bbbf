"""What the pre-commit hooks run (``.pre-commit-hooks.yaml``): verify and sensors per unit."""
