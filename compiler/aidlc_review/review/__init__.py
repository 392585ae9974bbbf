"""The code-review stage at run time: passes, stable findings, verdict, receipts, gates."""
