# tsdedup: the two commands are `make run` (set up, then build the sample data) and
# `make test` (set up, lint, then run the whole test suite). Both install the
# pinned dependencies into .venv first, and skip that when nothing changed.

PYTHON ?= python3.11
# Test processes: each end-to-end test runs Spark in its own JVM. On a 2-core
# machine CI took 52 min with two and 41 with three (the cores 98 % busy);
# the commands of one test wait on each other's processes. sqlfluff lints with
# as many.
TEST_WORKERS ?= 3
VENV := .venv
BIN := $(VENV)/bin
# The dbt adapter `tsdedup_spark` (adapter/): installed as a regular package,
# since dbt finds adapters in the `dbt.adapters` namespace of site-packages.
ADAPTER_FILES := adapter/pyproject.toml $(sort $(shell find adapter/src -type f \( -name '*.py' -o -name '*.yml' -o -name '*.sql' \)))
STAMP := $(VENV)/.installed-$(shell cat requirements.txt constraints.txt pyproject.toml $(ADAPTER_FILES) | sha256sum | cut -c1-16)
PYTHON_PATHS := python_udfs tsdedup adapter/src tests bench lint
# Models, singular tests and the macro contracts' models; macros/ is left out (.sqlfluffignore).
SQL_PATHS := models tests/singular tests/macro_contracts/models

.PHONY: run test lint lint-fix setup team-setup unit test-crash bench bench-medium bench-small cluster-check clean

run: setup
	$(BIN)/tsdedup sample

test: lint
	bash .ci/pytest-or-fail $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25

# Ruff, then sqlfluff with its jinja templater: no Spark session, no warehouse
# (.sqlfluff says why not the dbt templater).
lint: setup
	$(BIN)/ruff check $(PYTHON_PATHS)
	$(BIN)/ruff format --check $(PYTHON_PATHS)
	$(BIN)/sqlfluff lint --processes $(TEST_WORKERS) $(SQL_PATHS)

# Applies what the linters can fix themselves; review the diff.
lint-fix: setup
	$(BIN)/ruff check --fix $(PYTHON_PATHS)
	$(BIN)/ruff format $(PYTHON_PATHS)
	$(BIN)/sqlfluff fix $(SQL_PATHS)

setup: $(STAMP)

$(STAMP): requirements.txt constraints.txt pyproject.toml $(ADAPTER_FILES)
	@command -v $(PYTHON) >/dev/null || { echo "tsdedup needs $(PYTHON) (Python 3.11) on PATH"; exit 1; }
	@command -v java >/dev/null || { echo "tsdedup needs a Java runtime (17) for Spark: e.g. apt-get install openjdk-17-jre-headless"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -c constraints.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m pip install --quiet --no-deps --force-reinstall ./adapter
	rm -f $(VENV)/.installed-*
	touch $@

bench: setup
	$(BIN)/python -m bench --scale full --out bench/results/latest.json --docs docs/benchmarks.md

bench-medium: setup
	$(BIN)/python -m bench --scale medium --out bench/results/medium.json --docs docs/benchmarks.md

bench-small: setup
	$(BIN)/python -m bench --scale small --out bench/results/small.json

# Debian's PostgreSQL server and JDBC driver, for the `team` target's catalog
# and the checks below (as root, or with sudo; nothing when they are there).
team-setup: setup
	bash .ci/install-postgresql

# The sample on a standalone Spark cluster (a master and two workers on
# 127.0.0.1, started and stopped by the check) with the catalog in a throw-away
# PostgreSQL server, compared with the local build.
cluster-check: setup
	$(BIN)/python -m tsdedup.standalone_cluster --workers 2

unit: setup
	bash .ci/pytest-or-fail $(BIN)/python -m pytest tests/unit

# Runs killed at random moments, one workspace per seed (CI runs seed 0 only).
CRASH_SEEDS ?= 20
test-crash: setup
	TSDEDUP_CRASH_SEEDS=$(CRASH_SEEDS) bash .ci/pytest-or-fail $(BIN)/python -m pytest -n $(TEST_WORKERS) -s tests/integration/test_crash_and_readers.py

clean:
	rm -rf target logs .tsdedup
