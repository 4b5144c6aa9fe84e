# One command per task. `make run` and `make test` work on a fresh machine (see README.md).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
DATABASE_URL ?= sqlite+aiosqlite:///./data/hexmoot.db
export HOST PORT DATABASE_URL

.PHONY: run test install install-test browser services lint format typecheck pytest bench clean

run: install  ## install, migrate the embedded SQLite database, serve http://$(HOST):$(PORT)
	@mkdir -p data
	$(BIN)/alembic upgrade head
	$(BIN)/uvicorn app.main:create_app --factory --host $(HOST) --port $(PORT)

test: install-test browser services lint typecheck pytest  ## everything the tests need, then all checks

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "Python 3.11 or newer is needed (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --editable .
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --editable '.[test]'
	@touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

browser:  ## Debian's Chromium for the browser tests (never a downloaded browser)
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium"; \
		$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(if $(filter 0,$(shell id -u)),,sudo) \
			apt-get install -y -qq chromium fonts-dejavu-core >/dev/null; }

services:  ## PostgreSQL and Redis on loopback, started if this machine has them stopped
	@bash .ci/services

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

format:
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck:
	$(BIN)/mypy

pytest:
	$(BIN)/pytest

bench: install-test services  ## rules engines, then the server under load (figures, never pass/fail)
	$(BIN)/python -m games bench
	@if [ -f tests/load/bench.py ]; then $(BIN)/python -m tests.load.bench; fi

clean:
	rm -rf $(VENV) data .mypy_cache .ruff_cache .pytest_cache artifacts
