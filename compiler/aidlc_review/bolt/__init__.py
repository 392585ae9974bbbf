"""The autonomous Bolt pipeline: per-unit worktrees, review before merge, one aggregate gate.

Rules this package keeps (each module says why in its own docstring):

- State lives in the target repository's ``.git/aidlc-bolt/<id8>/`` (``state.json``,
  worktrees, developer briefs); it is never part of a diff and never committed.
- Units of one dependency batch run in parallel, each in ``bolt-<id8>_<unit>`` off the batch
  base; squash merges follow in batch order, one commit per finalized candidate, found again
  by its ``Bolt-Run``/``Bolt-Unit``/``Bolt-Candidate`` trailers so a resumed run never merges
  twice. A merge writes exactly the reviewed bytes, and only while the target still has the
  unit's parent version of every path it changed; otherwise the unit is a *conflict* until
  the gate reopens it, which regenerates it on the target's head.
- Only READY units merge without a person. NOT-READY units are *held* (finalized, not
  merged) until ``bolt gate --approve``; units depending on them wait (*blocked*) and run on
  the next ``bolt run --resume``.
- The unit's own record (``aidlc-docs/construction/<unit>/``) is merged with its code, so
  the review history is on the target branch; engine state (``aidlc-docs/.aidlc-engine/``)
  and tool leftovers are never merged. Only plain documents may change there, nothing
  elsewhere under ``aidlc-docs/``; any other path must be claimed by the unit.
- The target branch must be exactly where Bolt left it (at the start, after each of its own
  merges) and the repository's hooks as they were at the start, before every merge and at
  the gate; otherwise the run *stops* until a person puts it right (``guard.py``). Bolt's
  own git commands never run hooks.
- ``bolt abandon`` gives up a run that cannot finish (state kept) so a new one can start.
- Settlement and the gate run no agent: they read recorded outcomes only.
- Zero units: one stage-level generate + review in the main workspace, nothing merged.
"""
