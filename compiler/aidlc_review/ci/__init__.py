"""CI: the job summary, per-unit findings merged into the aggregate gate, SARIF."""
