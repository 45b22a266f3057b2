# Cairn's two set-up commands are `make demo` and `make test`; each creates .venv when missing.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.cairn-installed

.PHONY: install demo test test-future coverage check lint bench e2e screenshots clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	@$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	@VENV=$(VENV) bash scripts/demo.sh

test: $(STAMP)
	@bash scripts/need-chromium.sh
	$(PY) -m pytest -p no:cacheprovider

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

# The whole suite with line and branch coverage of src/cairn (settings in pyproject.toml).
coverage: $(STAMP)
	@bash scripts/need-chromium.sh
	$(PY) -m pytest -p no:cacheprovider --cov --cov-report=term:skip-covered

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
