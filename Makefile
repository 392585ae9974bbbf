# Every target sets up .venv first, so each works on a fresh clone.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-engine conformance bench lint mutation clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	bash examples/run-demo.sh

# The tests make thousands of small git repositories, fsyncs and deletions: in RAM (tmpfs)
# when the machine has it, which is several times faster than a disk. Set TEST_TMP to choose.
TEST_TMP ?= $(shell test -d /dev/shm -a -w /dev/shm && echo /dev/shm || echo $${TMPDIR:-/tmp})

# `make test TESTS="a.py b.py"` picks test files (bench/suite times a subset); the default,
# the whole suite, is not taken from the environment.
TESTS := tests

test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= TMPDIR=$(TEST_TMP) $(BIN)/python -m pytest -n 2 --dist worksteal $(TESTS)

# The engine suite (the tests marked `engine`) once per export of upstream's engine named in
# AIDLC_UPSTREAM, ':'-separated (../shared/README.md says how to export one), e.g.
#   AIDLC_UPSTREAM=/scratch/e255/dist/claude:/scratch/e2618/dist/claude make test-engine
# `make test` skips these without AIDLC_UPSTREAM; run this when a change touches install, the
# engine hook, the shipped texts or the walks. Every export runs; it fails if any one did.
test-engine: $(STAMP)
	@test -n "$$AIDLC_UPSTREAM" || { echo "test-engine: set AIDLC_UPSTREAM=EXPORT[:EXPORT...] (../shared/README.md)" >&2; exit 2; }
	@status=0; IFS=:; for export in $$AIDLC_UPSTREAM; do \
	  echo "== the engine suite on $$export"; \
	  if [ ! -f "$$export/.claude/tools/aidlc-graph.ts" ]; then \
	    echo "test-engine: $$export holds no engine (.claude/tools/aidlc-graph.ts)" >&2; status=2; continue; fi; \
	  AIDLC_UPSTREAM=$$export PYTHONDONTWRITEBYTECODE= TMPDIR=$(TEST_TMP) \
	    $(BIN)/python -m pytest -n 2 --dist worksteal -m engine $(TESTS) || status=1; \
	done; exit $$status

conformance: $(STAMP)
	bash .ci/conformance.sh

lint: $(STAMP)
	$(BIN)/ruff check compiler tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

# Mutation testing of the pure rules, each against its own spec tests ([tool.mutmut] in
# pyproject.toml): writes bench/mutation/README.md's table, fails below 90% for any module.
# Minutes, not seconds: kept out of `make test` and CI.
mutation: $(STAMP)
	$(BIN)/python bench/mutation/run_mutation.py

clean:
	rm -rf $(VENV) .pytest_cache
