# tokenprism: `make run` serves the app, `make test` runs every test. Both set up first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
CHROMIUM ?= /usr/bin/chromium
HTMX_VERSION := $(shell sed -n 's/.*"htmx.org": "\(.*\)".*/\1/p' package.json)
SWAGGER_VERSION := $(shell sed -n 's/.*"swagger-ui-dist": "\(.*\)".*/\1/p' package.json)
HTMX := static/vendor/htmx-$(HTMX_VERSION).min.js
SWAGGER := static/vendor/swagger-ui-$(SWAGGER_VERSION)

.PHONY: setup run lint test test-fast browser wrk bench model-check clean

LLAMA_FILES := tokenizers/llama3.tiktoken tokenizers/llama4.tiktoken

setup: $(VENV)/.installed $(HTMX) $(SWAGGER)/swagger-ui-bundle.js $(LLAMA_FILES)

$(VENV)/.installed: pyproject.toml setup.py app/bpe/csrc/*.h app/bpe/csrc/*/*.c app/bpe/csrc/*/*.h \
		app/bpe/unicode_classes.py app/inspect/_parents.c app/backends/_nfc.c app/backends/nfc_tables.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench,dask]'
	touch $@

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts
	touch $@

$(HTMX): node_modules/.package-lock.json
	mkdir -p static/vendor
	cp node_modules/htmx.org/dist/htmx.min.js $@

$(SWAGGER)/swagger-ui-bundle.js: node_modules/.package-lock.json
	mkdir -p $(SWAGGER)
	cp node_modules/swagger-ui-dist/swagger-ui-bundle.js node_modules/swagger-ui-dist/swagger-ui.css $(SWAGGER)/
	cp node_modules/swagger-ui-dist/LICENSE node_modules/swagger-ui-dist/NOTICE node_modules/swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt $(SWAGGER)/

# Meta's Llama tokenizer files are not kept in git: copied from the installed, pinned
# llama-models package (a test extra) and checked by MANIFEST.tsv's sha256.
$(LLAMA_FILES): $(VENV)/.installed tokenizers/MANIFEST.tsv
	$(BIN)/python -m app.tokenizers.storage.package_files

# Debian's Chromium for the browser tests (Playwright's own browser download cannot work offline).
browser:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi; }
	@$(CHROMIUM) --version 2>/dev/null

# Debian's wrk for the load benchmarks (bench/wrk_runner.py).
wrk:
	@command -v wrk >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; fi; }

run: setup
	$(BIN)/tokenprism serve --host $(HOST) --port $(PORT)

# The tools that check us: ruff's lint (rules in pyproject.toml), its formatter (the one style) and mypy
# over app/ (its settings in pyproject.toml too).
lint: setup
	$(BIN)/ruff check app tests bench setup.py
	$(BIN)/ruff format --check app tests bench setup.py
	$(BIN)/mypy

# Test files run on twice as many workers as cores, 2 to 16 (one file stays on one worker: its module
# fixtures start once), since two thirds of a worker's time is spent waiting on servers, browsers and
# child processes (2 cores: 18:10 on 2 workers, 17:24 on 3, 14:33 on 4, 14:44 on 6; 13:11 on 4 with bytecode); the tests marked
# serial time the server's answers and run after, alone.
# Bytecode written even where PYTHONDONTWRITEBYTECODE is set: the tests start hundreds of Python
# processes (servers, the CLI, sandbox children), each compiling app/ again without it (tests/cli: -10% CPU).
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -p no:cacheprovider
WORKERS := $(shell $(PYTHON) -c 'import os; n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1; print(min(16, max(2, n * 2)))')
PARALLEL := -n $(WORKERS) --dist loadfile

test: lint browser
	$(PYTEST) $(PARALLEL) -m "not serial"
	$(PYTEST) -m serial

test-fast: setup
	$(PYTEST) $(PARALLEL) -m "not browser and not slow"

bench: setup wrk
	$(BIN)/python bench/bench_train.py
	$(BIN)/python bench/bench_encode.py
	$(BIN)/python bench/bench_engine.py
	$(BIN)/python bench/bench_threads.py
	$(BIN)/python bench/bench_load.py
	$(BIN)/python bench/bench_hostile.py
	$(BIN)/python bench/bench_attacks.py
	$(BIN)/python bench/bench_corpus.py

model-check: setup
	$(BIN)/python -m app.bpe.default_model --check

clean:
	rm -rf $(VENV) node_modules static/vendor *.egg-info
