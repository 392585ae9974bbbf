# Every target sets up .venv first, so each works on a fresh clone.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test conformance bench lint mutation clean

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
