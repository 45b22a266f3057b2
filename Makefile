# Cairn's two set-up commands are `make demo` and `make test`; each creates .venv when missing.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.cairn-installed

.PHONY: install demo test test-future check lint bench e2e clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	@$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	@VENV=$(VENV) bash scripts/demo.sh

test: $(STAMP)
	$(PY) -m pytest -p no:cacheprovider

# The whole suite again with the system clock a year ahead: no test may lean on today's date.
test-future: $(STAMP)
	@command -v faketime >/dev/null || bash scripts/need-faketime.sh
	faketime -f +365d $(PY) -m pytest -p no:cacheprovider

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench e2e
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy

check: lint test

bench: $(STAMP)
	@for script in bench/*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

e2e: $(STAMP)
	bash e2e/run.sh

clean:
	rm -rf $(VENV) .demo-store build dist src/*.egg-info
