# Cairn's two set-up commands are `make demo` and `make test`; each creates .venv when missing.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.cairn-installed

.PHONY: install demo test test-postgresql test-future coverage check lint bench e2e screenshots clean

# pyproject.toml gives compatible ranges; constraints.txt pins the exact versions CI installs.
$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	@$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	@VENV=$(VENV) bash scripts/demo.sh

# The store-facing tests, run a second time on PostgreSQL by `make test` (each test on a fresh
# database of a throwaway cluster: tests/conftest.py, tests/pgcluster.py; where no server is
# installed, the run says so in red). The store contract suite and tests/test_store_*.py run
# on both backends in the first pass already.
STORE_FACING := tests/evidence tests/hooks tests/lessons tests/test_brief.py \
	tests/test_brief_counts.py tests/test_calls.py tests/test_calls_candidates.py \
	tests/test_cli_memory.py tests/test_context.py tests/test_docs.py tests/test_gates.py \
	tests/test_mcp_server.py tests/test_progress.py tests/test_quarter.py tests/test_recall.py \
	tests/test_recall_as_of.py tests/test_recall_lean.py tests/test_recall_mapped.py \
	tests/test_recall_models.py tests/test_recall_segments.py tests/test_remember.py \
	tests/test_stats.py tests/test_store_counts.py tests/test_store_sessions.py \
	tests/test_store_trigger_changes.py tests/test_tidy.py tests/test_tidy_cli.py \
	tests/test_tidy_pairs.py tests/test_transfer.py tests/test_triggerlist.py tests/test_undo.py

test: $(STAMP)
	@bash scripts/need-chromium.sh
	$(PY) -m pytest -p no:cacheprovider
	CAIRN_TEST_BACKEND=postgresql $(PY) -m pytest -p no:cacheprovider $(STORE_FACING)

# Only the second half of `make test`: the store-facing tests on PostgreSQL.
test-postgresql: $(STAMP)
	CAIRN_TEST_BACKEND=postgresql $(PY) -m pytest -p no:cacheprovider $(STORE_FACING)

# The whole suite again with the system clock a year ahead: no test may lean on today's date.
# The browser tests are left out here: they read no date, and Chromium under faketime's
# shifted clocks is not what they test.
test-future: $(STAMP)
	@command -v faketime >/dev/null || bash scripts/need-faketime.sh
	faketime -f +365d $(PY) -m pytest -p no:cacheprovider -m "not browser"

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench e2e scripts
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy

# The whole suite with line and branch coverage of src/cairn (settings in pyproject.toml; the
# subprocesses the tests start are measured too), then one row per module with its line and
# branch percent: fails when any module of src/cairn is under 85% of its lines.
COVERAGE_JSON := build/coverage.json
coverage: $(STAMP)
	@bash scripts/need-chromium.sh
	$(PY) -m pytest -p no:cacheprovider --cov --cov-report=json:$(COVERAGE_JSON)
	$(PY) scripts/coverage_floor.py $(COVERAGE_JSON) --floor 85

check: lint coverage

bench: $(STAMP)
	@for script in bench/*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

# The app's pages at desktop and phone widths, into docs/screenshots/ (linked from docs/app.md).
screenshots: $(STAMP)
	@bash scripts/need-chromium.sh
	CAIRN_SCREENSHOTS=docs/screenshots $(PY) -m pytest -p no:cacheprovider tests/web/test_browser.py -k screenshots

e2e: $(STAMP)
	bash e2e/run.sh

clean:
	rm -rf $(VENV) .demo-store build dist src/*.egg-info
