"""Findings: sensor and reviewer observations grouped into one finding per defect, matched
across passes, filtered to the change, and the verdict rule.
"""
