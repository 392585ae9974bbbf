"""The review loop: one pass, the run to the gate, host-driven passes, the gate itself, and the
unit's lock.
"""
