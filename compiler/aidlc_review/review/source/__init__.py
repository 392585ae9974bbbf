"""The frozen source: what the unit claims, hashed, against its git base and the stage-entry
baseline; diffs and the kept copies of each pass.
"""
