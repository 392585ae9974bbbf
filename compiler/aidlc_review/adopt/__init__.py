"""Adopting the review on a plain Python project: ``init`` writes what a first run needs."""
