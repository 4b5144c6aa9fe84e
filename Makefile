# One command per task. `make run` and `make test` work on a fresh machine (see README.md);
# `make help` lists the others. Every install is the locked versions (requirements*.lock).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
DATABASE_URL ?= sqlite+aiosqlite:///./data/hexmoot.db
# pytest-xdist workers: one more than the CPUs, as a test spends about a tenth of its time waiting on
# a server or a browser, which a third worker fills on 2 cores (an idle machine's whole suite: 547 s
# with 2 workers, 117 of its 1,087 core-seconds idle). `make pytest WORKERS=0` runs in one process.
WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
# `make cluster`: how many app processes, and nginx's port.
N ?= 2
CLUSTER_PORT ?= 8080
# The lock tool's own version, so that `make lock` writes the same files on every machine.
UV_VERSION ?= 0.13.9
export HOST PORT DATABASE_URL

.PHONY: help run cluster test check install install-test install-js native lock browser nginx \
	services lint format typecheck pytest bench schema clean

help:  ## this list
	@awk -F ':.*## ' '/^[a-z][a-z-]*:.*## / {printf "  make %-13s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# Served as in production (`python -m app.serve`: timeouts, frame and body limits, redacted logs),
# in the development mode (DEV_MODE=1).
run: install browser  ## install (and Chromium, which draws shared links' pictures), migrate the embedded SQLite database, serve http://HOST:PORT (127.0.0.1:8000)
	@mkdir -p data
	$(BIN)/alembic upgrade head
	DEV_MODE=1 $(BIN)/python -m app.serve

# The production topology without Docker (deploy/cluster.py): nginx with deploy/nginx.conf, the file
# compose.yaml mounts, in front of N app processes on a PostgreSQL database of its own
# (hexmoot_cluster) and the local Redis. Ctrl-C stops it all.
cluster: install services nginx  ## try the production setup: nginx on http://127.0.0.1:CLUSTER_PORT (8080) in front of N (2) app processes on PostgreSQL and Redis
	$(BIN)/python -m deploy.cluster --processes $(N) --port $(CLUSTER_PORT)

test: install-test native install-js browser nginx services lint typecheck pytest  ## everything the tests need, then all checks and every test

check: install-test install-js nginx services lint typecheck  ## the inner loop: lint, types, the tests not marked slow or browser
	$(TESTED_BUILD) $(BIN)/pytest -n $(WORKERS) -m 'not slow and not browser'

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "Python 3.11 or newer is needed (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The locked versions with their hashes, then the project itself without letting pip pick any
# dependency of its own.
$(VENV)/.installed: requirements.lock pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r requirements.lock
	$(BIN)/pip install --quiet --no-deps --editable .
	@touch $@

$(VENV)/.installed-test: requirements-test.lock pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r requirements-test.lock
	$(BIN)/pip install --quiet --no-deps --editable .
	@touch $@ $(VENV)/.installed

# The JavaScript checker (ESLint), at the versions package-lock.json pins, with Node's own npm.
node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
		echo "installing Debian's nodejs and npm"; \
		$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(if $(filter 0,$(shell id -u)),,sudo) \
			apt-get install -y -qq nodejs npm >/dev/null; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

install: $(VENV)/.installed native  ## the locked runtime dependencies, the project (editable), the rules compiled
install-js: node_modules/.installed  ## the locked JavaScript lint tools (npm ci)
install-test: $(VENV)/.installed-test  ## the runtime and test dependencies (not compiling: `make check` stays quick)

# The compiler: mypy (mypyc ships with it) and setuptools (its build_ext), locked like the rest.
$(VENV)/.installed-build: requirements-build.lock | $(BIN)/python
	$(BIN)/pip install --quiet --require-hashes -r requirements-build.lock
	@touch $@

# The rules modules that pay, compiled with mypyc into build/mypyc (build_native.py), where
# games/native.py loads them only while every source they were compiled from is unchanged; pure
# Python runs where compiling is impossible (one line says why). Run every time: it compares the
# sources' hashes with the build's and does nothing when current (0.3 s). Under `make test` a module
# mypyc refuses is an error, since both builds must stay green. `make check` does not compile (a
# minute of the inner loop after each edit of a rule): it tests the compiled build if current,
# else the pure one.
native: $(VENV)/.installed $(VENV)/.installed-build  ## compile the rules with mypyc (pure Python where impossible); HEXMOOT_PURE=1 runs pure
	$(BIN)/python build_native.py $(NATIVE_FLAGS)
test: NATIVE_FLAGS = --strict
# Each test run says which build it expects (tests/games/test_build.py checks it is the one loaded).
TESTED_BUILD = HEXMOOT_EXPECT_BUILD=$$($(BIN)/python build_native.py --status)

# requirements-test.lock is resolved within requirements.lock's pins, and requirements-build.lock (the
# compiler, `make native`) within requirements-test.lock's, so they never disagree;
# both keep their current pins unless pyproject.toml asks otherwise (UPGRADE=--upgrade for newest).
lock: | $(BIN)/python  ## regenerate requirements.lock, requirements-test.lock and requirements-build.lock from pyproject.toml
	$(BIN)/pip install --quiet uv==$(UV_VERSION)
	$(BIN)/uv pip compile pyproject.toml $(UPGRADE) --universal --python-version 3.11 \
		--generate-hashes --custom-compile-command 'make lock' --quiet -o requirements.lock
	$(BIN)/uv pip compile pyproject.toml $(UPGRADE) --extra test -c requirements.lock --universal \
		--python-version 3.11 --generate-hashes --custom-compile-command 'make lock' --quiet \
		-o requirements-test.lock
	$(BIN)/uv pip compile --group pyproject.toml:native $(UPGRADE) -c requirements-test.lock \
		--universal --python-version 3.11 --generate-hashes --custom-compile-command 'make lock' \
		--quiet -o requirements-build.lock

# The headless shell drives most browser tests (half the processor time of the whole browser);
# the whole browser, the tests of what only it has (desktop notifications).
browser:  ## Debian's Chromium and its headless shell for the browser tests (never a downloaded browser)
	@{ command -v chromium && command -v chromium-headless-shell; } >/dev/null 2>&1 || { \
		echo "installing Debian's chromium and chromium-headless-shell"; \
		$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(if $(filter 0,$(shell id -u)),,sudo) \
			apt-get install -y -qq chromium chromium-headless-shell fonts-dejavu-core >/dev/null; }

# Debian's package (nginx 1.22 on bookworm): the proxy of `make cluster` and of tests/deploy/.
nginx:  ## Debian's nginx for `make cluster` and the deployment tests
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
		echo "installing Debian's nginx"; \
		$(if $(filter 0,$(shell id -u)),,sudo) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(if $(filter 0,$(shell id -u)),,sudo) \
			apt-get install -y -qq nginx >/dev/null; }

services:  ## PostgreSQL and Redis on loopback, started if this machine has them stopped
	@bash .ci/services

lint: install-js  ## ruff's lint and format checks, the import contracts (.importlinter), ESLint over static/js
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	npx --no-install eslint static/js

schema:  ## write docs/view.schema.json and docs/messages.schema.json from the code
	$(BIN)/python -m app.schemas

format:  ## let ruff fix what it can and format the code
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

typecheck:  ## mypy --strict over games, app, migrations, deploy and build_native.py
	$(BIN)/mypy

# The whole suite on the compiled build (where there is one), then the rules' tests and doctests on
# the pure one (a compiled function's doctests are not found: they run in the second pass only).
pytest: install-js  ## every test, slow and browser ones included, in parallel (WORKERS workers); the rules' again on pure Python
	$(TESTED_BUILD) $(BIN)/pytest -n $(WORKERS)
	HEXMOOT_PURE=1 HEXMOOT_EXPECT_BUILD=pure $(BIN)/pytest -n $(WORKERS) tests/games games

bench: install-test native services  ## rules engines, then the server under load (figures, never pass/fail)
	$(BIN)/python -m games bench
	@if [ -f tests/load/bench.py ]; then $(BIN)/python -m tests.load.bench; fi

clean:  ## remove the virtualenv, the database and every cache
	rm -rf $(VENV) node_modules data build .mypy_cache .ruff_cache .pytest_cache artifacts
